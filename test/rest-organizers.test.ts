import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, createOrganizer, unique } from './support/factories.js';
import {
  adminAuthor,
  expectSampleOrder,
  inOrder,
  ORGANIZER_KEY_ORDER,
  restClient,
  sampleBody,
  sampleHeaders,
  type RestClient,
  type RestResponse,
} from './support/rest.js';
import { assertSchema } from './support/schemas.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';
import { startImageServer, type ImageServer } from './support/image-server.js';

// Images given by URL are fetched: they come from a local image server.
let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
});
afterAll(() => images?.close());

// REST /organizers as The Events Calendar answers them (docs/rest-compatibility.md), over HTTP against a real server and database.

const SITE = 'http://calendar.test';
const API_URL = `${SITE}/wp-json/calendar/events/v1`;
/** Writes are made by the test administrator, so the records are its own (`author` is its ID). */
const WRITE_HEADERS: Record<string, string> = { authorization: ADMIN_AUTHORIZATION };
const AS_ADMIN = { authorization: ADMIN_AUTHORIZATION };

let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer({ SITE_URL: SITE });
  rest = restClient(server);
});
afterAll(() => server.close());

const write = (
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  route: string,
  json?: Record<string, unknown>,
  query?: string,
) => rest.call(method, route, { ...(json ? { json } : {}), ...(query ? { query } : {}), headers: WRITE_HEADERS });

async function newOrganizer(fields: Record<string, unknown> = {}) {
  const reply = await write('POST', '/organizers', { organizer: unique('Organizer'), ...fields });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

function expectOrganizer(organizer: any, options: { single?: boolean } = {}) {
  assertSchema('organizer', organizer);
  expect(inOrder(Object.keys(organizer), ORGANIZER_KEY_ORDER), Object.keys(organizer).join(',')).toBe(true);
  expect('json_ld' in organizer).toBe(options.single === true);
  expect('show_map' in organizer).toBe(false);
  expect(organizer.global_id).toBe(`calendar.test?id=${organizer.id}`);
  expect(organizer.global_id_lineage).toEqual([organizer.global_id]);
  expect(organizer.url).toBe(`${SITE}/organizer/${organizer.slug}/`);
}

function expectInvalidParam(reply: RestResponse, ...params: string[]) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(400);
  expect(Object.keys(reply.body)).toEqual(['code', 'message', 'data']);
  expect(reply.body.code).toBe('rest_invalid_param');
  expect(reply.body.message).toBe(`Invalid parameter(s): ${params.join(', ')}`);
  expect(reply.body.data.status).toBe(400);
  expect(Object.keys(reply.body.data.params).sort()).toEqual([...params].sort());
}

function expectError(reply: RestResponse, status: number, code: string) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(Object.keys(reply.body)).toEqual(['code', 'message', 'data']);
  expect(reply.body.code).toBe(code);
  expect(reply.body.data.status).toBe(status);
}

const URL_FORMS = ['/wp-json/tribe/events/v1', '/de/wp-json/calendar/events/v1', '/?rest_route=/calendar/events/v1'];

/** The same request by the alias namespace, a language prefix and the plain-permalink form answers the same body. */
async function expectSameEverywhere(client: RestClient, route: string, query = '') {
  const canonical = await client.get(route, { query });
  for (const base of URL_FORMS) {
    const other = await client.get(route, { query, base });
    expect(other.status, base).toBe(canonical.status);
    expect(other.text, base).toBe(canonical.text);
    expect(other.headers.get('x-tec-total'), base).toBe(canonical.headers.get('x-tec-total'));
  }
  return canonical;
}

