import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from './support/factories.js';
import { call, dayAt, type CallOptions, type RestResponse } from './support/rest.js';
import { assertSchema } from './support/schemas.js';
import { startServer, type TestServer } from './support/server.js';

// The same events requests through every way in (decision 1, DESIGN.md): the canonical namespace, the original's
// `tribe/events/v1` alias, a language segment, and WordPress's plain-permalink `?rest_route=` form for both
// namespaces. Each must answer the same status, body and headers. Links in bodies always point at the canonical
// namespace (decision 11), whichever way the request came in.

const SITE = 'http://calendar.test';
const CANONICAL = '/wp-json/calendar/events/v1';
const ALIASES = [
  '/wp-json/tribe/events/v1',
  '/de/wp-json/calendar/events/v1',
  '/?rest_route=/calendar/events/v1',
  '/?rest_route=/tribe/events/v1',
];
const ALL = [CANONICAL, ...ALIASES];
const COMPARED_HEADERS = [
  'content-type',
  'allow',
  'x-tec-total',
  'x-tec-totalpages',
  'link',
  'access-control-expose-headers',
];

let server: TestServer;
type Json = Record<string, any>;
const fixtures: Json = {};

beforeAll(async () => {
  server = await startServer({ SITE_URL: SITE });
  const create = async (body: Json) => {
    const response = await call(server, 'POST', '/events', { json: body });
    if (response.status !== 201) throw new Error(response.text);
    return response.body;
  };
  fixtures.concert = await create({
    title: 'Alias concert',
    start_date: dayAt(2, '19:00:00'),
    end_date: dayAt(2, '22:00:00'),
    cost: '$10 - $25',
    categories: ['Music'],
    tags: ['live'],
    venue: { venue: 'Alias hall', city: 'Berlin' },
    organizer: [{ organizer: 'Alias org' }],
  });
  fixtures.workshop = await create({
    title: 'Alias workshop',
    start_date: dayAt(3),
    end_date: dayAt(3, '12:00:00'),
    all_day: true,
    featured: true,
    categories: ['Workshops'],
  });
  for (let i = 0; i < 3; i++)
    await create({ title: `Alias filler ${i}`, start_date: dayAt(5 + i), end_date: dayAt(5 + i, '11:00:00') });
  fixtures.draft = await create({
    title: 'Alias draft',
    start_date: dayAt(4),
    end_date: dayAt(4, '11:00:00'),
    status: 'draft',
  });
  fixtures.trashed = await create({ title: 'Alias trashed', start_date: dayAt(4), end_date: dayAt(4, '11:00:00') });
  await call(server, 'DELETE', `/events/${fixtures.trashed.id}`);
});
afterAll(() => server?.close());

function snapshot(response: RestResponse) {
  return {
    status: response.status,
    body: response.body,
    headers: Object.fromEntries(COMPARED_HEADERS.map((name) => [name, response.headers.get(name)])),
  };
}

/** Calls the route through every way in and checks each answer equals the canonical one; answers that one. */
async function same(method: string, route: string, options: CallOptions = {}) {
  const answers = [];
  for (const base of ALL) answers.push(snapshot(await call(server, method, route, { ...options, base })));
  const [canonical, ...others] = answers;
  others.forEach((other, index) => expect(other, `${method} ${ALIASES[index]}${route}`).toEqual(canonical));
  return canonical!;
}

describe('read requests answer identically through every alias', () => {
  const cases: Array<[string, string, () => CallOptions]> = [
    ['the default list', '/events', () => ({})],
    ['a paged list', '/events', () => ({ query: 'per_page=2&page=2' })],
    [
      'a filtered list',
      '/events',
      () => ({ query: `categories=music&featured=false&venue=${fixtures.concert.venue.id}` }),
    ],
    ['a list with _fields', '/events', () => ({ query: 'per_page=3&_fields=events.id,events.title,total' })],
    ['a list under _envelope', '/events', () => ({ query: 'per_page=1&_envelope' })],
    ['a page past the last', '/events', () => ({ query: 'page=9' })],
    ['per_page=abc', '/events', () => ({ query: 'per_page=abc' })],
    ['an unknown category filter', '/events', () => ({ query: 'categories=999999' })],
    ['a bad start_date', '/events', () => ({ query: 'start_date=notadate' })],
  ];
  it.each(cases)('%s', async (_name, route, options) => {
    const answer = await same('GET', route, options());
    expect(answer.status).toBeLessThan(500);
  });

  it('a single event, by ID and by slug, with json_ld', async () => {
    const byId = await same('GET', `/events/${fixtures.concert.id}`);
    expect(byId.status).toBe(200);
    assertSchema('event', byId.body);
    expect(byId.body.rest_url).toBe(`${SITE}${CANONICAL}/events/${fixtures.concert.id}`);
    expect(byId.body.categories[0].urls.self).toMatch(new RegExp(`^${SITE}${CANONICAL}/categories/\\d+$`));
    const bySlug = await same('GET', `/events/by-slug/${fixtures.concert.slug}`);
    expect(bySlug.body).toEqual(byId.body);
    expect((await same('GET', `/events/${fixtures.workshop.id}`, { query: '_fields=id,title,all_day' })).body).toEqual({
      id: fixtures.workshop.id,
      title: 'Alias workshop',
      all_day: true,
    });
  });

  it('the list links point at the canonical namespace', async () => {
    const answer = await same('GET', '/events', { query: 'per_page=2' });
    expect(answer.body.rest_url.startsWith(`${SITE}${CANONICAL}/events/?page=1&per_page=2&`)).toBe(true);
    expect(answer.body.next_rest_url.startsWith(`${SITE}${CANONICAL}/events/?per_page=2&`)).toBe(true);
    expect(answer.headers['x-tec-total']).toBe('5');
  });

  it('errors of single reads', async () => {
    expect((await same('GET', '/events/999999')).body.code).toBe('rest-event-not-found');
    expect((await same('GET', '/events/by-slug/no-such-event')).body.code).toBe('rest_invalid_param');
    expect((await same('GET', `/events/${fixtures.draft.id}`)).body.code).toBe('event-not-accessible');
    expect((await same('GET', `/events/${fixtures.trashed.id}`)).body.code).toBe('event-no-longer-available');
    expect((await same('GET', '/events/foo')).body.code).toBe('rest_no_route');
    expect((await same('PUT', '/events', { json: {} })).body.code).toBe('rest_no_route');
  });

  it('OPTIONS (descriptions in the language of the URL) and HEAD', async () => {
    for (const [route, allow] of [
      ['/events', 'GET, POST'],
      [`/events/${fixtures.concert.id}`, 'GET, DELETE, POST, PUT, PATCH'],
    ]) {
      const answers = [];
      for (const base of ALL) answers.push({ base, answer: snapshot(await call(server, 'OPTIONS', route!, { base })) });
      const canonical = answers[0]!.answer;
      expect(canonical.headers.allow).toBe(allow);
      for (const { base, answer } of answers) {
        expect(answer.status, base).toBe(200);
        expect(answer.headers, base).toEqual(canonical.headers);
        // The language segment translates the parameter descriptions only.
        if (!base.startsWith('/de/')) expect(answer.body, base).toEqual(canonical.body);
        else expect(Object.keys(answer.body.endpoints[0].args)).toEqual(Object.keys(canonical.body.endpoints[0].args));
      }
    }
    const head = await same('HEAD', '/events');
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
  });
});

describe('write requests behave identically through every alias', () => {
  /** Fields that differ between two records created alike: their identity and timestamps. */
  function normalized(body: Json): Json {
    if (!body || typeof body !== 'object' || !('id' in body)) return body;
    const {
      id,
      global_id,
      global_id_lineage,
      slug,
      url,
      rest_url,
      website,
      date,
      date_utc,
      modified,
      modified_utc,
      title,
      ...restOf
    } = body;
    // Term counts grow with every event created.
    const terms = (list: Json[]) => list.map(({ count, ...term }) => term);
    return { ...restOf, categories: terms(restOf.categories), tags: terms(restOf.tags) };
  }

  async function eachBase<T>(action: (base: string, index: number) => Promise<RestResponse<T>>) {
    const answers: RestResponse<T>[] = [];
    for (const [index, base] of ALL.entries()) answers.push(await action(base, index));
    const [canonical, ...others] = answers.map((answer) => ({
      ...snapshot(answer),
      body: normalized(answer.body as Json),
    }));
    others.forEach((other, index) => expect(other, ALIASES[index]).toEqual(canonical));
    return answers;
  }

  const payload = () => ({
    title: unique('Alias write'),
    start_date: dayAt(6, '18:00:00'),
    end_date: dayAt(6, '20:00:00'),
    categories: ['Music'],
    venue: fixtures.concert.venue.id,
    organizer: [fixtures.concert.organizer[0].id],
    cost: '15',
  });

  it('create (JSON and form), update, delete and delete again', async () => {
    const created = await eachBase((base) => call(server, 'POST', '/events', { base, json: payload() }));
    for (const answer of created) expect(answer.status).toBe(201);
    const form = await eachBase((base) =>
      call(server, 'POST', '/events', { base, form: { ...payload(), featured: 'yes' } }),
    );
    for (const answer of form) expect(answer.body.featured).toBe(true);

    const updated = await eachBase((base, index) =>
      call(server, 'POST', `/events/${created[index]!.body.id}`, { base, json: { cost: '20', all_day: false } }),
    );
    for (const answer of updated)
      expect(answer.body).toMatchObject({ status: 'publish', cost: '$20', cost_details: { values: ['20'] } });
    await eachBase((base, index) =>
      call(server, 'PATCH', `/events/by-slug/${created[index]!.body.slug}`, { base, form: { sticky: '1' } }),
    );
    await eachBase((base, index) =>
      call(server, 'POST', `/events/${form[index]!.body.id}`, {
        base,
        headers: { 'X-HTTP-Method-Override': 'DELETE' },
      }),
    );

    const deleted = await eachBase((base, index) =>
      call(server, 'DELETE', `/events/${created[index]!.body.id}`, { base }),
    );
    for (const answer of deleted) expect(answer.body.status).toBe('trash');
    const again = await eachBase((base, index) =>
      call(server, 'DELETE', `/events/${created[index]!.body.id}`, { base }),
    );
    for (const answer of again) expect(answer.body.code).toBe('event-is-in-trash');
  });

  it('refusals: missing and invalid parameters, malformed JSON, unknown IDs and slugs', async () => {
    await same('POST', '/events', { json: {} });
    await same('POST', '/events', { json: { title: '', start_date: 'x', end_date: dayAt(1) } });
    await same('POST', '/events', { json: { ...payload(), title: 'Same', venue: 999999 } });
    await same('POST', '/events', { raw: '{', headers: { 'content-type': 'application/json' } });
    await same('POST', '/events/999999', { json: { title: 'x' } });
    await same('DELETE', '/events/999999');
    await same('DELETE', '/events/by-slug/no-such-event');
  });
});