describe('GET /organizers', () => {
  // Its own server, so totals are exact.
  let list: TestServer;
  let client: RestClient;
  const ids: Record<string, number> = {};
  let sharedEvent: number;
  let pastEvent: number;

  beforeAll(async () => {
    list = await startServer({ SITE_URL: SITE });
    client = restClient(list);
    const empty = await client.get('/organizers');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      organizers: [],
      rest_url: `${API_URL}/organizers/?page=1&per_page=10&status=publish`,
      total: 0,
      total_pages: 0,
    });
    expect(empty.headers.get('x-tec-total')).toBe('0');
    expect(empty.headers.get('x-tec-totalpages')).toBe('0');
    const create = async (key: string, fields: Record<string, unknown>) => {
      const reply = await client.post('/organizers', { json: fields, headers: WRITE_HEADERS });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      ids[key] = reply.body.id;
    };
    await create('acme', {
      organizer: 'Acme Events',
      phone: '+1 555 0200',
      website: 'https://example.com/org',
      email: 'acme@example.com',
    });
    await create('arts', { organizer: 'City Arts Council', phone: '+1 555 0201', email: 'arts@example.com' });
    await create('jane', { organizer: 'Jane Doe', description: 'Jazz singer', email: 'jane@example.com' });
    await create('draft', { organizer: 'Hidden Draft', status: 'pending', email: 'hidden@example.com' });
    await create('idle', { organizer: 'Idle Person' });
    sharedEvent = (await createEvent(list, { organizers: [{ id: ids.acme }, { id: ids.jane }] })).id;
    pastEvent = (
      await createEvent(list, {
        startDate: '2021-03-01 09:00:00',
        endDate: '2021-03-01 10:00:00',
        organizers: [{ id: ids.arts }],
      })
    ).id;
    await createEvent(list, { status: 'DRAFT', organizers: [{ id: ids.idle }] });
  });
  afterAll(() => list.close());

  it('lists published organizers newest first in the original envelope, with X-TEC headers', async () => {
    const reply = await client.get('/organizers');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(reply.headers.get('x-tec-total')).toBe('4');
    expect(reply.headers.get('x-tec-totalpages')).toBe('1');
    expect(reply.headers.get('access-control-expose-headers')).toContain('X-TEC-Total');
    expect(reply.headers.get('access-control-expose-headers')).toContain('X-TEC-TotalPages');
    const sample = sampleBody('16-organizers-list');
    expect(Object.keys(reply.body)).toEqual(Object.keys(sample));
    expect(reply.body.organizers.map((o: any) => o.id)).toEqual([ids.idle, ids.jane, ids.arts, ids.acme]);
    expect(reply.body.rest_url).toBe(`${API_URL}/organizers/?page=1&per_page=10&status=publish`);
    expect(reply.body).toMatchObject({ total: 4, total_pages: 1 });
    for (const organizer of reply.body.organizers) {
      expectOrganizer(organizer);
      expectSampleOrder(organizer, sample.organizers[0]);
    }
    const acme = reply.body.organizers.find((o: any) => o.id === ids.acme);
    // The sample's keys, `author` included: the administrator created it.
    expect(Object.keys(acme)).toEqual(Object.keys(sample.organizers[0]));
    expect(acme).toMatchObject({
      author: await adminAuthor(list),
      status: 'publish',
      organizer: 'Acme Events',
      slug: 'acme-events',
      phone: '+1 555 0200',
      website: 'https://example.com/org',
      email: 'acme@example.com',
    });
    expect(sampleHeaders('16-organizers-list').headers['x-tec-totalpages']).toBe('1');
  });

  it('pages with next and previous links, and answers 404 past the last page', async () => {
    const first = await client.get('/organizers', { query: 'per_page=3' });
    expect(Object.keys(first.body)).toEqual(['organizers', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
    expect(first.body.next_rest_url).toBe(`${API_URL}/organizers/?per_page=3&status=publish&page=2`);
    const second = await client.get('/organizers', { query: 'per_page=3&page=2' });
    expect(Object.keys(second.body)).toEqual(['organizers', 'rest_url', 'previous_rest_url', 'total', 'total_pages']);
    expect(second.body.organizers.map((o: any) => o.id)).toEqual([ids.acme]);
    expect(second.body.rest_url).toBe(`${API_URL}/organizers/?page=2&per_page=3&status=publish`);
    expect(second.body.previous_rest_url).toBe(`${API_URL}/organizers/?per_page=3&status=publish`);
    expect(second.headers.get('x-tec-totalpages')).toBe('2');
    const beyond = await client.get('/organizers', { query: 'per_page=3&page=3' });
    expectError(beyond, 404, 'organizer-archive-page-not-found');
    expect(beyond.body.message).toBe('The requested organizer archive page does not exist');
    expectError(await client.get('/organizers', { query: 'page=2' }), 404, 'organizer-archive-page-not-found');
  });

  it('validates page and per_page, and clamps per_page to 50', async () => {
    for (const query of ['page=0', 'page=x']) expectInvalidParam(await client.get('/organizers', { query }), 'page');
    for (const query of ['per_page=0', 'per_page=ten'])
      expectInvalidParam(await client.get('/organizers', { query }), 'per_page');
    const clamped = await client.get('/organizers', { query: 'per_page=51' });
    expect(clamped.body.rest_url).toBe(`${API_URL}/organizers/?page=1&per_page=50&status=publish`);
  });

  it('searches name, description, phone, e-mail and website, leaving search out of rest_url', async () => {
    const byEmail = await client.get('/organizers', { query: 'search=arts@' });
    expect(byEmail.body.organizers.map((o: any) => o.id)).toEqual([ids.arts]);
    expect(byEmail.body.rest_url).toBe(`${API_URL}/organizers/?page=1&per_page=10&status=publish`);
    expect((await client.get('/organizers', { query: 'search=jazz' })).body.organizers.map((o: any) => o.id)).toEqual([
      ids.jane,
    ]);
    expect((await client.get('/organizers', { query: 'search=0200' })).body.organizers.map((o: any) => o.id)).toEqual([
      ids.acme,
    ]);
    expect((await client.get('/organizers', { query: 'search=example.com/org' })).body.total).toBe(1);
    expect((await client.get('/organizers', { query: 'search=hidden' })).body.total).toBe(0); // pending stays hidden
    expectInvalidParam(await client.get('/organizers', { query: 'search=' }), 'search');
  });

  it('filters by event, has_events and only_with_upcoming', async () => {
    const byEvent = await client.get('/organizers', { query: `event=${sharedEvent}` });
    expect(byEvent.body.organizers.map((o: any) => o.id)).toEqual([ids.jane, ids.acme]);
    expect(byEvent.body.rest_url).toBe(`${API_URL}/organizers/?page=1&per_page=10&event=${sharedEvent}&status=publish`);
    expect(
      (await client.get('/organizers', { query: `event=${pastEvent}` })).body.organizers.map((o: any) => o.id),
    ).toEqual([ids.arts]);
    expectInvalidParam(await client.get('/organizers', { query: 'event=424242' }), 'event');
    expectInvalidParam(await client.get('/organizers', { query: 'event=first' }), 'event');

    const withEvents = await client.get('/organizers', { query: 'has_events=1' });
    expect(withEvents.body.organizers.map((o: any) => o.id)).toEqual([ids.jane, ids.arts, ids.acme]);
    expect(withEvents.body.rest_url).toBe(`${API_URL}/organizers/?page=1&per_page=10&has_events=true&status=publish`);
    expect(
      (await client.get('/organizers', { query: 'has_events=false' })).body.organizers.map((o: any) => o.id),
    ).toEqual([ids.idle]);
    expectInvalidParam(await client.get('/organizers', { query: 'has_events=often' }), 'has_events');

    const upcoming = await client.get('/organizers', { query: 'only_with_upcoming=yes&per_page=1' });
    expect(upcoming.body.organizers.map((o: any) => o.id)).toEqual([ids.jane]);
    expect(upcoming.body.total).toBe(2);
    expect(upcoming.body.next_rest_url).toBe(`${API_URL}/organizers/?per_page=1&status=publish&page=2`);
    expectInvalidParam(await client.get('/organizers', { query: 'only_with_upcoming=later' }), 'only_with_upcoming');
  });

  it('lets anonymous readers ask for published organizers only', async () => {
    expect((await client.get('/organizers', { query: 'status=publish' })).body.total).toBe(4);
    for (const query of ['status=pending', 'status=publish,pending', 'status=any', 'status[]=draft']) {
      expectInvalidParam(await client.get('/organizers', { query }), 'status');
    }
  });

  it('lists every status but trash to writers by default (status=any), and the statuses they ask for', async () => {
    const all = await client.get('/organizers', { headers: AS_ADMIN });
    expect(all.status, all.text).toBe(200);
    expect(all.body.organizers.map((o: any) => o.id)).toEqual([ids.idle, ids.draft, ids.jane, ids.arts, ids.acme]);
    expect(all.body.rest_url).toBe(`${API_URL}/organizers/?page=1&per_page=10&status=any`);
    expect(all.headers.get('x-tec-total')).toBe('5');
    expect((await client.get('/organizers', { query: 'status=any', headers: AS_ADMIN })).text).toBe(all.text);
    const pending = await client.get('/organizers', { query: 'status=pending', headers: AS_ADMIN });
    expect(pending.body.organizers.map((o: any) => o.id)).toEqual([ids.draft]);
    expect(pending.body.rest_url).toBe(`${API_URL}/organizers/?page=1&per_page=10&status=pending`);
    expect((await client.get('/organizers', { query: 'status=publish', headers: AS_ADMIN })).body.total).toBe(4);
  });

  it('answers the same body under the alias namespace, a language prefix and rest_route', async () => {
    expect((await expectSameEverywhere(client, '/organizers')).status).toBe(200);
    expect((await expectSameEverywhere(client, '/organizers', 'per_page=3&page=2')).status).toBe(200);
    expect((await expectSameEverywhere(client, '/organizers', 'page=9')).status).toBe(404);
    expect((await expectSameEverywhere(client, '/organizers', 'status=draft')).status).toBe(400);
  });
});

describe('POST /organizers', () => {
  it('creates an organizer (201) with every field', async () => {
    const reply = await write('POST', '/organizers', {
      organizer: 'Acme Create',
      description: '<p>We run things</p>',
      excerpt: 'Runs',
      phone: '+1 555 0200',
      website: 'https://example.com/org',
      email: 'acme@example.com',
      date: '2024-02-03 04:05:06',
      image: images.at('/logo.png'),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const organizer = reply.body;
    expectOrganizer(organizer);
    expect(Object.keys(organizer)).toEqual([
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'organizer',
      'description',
      'excerpt',
      'slug',
      'image',
      'phone',
      'website',
      'email',
      'global_id',
      'global_id_lineage',
    ]);
    expect(organizer).toMatchObject({
      author: await adminAuthor(server),
      status: 'publish',
      date: '2024-02-03 04:05:06',
      date_utc: '2024-02-03 04:05:06',
      organizer: 'Acme Create',
      description: '<p>We run things</p>',
      excerpt: '<p>Runs</p>',
      slug: 'acme-create',
      phone: '+1 555 0200',
      website: 'https://example.com/org',
      email: 'acme@example.com',
    });
    expect(organizer.image).toMatchObject({ url: images.at('/logo.png'), extension: 'png' });
  });

  it('drops every empty value, and reads form-encoded bodies', async () => {
    const bare = await newOrganizer({ phone: '', website: '', email: '', description: '' });
    expect(Object.keys(bare)).toEqual([
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'organizer',
      'slug',
      'global_id',
      'global_id_lineage',
    ]);
    const name = unique('Form Org');
    const form = await rest.post('/organizers', {
      form: { organizer: name, phone: '030 1234' },
      headers: WRITE_HEADERS,
    });
    expect(form.status).toBe(201);
    expect(form.body).toMatchObject({ organizer: name, phone: '030 1234' });
  });

  it('requires organizer (rest_missing_callback_param) and rejects an empty one', async () => {
    const missing = await write('POST', '/organizers', { email: 'x@example.com' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): organizer',
      data: { status: 400, params: ['organizer'] },
    });
    expectInvalidParam(await write('POST', '/organizers', { organizer: '' }), 'organizer');
    expectInvalidParam(await write('POST', '/organizers', { organizer: { name: 'x' } }), 'organizer');
  });

  it('names the REST parameter of every invalid value, including those GraphQL refuses', async () => {
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ website: 'not a url' }, ['website']],
      [{ author: 999999 }, ['author']],
      [{ author: 0 }, ['author']],
      [{ status: 'secret' }, ['status']],
      [{ image: 'nope' }, ['image']],
      [{ date: 'yesteryear' }, ['date']],
      [{ date_utc: [1] }, ['date_utc']],
      [{ slug: '' }, ['slug']],
      [{ phone: { a: 1 } }, ['phone']],
    ];
    for (const [fields, params] of cases)
      expectInvalidParam(await write('POST', '/organizers', { organizer: unique('Bad'), ...fields }), ...params);
  });

  it('answers an existing organizer with the same fields instead of creating a duplicate (201)', async () => {
    const name = unique('Dup Org');
    const fields = {
      organizer: name,
      description: 'Desc',
      phone: '123',
      email: 'dup@example.com',
      website: 'https://dup.example',
    };
    const first = await newOrganizer(fields);
    const again = await write('POST', '/organizers', fields);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first);
    expect((await write('POST', '/organizers', { organizer: name })).body.id).toBe(first.id);
    expect((await write('POST', '/organizers', { organizer: name, email: 'dup@example.com' })).body.id).toBe(first.id);
    for (const change of [
      { phone: '124' },
      { email: 'other@example.com' },
      { website: 'https://other.example' },
      { description: 'Other' },
      { excerpt: 'New' },
    ]) {
      const reply = await write('POST', '/organizers', { ...fields, ...change });
      expect(reply.status).toBe(201);
      expect(reply.body.id, JSON.stringify(change)).not.toBe(first.id);
    }
    const trashed = await newOrganizer({ email: 'trash@example.com' });
    await write('DELETE', `/organizers/${trashed.id}`);
    const fresh = await write('POST', '/organizers', { organizer: trashed.organizer, email: 'trash@example.com' });
    expect(fresh.body.id).not.toBe(trashed.id);
    expect(fresh.body.status).toBe('publish');
  });
});

describe('GET /organizers/{id} and /organizers/by-slug/{slug}', () => {
  it('reads an organizer with json_ld, in the sample key order', async () => {
    const created = await newOrganizer({
      phone: '+1 555 0200',
      website: 'https://example.com/org',
      email: 'acme@example.com',
      excerpt: 'Short',
    });
    const reply = await rest.get(`/organizers/${created.id}`);
    expect(reply.status).toBe(200);
    const organizer = reply.body;
    expectOrganizer(organizer, { single: true });
    const sample = sampleBody('17-organizer-single');
    expectSampleOrder(organizer, sample);
    expectSampleOrder(organizer.json_ld, sample.json_ld);
    expect(Object.keys(organizer.json_ld)).toEqual(Object.keys(sample.json_ld));
    expect(organizer.json_ld).toMatchObject({
      '@type': 'Person',
      name: created.organizer,
      description: '<p>Short</p>',
      url: 'https://example.com/org',
      telephone: '+1 555 0200',
      sameAs: 'https://example.com/org',
    });
    const { json_ld: _jsonLd, ...plain } = organizer;
    expect(plain).toEqual(created);
    expect((await rest.get(`/organizers/by-slug/${created.slug}`)).text).toBe(reply.text);
  });

  it('answers the same single read and error under every URL form', async () => {
    const created = await newOrganizer();
    expect((await expectSameEverywhere(rest, `/organizers/${created.id}`)).status).toBe(200);
    expect((await expectSameEverywhere(rest, `/organizers/by-slug/${created.slug}`)).status).toBe(200);
    expect((await expectSameEverywhere(rest, '/organizers/by-slug/nobody')).status).toBe(400);
  });

  it('answers an unknown ID or slug with 400 rest_invalid_param naming it', async () => {
    const unknown = await rest.get('/organizers/999999');
    expect(unknown.body).toEqual({ ...sampleBody('31-err-unknown-venue-id') });
    expectInvalidParam(await rest.get('/organizers/0'), 'id');
    expectInvalidParam(await rest.get('/organizers/by-slug/nobody'), 'slug');
    expectError(await rest.get('/organizers/acme'), 404, 'rest_no_route');
    expectError(await rest.get('/organizers/by-slug/'), 404, 'rest_no_route');
  });

  it('blanks the protected fields of a password-protected organizer in reads, keeping the key order', async () => {
    const name = unique('Secret Org');
    const { id } = await createOrganizer(server, {
      name,
      description: 'Hidden',
      excerpt: 'Psst',
      phone: '555',
      email: 'secret@example.com',
      website: 'https://secret.example',
      password: 'letmein',
    });
    const single = await rest.get(`/organizers/${id}`);
    expect(single.status).toBe(200);
    // Every protected key is there, blanked, whether the organizer has a value for it or not (a deliberate
    // deviation: TEC blanks only the keys present).
    expect(single.body).toMatchObject({
      id,
      organizer: name,
      description: '',
      excerpt: '',
      image: false,
      phone: '',
      email: '',
      website: '',
    });
    expect(single.body.json_ld).toEqual({ '@type': 'Person', name });
    expect(Object.keys(single.body)).toEqual(ORGANIZER_KEY_ORDER);
    // So a locked organizer's shape does not tell which fields it has: one with none has the same keys.
    const bare = await createOrganizer(server, { password: 'letmein' }, 'name');
    const bareSingle = await rest.get(`/organizers/${bare.id}`);
    expect(bareSingle.status).toBe(200);
    expect(bareSingle.body).toMatchObject({
      id: bare.id,
      organizer: bare.name,
      description: '',
      image: false,
      email: '',
    });
    expect(Object.keys(bareSingle.body)).toEqual(ORGANIZER_KEY_ORDER);
    const listed = await rest.get('/organizers', { query: `search=${encodeURIComponent(name)}` });
    const { json_ld: _jsonLd, ...withoutJsonLd } = single.body;
    expect(listed.body.organizers).toEqual([withoutJsonLd]);
    // The password unlocks it for anyone; the administrator, who may edit it, sees it whole without one.
    const whole = {
      id,
      organizer: name,
      description: '<p>Hidden</p>',
      excerpt: '<p>Psst</p>',
      phone: '555',
      email: 'secret@example.com',
      website: 'https://secret.example',
    };
    const unlocked = await rest.get(`/organizers/${id}`, { query: { password: 'letmein' } });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body).toMatchObject(whole);
    // Unlocked, empty values are dropped again: this organizer has no image.
    expect(Object.keys(unlocked.body)).toEqual(ORGANIZER_KEY_ORDER.filter((key) => key !== 'image'));
    expect((await rest.get(`/organizers/${id}`, { query: { password: 'nope' } })).text).toBe(single.text);
    const asAdmin = await rest.get(`/organizers/by-slug/${single.body.slug}`, { headers: AS_ADMIN });
    expect(asAdmin.text).toBe(unlocked.text);
    // A duplicate create answers the match as its creator may see it: whole, for the administrator.
    const again = await write('POST', '/organizers', { organizer: name });
    expect(again.status).toBe(201);
    const { json_ld: _unlockedJsonLd, ...unlockedWithoutJsonLd } = unlocked.body;
    expect(again.body).toEqual(unlockedWithoutJsonLd);
  });

  it('refuses an organizer that is not published with 403 organizer-not-accessible', async () => {
    for (const status of ['draft', 'pending', 'private']) {
      const hidden = await newOrganizer({ status });
      const reply = await rest.get(`/organizers/${hidden.id}`);
      expectError(reply, 403, 'organizer-not-accessible');
      expect(reply.body.message).toBe('The requested organizer is not accessible');
      expectError(await rest.get(`/organizers/by-slug/${hidden.slug}`), 403, 'organizer-not-accessible');
    }
  });
});

describe('POST/PUT/PATCH /organizers/{id} and /organizers/by-slug/{slug}', () => {
  it('updates with each editable method (200), keeping every field not sent', async () => {
    const created = await newOrganizer({ phone: '1', email: 'keep@example.com', website: 'https://keep.example' });
    const post = await write('POST', `/organizers/${created.id}`, { phone: '2' });
    expect(post.status).toBe(200);
    expectOrganizer(post.body);
    expect(post.body).toMatchObject({
      id: created.id,
      phone: '2',
      email: 'keep@example.com',
      website: 'https://keep.example',
    });
    const put = await write('PUT', `/organizers/${created.id}`, { organizer: 'Renamed Org', website: '' });
    expect(put.body).toMatchObject({ organizer: 'Renamed Org', slug: created.slug, phone: '2' });
    expect('website' in put.body).toBe(false);
    const patch = await write('PATCH', `/organizers/by-slug/${created.slug}`, { email: 'new@example.com' });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ id: created.id, email: 'new@example.com', organizer: 'Renamed Org' });
    const { json_ld: _jsonLd, ...stored } = (await rest.get(`/organizers/${created.id}`)).body;
    expect(stored).toEqual(patch.body);
  });

  it('answers an unknown ID or slug with 400 naming it, and invalid values naming them', async () => {
    for (const method of ['POST', 'PUT', 'PATCH'] as const) {
      expectInvalidParam(await write(method, '/organizers/999999', { phone: '1' }), 'id');
      expectInvalidParam(await write(method, '/organizers/by-slug/nobody', { phone: '1' }), 'slug');
    }
    const created = await newOrganizer();
    expectInvalidParam(await write('PATCH', `/organizers/${created.id}`, { organizer: '' }), 'organizer');
    expectInvalidParam(await write('PATCH', `/organizers/${created.id}`, { website: 'ftp:/broken' }), 'website');
    expectInvalidParam(await write('PATCH', `/organizers/${created.id}`, { status: 'gone' }), 'status');
    expect((await rest.get(`/organizers/${created.id}`)).body.organizer).toBe(created.organizer);
  });
});

describe('DELETE /organizers/{id} and /organizers/by-slug/{slug}', () => {
  it('moves to the trash (200, status trash), then 410 organizer-is-in-trash, and force deletes for good', async () => {
    const created = await newOrganizer({ phone: '999' });
    const trashed = await write('DELETE', `/organizers/${created.id}`);
    expect(trashed.status).toBe(200);
    expectOrganizer(trashed.body);
    expect(trashed.body).toMatchObject({ id: created.id, status: 'trash', phone: '999' });
    const again = await write('DELETE', `/organizers/by-slug/${created.slug}`);
    expectError(again, 410, 'organizer-is-in-trash');
    expect(again.body.message).toBe('The organizer is already trashed');
    expectError(await rest.get(`/organizers/${created.id}`), 403, 'organizer-not-accessible');
    const forced = await write('DELETE', `/organizers/${created.id}`, undefined, 'force=1');
    expect(forced.status).toBe(200);
    expectInvalidParam(await rest.get(`/organizers/${created.id}`), 'id');
  });

  it('answers an unknown ID or slug with 400 naming it, and a bad force value naming force', async () => {
    expectInvalidParam(await write('DELETE', '/organizers/999999'), 'id');
    expectInvalidParam(await write('DELETE', '/organizers/by-slug/nobody'), 'slug');
    const created = await newOrganizer();
    expectInvalidParam(await write('DELETE', `/organizers/${created.id}`, { force: 'maybe' }), 'force');
  });

  it('takes a trashed organizer off its events', async () => {
    const keep = await newOrganizer();
    const gone = await newOrganizer();
    const event = await createEvent(server, { organizers: [{ id: keep.id }, { id: gone.id }] });
    expect((await rest.get(`/events/${event.id}`)).body.organizer.map((o: any) => o.id)).toEqual([keep.id, gone.id]);
    await write('DELETE', `/organizers/${gone.id}`);
    expect((await rest.get(`/events/${event.id}`)).body.organizer.map((o: any) => o.id)).toEqual([keep.id]);
    expect(
      (await rest.get('/organizers', { query: `event=${event.id}` })).body.organizers.map((o: any) => o.id),
    ).toEqual([keep.id]);
  });
});
