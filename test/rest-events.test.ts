import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from './support/factories.js';
import {
  dayAt,
  EMBEDDED_TERM_KEYS,
  eventKeys,
  inOrder,
  ORGANIZER_KEY_ORDER,
  restClient,
  VENUE_KEY_ORDER,
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

// The events routes of the REST API as The Events Calendar answers them (docs/rest-compatibility.md), over HTTP
// against a real server and database. The decisions of docs/rest-compatibility.md are cited as "decision N".
// Writes are made as the test administrator (test/support/rest.ts); reads are anonymous unless a test says otherwise.
// The permission matrices (roles, 401/403) have their own files; here only what the events contract itself needs.

const SITE = 'http://calendar.test';
const API = `${SITE}/wp-json/calendar/events/v1`;
const SINGLE_ALLOW = 'GET, DELETE, POST, PUT, PATCH';

let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer({ SITE_URL: SITE });
  rest = restClient(server);
});
afterAll(() => server?.close());

type Json = Record<string, any>;

/** An event created over REST (201 checked), with a unique title and a start three days from now. */
async function newEvent(fields: Json = {}, client: RestClient = rest): Promise<Json> {
  const response = await client.post('/events', {
    json: { title: unique('Event'), start_date: dayAt(3), end_date: dayAt(3, '12:00:00'), ...fields },
  });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text}`);
  return response.body;
}

/** A category name unique to one test: events created with it can be listed alone with `categories=<slug>`. */
async function isolatedCategory(): Promise<{ name: string; slug: string; id: number }> {
  const name = unique('Scope');
  const event = await newEvent({ categories: [name], status: 'draft' });
  const category = event.categories[0];
  return { name, slug: category.slug, id: category.id };
}

function ids(response: RestResponse): number[] {
  expect(response.status, response.text).toBe(200);
  return response.body.events.map((event: Json) => event.id);
}

function expectError(response: RestResponse, status: number, code: string, param?: string) {
  expect(response.status, response.text).toBe(status);
  assertSchema('error', response.body);
  expect(response.body.code).toBe(code);
  expect(response.body.data.status).toBe(status);
  if (param !== undefined) {
    if (code === 'rest_missing_callback_param') expect(response.body.data.params).toContain(param);
    else expect(Object.keys(response.body.data.params)).toContain(param);
    expect(response.body.message).toContain(param);
  }
}

/** Schema, key order and nested key orders of one event. */
function expectEventShape(event: Json, single = false) {
  assertSchema('event', event);
  expect(Object.keys(event)).toEqual(eventKeys(single));
  const venues = Array.isArray(event.venue) ? event.venue : [event.venue];
  for (const venue of venues) {
    expect(inOrder(Object.keys(venue), VENUE_KEY_ORDER), Object.keys(venue).join()).toBe(true);
    expect('json_ld' in venue).toBe(single);
  }
  for (const organizer of event.organizer) {
    expect(inOrder(Object.keys(organizer), ORGANIZER_KEY_ORDER), Object.keys(organizer).join()).toBe(true);
    expect('json_ld' in organizer).toBe(single);
  }
  for (const term of [...event.categories, ...event.tags]) expect(Object.keys(term)).toEqual(EMBEDDED_TERM_KEYS);
}

function expectEnvelope(response: RestResponse) {
  expect(response.status, response.text).toBe(200);
  assertSchema('events-envelope', response.body);
  const keys = Object.keys(response.body);
  expect(
    inOrder(keys, ['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']),
    keys.join(),
  ).toBe(true);
  expect(response.headers.get('x-tec-total')).toBe(String(response.body.total));
  expect(response.headers.get('x-tec-totalpages')).toBe(String(response.body.total_pages));
  for (const event of response.body.events) expectEventShape(event);
}

/** The default window as rest_url shows it (decision 16), read before and after a request to survive midnight. */
function defaultWindow(): string[] {
  const now = DateTime.utc();
  return [
    `start_date=${now.toFormat('yyyy-MM-dd')} 00:00:00&end_date=${now.plus({ years: 2 }).toFormat('yyyy-MM-dd')} 23:59:59`,
  ];
}

describe('a site with its own currency (DEFAULT_CURRENCY_SYMBOL, DEFAULT_CURRENCY_POSITION)', () => {
  let euro: TestServer;
  let client: RestClient;
  beforeAll(async () => {
    euro = await startServer({ SITE_URL: SITE, DEFAULT_CURRENCY_SYMBOL: '€', DEFAULT_CURRENCY_POSITION: 'postfix' });
    client = restClient(euro);
  });
  afterAll(() => euro?.close());

  it('shows a plain amount with it, over REST and GraphQL, and an event’s own symbol as before', async () => {
    const plain = await newEvent({ cost: '6,50' }, client);
    expect(plain.cost).toBe('6,50€');
    expect((await newEvent({ cost: '5 - 8' }, client)).cost).toBe('5€ – 8€');
    expect((await newEvent({ cost: '$12' }, client)).cost).toBe('$12');
    const byDatabaseId = await euro.gqlOk(
      `query($id: Int!) { events(first: 1, filter: { include: [$id] }) { edges { node { formattedCost cost } } } }`,
      { id: plain.id },
    );
    expect((byDatabaseId as any).events.edges[0].node).toEqual({ formattedCost: '6,50€', cost: '6,50' });
  });
});

describe('GET /events on an empty database', () => {
  let empty: TestServer;
  let client: RestClient;
  beforeAll(async () => {
    empty = await startServer({ SITE_URL: SITE });
    client = restClient(empty);
  });
  afterAll(() => empty?.close());

  it('answers 200 with [], total 0, total_pages 0, headers 0 and no next/previous links', async () => {
    const before = defaultWindow();
    const response = await client.get('/events');
    const windows = [...before, ...defaultWindow()];
    expectEnvelope(response);
    expect(response.body.events).toEqual([]);
    expect(response.body.total).toBe(0);
    expect(response.body.total_pages).toBe(0);
    expect(Object.keys(response.body)).toEqual(['events', 'rest_url', 'total', 'total_pages']);
    expect(response.headers.get('x-tec-total')).toBe('0');
    expect(response.headers.get('x-tec-totalpages')).toBe('0');
    // Defaults: page 1, per_page 10 (decision 2), the whole-day window (decision 16), status=publish for anonymous.
    expect(windows.map((window) => `${API}/events/?page=1&per_page=10&${window}&status=publish`)).toContain(
      response.body.rest_url,
    );
  });

  it('sends the headers WordPress REST clients expect, X-TEC-* exposed to browsers (decision 5)', async () => {
    // A browser sends its page's origin; CORS headers answer only that (test/cors.test.ts).
    const response = await client.get('/events', { headers: { origin: 'https://app.example' } });
    expect(response.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect(response.headers.get('link')).toBe(`<${SITE}/wp-json/>; rel="https://api.w.org/"`);
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim());
    expect(exposed).toEqual(expect.arrayContaining(['X-TEC-Total', 'X-TEC-TotalPages', 'Link']));
    // No WordPress core pagination headers on TEC lists (§3.1).
    expect(response.headers.get('x-wp-total')).toBeNull();
  });

  it('answers page 2 of nothing with 404 event-archive-page-not-found', async () => {
    expectError(await client.get('/events', { query: 'page=2' }), 404, 'event-archive-page-not-found');
  });
});

describe('GET /events: default window, ordering and paging', () => {
  let archive: TestServer;
  let client: RestClient;
  let inside: number[];
  const outside: Record<string, number> = {};

  beforeAll(async () => {
    archive = await startServer({ SITE_URL: SITE });
    client = restClient(archive);
    const make = async (title: string, start: string, end: string, extra: Json = {}) =>
      (await newEvent({ title, start_date: start, end_date: end, ...extra }, client)).id as number;
    // Created out of start order, so the list order is the server's doing. Two share a start: ID breaks the tie.
    const later = [];
    for (let day = 10; day >= 1; day--)
      later.push({ day, id: await make(`Day ${day}`, dayAt(day), dayAt(day, '11:00:00')) });
    const twinA = await make('Twin A', dayAt(5, '10:00:00'), dayAt(5, '10:30:00'));
    const early = await make('Early today', dayAt(0, '00:00:00'), dayAt(0, '00:30:00'));
    const edge = await make(
      'Edge of window',
      dayAt(0, '10:00:00').replace(/^\d{4}/, (y) => String(Number(y) + 2)),
      dayAt(0, '11:00:00').replace(/^\d{4}/, (y) => String(Number(y) + 2)),
    );
    outside.past = await make('Yesterday', dayAt(-1), dayAt(-1, '11:00:00'));
    outside.running = await make('Running since yesterday', dayAt(-1, '22:00:00'), dayAt(1, '08:00:00'));
    outside.far = await make(
      'Too far',
      dayAt(2, '10:00:00').replace(/^\d{4}/, (y) => String(Number(y) + 2)),
      dayAt(2, '11:00:00').replace(/^\d{4}/, (y) => String(Number(y) + 2)),
    );
    outside.hidden = await make('Hidden', dayAt(2), dayAt(2, '11:00:00'), { hide_from_listings: true });
    outside.draft = await make('Draft', dayAt(2), dayAt(2, '11:00:00'), { status: 'draft' });
    const byDay = later.sort((a, b) => a.day - b.day).map((entry) => entry.id);
    // Day 5 at 10:00 was created before Twin A (same start), so it sorts first.
    inside = [early, ...byDay.slice(0, 5), twinA, ...byDay.slice(5), edge];
  });
  afterAll(() => archive?.close());

  it('lists published, listed events of today through two years from now, by start then ID, 10 a page', async () => {
    const response = await client.get('/events');
    expectEnvelope(response);
    expect(response.body.total).toBe(13);
    expect(response.body.total_pages).toBe(2);
    expect(ids(response)).toEqual(inside.slice(0, 10));
    expect(response.body.events.map((event: Json) => event.id)).not.toContain(outside.draft);
    const page2 = await client.get('/events', { query: 'page=2' });
    expect(ids(page2)).toEqual(inside.slice(10));
    for (const id of Object.values(outside)) expect([...ids(response), ...ids(page2)]).not.toContain(id);
  });

  it('links the next page (encoded, page last) and the previous page (no page param for page 1)', async () => {
    const first = await client.get('/events');
    const window = /start_date=([^&]+)&end_date=([^&]+)/.exec(first.body.rest_url)!;
    const encoded = `start_date=${window[1]!.replace(' ', '+').replace(/:/g, '%3A')}&end_date=${window[2]!.replace(' ', '+').replace(/:/g, '%3A')}`;
    expect(first.body.rest_url).toBe(
      `${API}/events/?page=1&per_page=10&start_date=${window[1]}&end_date=${window[2]}&status=publish`,
    );
    expect(first.body.next_rest_url).toBe(`${API}/events/?per_page=10&${encoded}&status=publish&page=2`);
    expect('previous_rest_url' in first.body).toBe(false);

    const second = await client.get('/events', { query: 'page=2' });
    expect(Object.keys(second.body)).toEqual(['events', 'rest_url', 'previous_rest_url', 'total', 'total_pages']);
    expect(second.body.previous_rest_url).toBe(`${API}/events/?per_page=10&${encoded}&status=publish`);

    const middle = await client.get('/events', { query: 'per_page=5&page=2' });
    expect(Object.keys(middle.body)).toEqual([
      'events',
      'rest_url',
      'next_rest_url',
      'previous_rest_url',
      'total',
      'total_pages',
    ]);
    expect(middle.body.next_rest_url).toBe(`${API}/events/?per_page=5&${encoded}&status=publish&page=3`);
    expect(middle.body.previous_rest_url).toBe(`${API}/events/?per_page=5&${encoded}&status=publish`);
    expect(ids(middle)).toEqual(inside.slice(5, 10));

    const third = await client.get('/events', { query: 'per_page=5&page=3' });
    expect(third.body.previous_rest_url).toBe(`${API}/events/?per_page=5&${encoded}&status=publish&page=2`);
    expect('next_rest_url' in third.body).toBe(false);
    expect(third.headers.get('x-tec-totalpages')).toBe('3');
  });

  it('answers a page past the last with 404 event-archive-page-not-found', async () => {
    expectError(await client.get('/events', { query: 'page=3' }), 404, 'event-archive-page-not-found');
    expectError(await client.get('/events', { query: 'per_page=5&page=4' }), 404, 'event-archive-page-not-found');
    expect((await client.get('/events', { query: 'per_page=5&page=3' })).status).toBe(200);
  });

  it('clamps per_page above 50 to 50 silently (decision 2)', async () => {
    const response = await client.get('/events', { query: 'per_page=1000' });
    expectEnvelope(response);
    expect(response.body.rest_url).toContain('?page=1&per_page=50&');
    expect(ids(response)).toEqual(inside);
    expect(response.body.total_pages).toBe(1);
    expect((await client.get('/events', { query: 'per_page=50' })).body.rest_url).toContain('per_page=50&');
    expect(ids(await client.get('/events', { query: 'per_page=1' }))).toEqual(inside.slice(0, 1));
  });

  it.each(['abc', '0', '-1', '1.5', ''])(
    'refuses per_page=%s with 400 rest_invalid_param naming per_page',
    async (value) => {
      const response = await client.get('/events', { query: `per_page=${value}` });
      expectError(response, 400, 'rest_invalid_param', 'per_page');
      expect(response.body).toEqual({
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): per_page',
        data: { status: 400, params: { per_page: 'Invalid parameter.' }, details: [] },
      });
    },
  );

  it.each(['0', '-1', 'abc'])('refuses page=%s with 400 rest_invalid_param naming page', async (value) => {
    expectError(await client.get('/events', { query: `page=${value}` }), 400, 'rest_invalid_param', 'page');
  });

  it('keeps ignoring the default window for include (decision 10) and for the relative bounds', async () => {
    expect(ids(await client.get('/events', { query: `include=${outside.past},${outside.far}` }))).toEqual([
      outside.past,
      outside.far,
    ]);
    const relative = await client.get('/events', { query: `starts_before=${dayAt(0).slice(0, 10)}` });
    // starts_before is rounded to the end of its day (§6.1): yesterday's, the running one and today's early event.
    expect(ids(relative)).toEqual([outside.past, outside.running, inside[0]]);
    expect(relative.body.rest_url).not.toContain('start_date=');
  });

  it('repeats the filters in rest_url and the page links as the original prints them', async () => {
    const listed = await client.get('/events', {
      query:
        'featured=1&ticketed=0&starts_after=2031-03-10&ends_before=2031-03-12 18:30&per_page=1&geoloc=yes&include[]=1&include[]=2',
    });
    expect(listed.status, listed.text).toBe(200);
    const url = listed.body.rest_url as string;
    expect(url).toContain('&featured=1&');
    expect(url).toContain('&geoloc=yes&');
    expect(url).toContain('&ticketed=0');
    expect(url).toContain('&include=1,2&');
    expect(url).toContain('&starts_after=2031-03-10 00:00:00&');
    expect(url).toContain('&ends_before=2031-03-12 18:30:00&');
    expect(url).not.toContain('true');
    // A relative date is repeated resolved, so the link keeps naming the same window later.
    const relative = await client.get('/events', { query: 'starts_after=tomorrow' });
    expect(/&starts_after=\d{4}-\d{2}-\d{2} 00:00:00(&|$)/.test(relative.body.rest_url)).toBe(true);
  });

  it('supports HEAD with the same status and headers and no body', async () => {
    const response = await client.head('/events');
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    expect(response.headers.get('x-tec-total')).toBe('13');
  });
});

describe('GET /events filters', () => {
  it('filters by start_date / end_date as whole days, or exactly with strict_dates', async () => {
    const scope = await isolatedCategory();
    const morning = await newEvent({
      categories: [scope.id],
      start_date: '2031-03-10 09:00:00',
      end_date: '2031-03-10 10:00:00',
    });
    const afternoon = await newEvent({
      categories: [scope.id],
      start_date: '2031-03-10 14:00:00',
      end_date: '2031-03-10 15:00:00',
    });
    const nextDay = await newEvent({
      categories: [scope.id],
      start_date: '2031-03-11 09:00:00',
      end_date: '2031-03-11 10:00:00',
    });
    const list = (query: string) => rest.get('/events', { query: `categories=${scope.slug}&${query}` });

    const fromNoon = await list('start_date=2031-03-10 12:00:00&end_date=2031-03-10 12:00:00');
    expect(ids(fromNoon)).toEqual([morning.id, afternoon.id]);
    expect(fromNoon.body.rest_url).toContain('&start_date=2031-03-10 00:00:00&end_date=2031-03-10 23:59:59&');

    const strict = await list('start_date=2031-03-10 12:00:00&end_date=2031-03-11 09:30:00&strict_dates=true');
    expect(ids(strict)).toEqual([afternoon.id]);
    expect(strict.body.rest_url).toContain('&start_date=2031-03-10 12:00:00&end_date=2031-03-11 09:30:00&');
    expect(ids(await list('start_date=2031-03-10 12:00:00&end_date=2031-03-11 10:00:00&strict_dates=1'))).toEqual([
      afternoon.id,
      nextDay.id,
    ]);
    expect(ids(await list('start_date=2031-03-10&end_date=2031-03-11&strict_dates=false'))).toEqual([
      morning.id,
      afternoon.id,
      nextDay.id,
    ]);
    expect(ids(await list('start_date=2031-03-11&end_date=2031-03-11'))).toEqual([nextDay.id]);
    // The default end (two years from now) still applies when only start_date is sent.
    expect(ids(await list('start_date=2031-03-11'))).toEqual([]);
    // Other date forms (decision 9): ISO 8601 and Unix timestamps.
    expect(ids(await list('start_date=2031-03-11T00:00:00Z&end_date=2031-03-12'))).toEqual([nextDay.id]);
    const timestamp = Math.floor(Date.parse('2031-03-10T13:00:00Z') / 1000);
    expect(ids(await list(`start_date=${timestamp}&end_date=2031-03-10&strict_dates=yes`))).toEqual([]);
    expect(ids(await list(`start_date=${timestamp}&end_date=2031-03-10 23:00:00&strict_dates=yes`))).toEqual([
      afternoon.id,
    ]);
  });

  it('filters by starts_before/after and ends_before/after, rounded to the end of the day unless strict', async () => {
    const scope = await isolatedCategory();
    const make = (day: string) =>
      newEvent({ categories: [scope.id], start_date: `2001-05-${day} 10:00:00`, end_date: `2001-05-${day} 11:00:00` });
    const [d1, d2, d3] = [await make('01'), await make('02'), await make('03')];
    const list = async (query: string) =>
      ids(await rest.get('/events', { query: `categories=${scope.slug}&${query}` }));
    // The defaulted window is dropped as soon as a relative bound is given (these are in 2001).
    expect(await list('starts_after=2001-05-01')).toEqual([d2.id, d3.id]);
    expect(await list('starts_before=2001-05-02')).toEqual([d1.id, d2.id]);
    expect(await list('ends_after=2001-05-02')).toEqual([d3.id]);
    expect(await list('ends_before=2001-05-01')).toEqual([d1.id]);
    expect(await list('starts_after=2001-05-01&ends_before=2001-05-02')).toEqual([d2.id]);
    expect(await list('starts_after=2001-05-02 09:00:00&strict_dates=true')).toEqual([d2.id, d3.id]);
    expect(await list('ends_before=2001-05-02 11:00:00&strict_dates=true')).toEqual([d1.id]);
    // An explicit start_date is kept beside a relative bound.
    expect(await list('start_date=2001-05-02&starts_before=2001-05-03')).toEqual([d2.id, d3.id]);
    const response = await rest.get('/events', { query: `categories=${scope.slug}&starts_after=2001-05-01` });
    expect(response.body.rest_url).toBe(
      `${API}/events/?page=1&per_page=10&categories=${scope.slug}&status=publish&starts_after=2001-05-01 00:00:00`,
    );
  });

  it.each(['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after'])(
    'refuses an unparsable %s with 400 naming it',
    async (name) => {
      expectError(await rest.get('/events', { query: `${name}=notadate` }), 400, 'rest_invalid_param', name);
    },
  );

  it('searches % and _ literally, not as wildcards', async () => {
    const word = unique('pct').replace(/-/g, '');
    const percent = await newEvent({ title: `${word} 100% fun` });
    const underscore = await newEvent({ title: `${word} snake_case` });
    await newEvent({ title: `${word} plain` });
    expect(ids(await rest.get('/events', { query: `search=${encodeURIComponent(`${word} 100%`)}` }))).toEqual([
      percent.id,
    ]);
    expect(
      ids(
        await rest.get('/events', {
          query: `search=${encodeURIComponent('%')}&include=${percent.id},${underscore.id}`,
        }),
      ),
    ).toEqual([percent.id]);
    expect(ids(await rest.get('/events', { query: `search=_&include=${percent.id},${underscore.id}` }))).toEqual([
      underscore.id,
    ]);
  });

  it('searches title, description and excerpt; an empty search is a 400', async () => {
    const word = unique('needle').replace(/-/g, '');
    const inTitle = await newEvent({ title: `The ${word} show` });
    const inDescription = await newEvent({ description: `<p>About ${word.toUpperCase()}</p>` });
    const inExcerpt = await newEvent({ excerpt: `short ${word}` });
    await newEvent({ title: 'Unrelated' });
    const response = await rest.get('/events', { query: { search: word } });
    expect(ids(response).sort()).toEqual([inTitle.id, inDescription.id, inExcerpt.id].sort());
    expect(response.body.rest_url).toContain(`&search=${word}&status=publish`);
    expectError(await rest.get('/events', { query: 'search=' }), 400, 'rest_invalid_param', 'search');
  });

  it('filters by categories and tags, by ID or slug, as CSV or a[] arrays; unknown ones are 400', async () => {
    const [catA, catB, tagA] = [unique('CatA'), unique('CatB'), unique('TagA')];
    const a = await newEvent({ categories: [catA], tags: [tagA] });
    const b = await newEvent({ categories: [catB] });
    await newEvent({});
    const [categoryA, categoryB, tag] = [a.categories[0], b.categories[0], a.tags[0]];
    const list = async (query: string) => ids(await rest.get('/events', { query })).sort();
    expect(await list(`categories=${categoryA.id}`)).toEqual([a.id]);
    expect(await list(`categories=${categoryA.slug}`)).toEqual([a.id]);
    expect(await list(`categories=${categoryA.id},${categoryB.slug}`)).toEqual([a.id, b.id].sort());
    expect(await list(`categories[]=${categoryA.slug}&categories[]=${categoryB.id}`)).toEqual([a.id, b.id].sort());
    expect(await list(`tags=${tag.id}`)).toEqual([a.id]);
    expect(await list(`tags[]=${tag.slug}`)).toEqual([a.id]);
    expect(await list(`categories=${categoryB.id}&tags=${tag.id}`)).toEqual([]);
    expectError(await rest.get('/events', { query: 'categories=999999' }), 400, 'rest_invalid_param', 'categories');
    expectError(
      await rest.get('/events', { query: `categories=${categoryA.id},no-such-category` }),
      400,
      'rest_invalid_param',
      'categories',
    );
    expectError(await rest.get('/events', { query: 'tags=no-such-tag' }), 400, 'rest_invalid_param', 'tags');
    // A category slug is not a tag.
    expectError(await rest.get('/events', { query: `tags=${categoryA.slug}` }), 400, 'rest_invalid_param', 'tags');
  });

  it('filters by venue and organizer IDs (CSV or a[]); unknown or non-numeric IDs are 400', async () => {
    const scope = await isolatedCategory();
    const a = await newEvent({
      categories: [scope.id],
      venue: { venue: unique('Hall') },
      organizer: { organizer: unique('Org') },
    });
    const b = await newEvent({
      categories: [scope.id],
      venue: { venue: unique('Hall') },
      organizer: [{ organizer: unique('Org') }, a.organizer[0].id],
    });
    await newEvent({ categories: [scope.id] });
    const list = async (query: string) =>
      ids(await rest.get('/events', { query: `categories=${scope.slug}&${query}` }));
    expect(await list(`venue=${a.venue.id}`)).toEqual([a.id]);
    expect(await list(`venue=${a.venue.id},${b.venue.id}`)).toEqual([a.id, b.id]);
    expect(await list(`venue[]=${b.venue.id}`)).toEqual([b.id]);
    expect(await list(`organizer=${a.organizer[0].id}`)).toEqual([a.id, b.id]);
    expect(await list(`organizer[]=${b.organizer[0].id}`)).toEqual([b.id]);
    const response = await rest.get('/events', {
      query: `categories=${scope.slug}&venue[]=${a.venue.id}&venue[]=${b.venue.id}&organizer=${a.organizer[0].id}`,
    });
    expect(response.body.rest_url).toMatch(
      new RegExp(`&status=publish&venue=${a.venue.id},${b.venue.id}&organizer=${a.organizer[0].id}$`),
    );
    for (const [name, value] of [
      ['venue', '999999'],
      ['venue', 'abc'],
      ['organizer', '999999'],
      ['organizer', '0'],
    ]) {
      expectError(await rest.get('/events', { query: `${name}=${value}` }), 400, 'rest_invalid_param', name);
    }
  });

  it('filters by featured and ticketed with WordPress booleans (true/false/1/0/yes/no)', async () => {
    const scope = await isolatedCategory();
    const featured = await newEvent({ categories: [scope.id], featured: true, ticketed: true });
    const plain = await newEvent({ categories: [scope.id] });
    const list = async (query: string) =>
      ids(await rest.get('/events', { query: `categories=${scope.slug}&${query}` }));
    expect(await list('')).toEqual([featured.id, plain.id]);
    for (const yes of ['true', '1', 'yes', 'TRUE']) expect(await list(`featured=${yes}`)).toEqual([featured.id]);
    for (const no of ['false', '0', 'no']) expect(await list(`featured=${no}`)).toEqual([plain.id]);
    expect(await list('ticketed=true')).toEqual([featured.id]);
    expect(await list('ticketed=0')).toEqual([plain.id]);
    expectError(await rest.get('/events', { query: 'featured=maybe' }), 400, 'rest_invalid_param', 'featured');
    expectError(await rest.get('/events', { query: 'ticketed=2' }), 400, 'rest_invalid_param', 'ticketed');
    const response = await rest.get('/events', { query: `categories=${scope.slug}&featured=yes&ticketed=no` });
    expect(response.body.rest_url).toContain('&featured=yes&status=publish&ticketed=no');
  });

  it('lets anonymous callers ask for status=publish only (§5)', async () => {
    const scope = await isolatedCategory();
    const published = await newEvent({ categories: [scope.id] });
    expect(ids(await rest.get('/events', { query: `categories=${scope.slug}&status=publish` }))).toEqual([
      published.id,
    ]);
    for (const status of ['draft', 'publish,draft', 'any', 'bogus']) {
      expectError(await rest.get('/events', { query: `status=${status}` }), 400, 'rest_invalid_param', 'status');
    }
    expectError(
      await rest.get('/events', { query: 'status[]=publish&status[]=pending' }),
      400,
      'rest_invalid_param',
      'status',
    );
  });

  it('filters by venue coordinates: geoloc, geoloc_lat + geoloc_lng within a radius (decision 6)', async () => {
    const scope = await isolatedCategory();
    const berlin = await newEvent({
      categories: [scope.id],
      venue: { venue: unique('Berlin hall'), geo_lat: 52.52, geo_lng: 13.405 },
    });
    const potsdam = await newEvent({
      categories: [scope.id],
      venue: { venue: unique('Potsdam hall'), geo_lat: '52.3906', geo_lng: '13.0645' },
    });
    const nowhere = await newEvent({ categories: [scope.id], venue: { venue: unique('No coordinates') } });
    const online = await newEvent({ categories: [scope.id] });
    expect(berlin.venue.geo_lat).toBe(52.52);
    expect(berlin.venue.geo_lng).toBe(13.405);
    const list = async (query: string) =>
      ids(await rest.get('/events', { query: `categories=${scope.slug}&${query}` }));
    expect(await list('geoloc=true')).toEqual([berlin.id, potsdam.id]);
    expect(await list('geoloc=0')).toEqual([nowhere.id, online.id]);
    expect(await list('geoloc_lat=52.52&geoloc_lng=13.40')).toEqual([berlin.id]);
    expect(await list('geoloc_lat=52.52&geoloc_lng=13.40&geoloc_radius=50')).toEqual([berlin.id, potsdam.id]);
    expectError(await rest.get('/events', { query: 'geoloc_lat=52.5' }), 400, 'rest_invalid_param', 'geoloc_lng');
    expectError(await rest.get('/events', { query: 'geoloc_lng=13.4' }), 400, 'rest_invalid_param', 'geoloc_lat');
    expectError(
      await rest.get('/events', { query: 'geoloc_lat=abc&geoloc_lng=13.4' }),
      400,
      'rest_invalid_param',
      'geoloc_lat',
    );
    expectError(
      await rest.get('/events', { query: 'geoloc_lat=91&geoloc_lng=13.4' }),
      400,
      'rest_invalid_param',
      'geoloc_lat',
    );
    expectError(await rest.get('/events', { query: 'geoloc=perhaps' }), 400, 'rest_invalid_param', 'geoloc');
  });

  it('restricts to include IDs whatever their dates (decision 10); bad IDs are 400', async () => {
    const old = await newEvent({ start_date: '1999-01-01 10:00:00', end_date: '1999-01-01 11:00:00' });
    const soon = await newEvent({});
    const response = await rest.get('/events', { query: `include=${soon.id},${old.id}` });
    expect(ids(response)).toEqual([old.id, soon.id]);
    expect(response.body.rest_url).toBe(
      `${API}/events/?page=1&per_page=10&status=publish&include=${soon.id},${old.id}`,
    );
    expect(ids(await rest.get('/events', { query: `include[]=${old.id}` }))).toEqual([old.id]);
    // include ignores even an explicit window, as documented.
    expect(ids(await rest.get('/events', { query: `include=${old.id}&start_date=2020-01-01` }))).toEqual([old.id]);
    for (const bad of ['abc', '0', '-3', '1,x'])
      expectError(await rest.get('/events', { query: `include=${bad}` }), 400, 'rest_invalid_param', 'include');
  });

  it('filters by post_parent, which must be an existing event', async () => {
    const parent = await newEvent({});
    const child = await newEvent({ post_parent: parent.id });
    await newEvent({});
    expect(ids(await rest.get('/events', { query: `post_parent=${parent.id}` }))).toEqual([child.id]);
    expectError(await rest.get('/events', { query: 'post_parent=999999' }), 400, 'rest_invalid_param', 'post_parent');
    expectError(await rest.get('/events', { query: 'post_parent=abc' }), 400, 'rest_invalid_param', 'post_parent');
  });

  it('names every invalid parameter at once', async () => {
    const response = await rest.get('/events', { query: 'per_page=0&page=x&featured=maybe' });
    expectError(response, 400, 'rest_invalid_param');
    expect(Object.keys(response.body.data.params).sort()).toEqual(['featured', 'page', 'per_page']);
  });
});

describe('POST /events (create)', () => {
  it('answers 201 with the full event, in the original key order, without json_ld (§4.1)', async () => {
    const response = await rest.post('/events', {
      json: {
        title: 'Created sample',
        description: '<p>Created via REST</p>',
        start_date: '2031-12-11 10:00:00',
        end_date: '2031-12-11 12:00:00',
        cost: '15',
        featured: true,
      },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect(response.headers.get('location')).toBeNull();
    const event = response.body;
    expectEventShape(event);
    // The creator (the administrator) is the author.
    const { viewer } = await server.gqlOk(`{ viewer { id: databaseId } }`, {}, ADMIN_AUTHORIZATION);
    expect(event).toMatchObject({
      author: String(viewer.id),
      status: 'publish',
      title: 'Created sample',
      description: '<p>Created via REST</p>',
      excerpt: '',
      slug: 'created-sample',
      url: `${SITE}/event/created-sample/`,
      rest_url: `${API}/events/${event.id}`,
      global_id: `calendar.test?id=${event.id}`,
      global_id_lineage: [`calendar.test?id=${event.id}`],
      image: false,
      all_day: false,
      start_date: '2031-12-11 10:00:00',
      start_date_details: { year: '2031', month: '12', day: '11', hour: '10', minutes: '00', seconds: '00' },
      end_date: '2031-12-11 12:00:00',
      utc_start_date: '2031-12-11 10:00:00',
      utc_end_date: '2031-12-11 12:00:00',
      timezone: 'UTC',
      timezone_abbr: 'UTC',
      cost_details: { values: ['15'] },
      // The website falls back to the permalink (§2.1); show_map and show_map_link default to true (decision 4).
      website: `${SITE}/event/created-sample/`,
      show_map: true,
      show_map_link: true,
      hide_from_listings: false,
      sticky: false,
      featured: true,
      categories: [],
      tags: [],
      venue: [],
      organizer: [],
      custom_fields: [],
      ticketed: false,
    });
    const now = DateTime.utc();
    expect(
      Math.abs(DateTime.fromFormat(event.date_utc, 'yyyy-MM-dd HH:mm:ss', { zone: 'utc' }).diff(now).as('seconds')),
    ).toBeLessThan(60);
  });

  it('lists the missing required parameters with rest_missing_callback_param, before validating the others', async () => {
    const all = await rest.post('/events', { json: {} });
    expectError(all, 400, 'rest_missing_callback_param');
    expect(all.body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): title, start_date, end_date',
      data: { status: 400, params: ['title', 'start_date', 'end_date'] },
    });
    const title = await rest.post('/events', {
      json: { start_date: dayAt(1), end_date: dayAt(1, '11:00:00'), featured: 'maybe' },
    });
    expect(title.body.data.params).toEqual(['title']);
    expect(title.body.message).toBe('Missing parameter(s): title');
    const dates = await rest.post('/events', { json: { title: 'No dates' } });
    expect(dates.body.data.params).toEqual(['start_date', 'end_date']);
  });

  it('refuses an empty title, unparsable dates and bad values with rest_invalid_param naming them', async () => {
    const base = { title: 'x', start_date: dayAt(1), end_date: dayAt(1, '11:00:00') };
    expectError(await rest.post('/events', { json: { ...base, title: '' } }), 400, 'rest_invalid_param', 'title');
    expectError(await rest.post('/events', { json: { ...base, title: '   ' } }), 400, 'rest_invalid_param', 'title');
    expectError(
      await rest.post('/events', { json: { ...base, start_date: 'notadate' } }),
      400,
      'rest_invalid_param',
      'start_date',
    );
    expectError(await rest.post('/events', { json: { ...base, end_date: '' } }), 400, 'rest_invalid_param', 'end_date');
    expectError(
      await rest.post('/events', { json: { ...base, website: 'not a url' } }),
      400,
      'rest_invalid_param',
      'website',
    );
    expectError(
      await rest.post('/events', { json: { ...base, all_day: 'perhaps' } }),
      400,
      'rest_invalid_param',
      'all_day',
    );
    expectError(
      await rest.post('/events', { json: { ...base, timezone: 'Mars/Olympus' } }),
      400,
      'rest_invalid_param',
      'timezone',
    );
    expectError(
      await rest.post('/events', { json: { ...base, status: 'bogus' } }),
      400,
      'rest_invalid_param',
      'status',
    );
    expectError(await rest.post('/events', { json: { ...base, author: 999999 } }), 400, 'rest_invalid_param', 'author');
    expectError(
      await rest.post('/events', { json: { ...base, post_parent: 999999 } }),
      400,
      'rest_invalid_param',
      'post_parent',
    );
  });

  it('reads dates in the event time zone and all-day events as whole days', async () => {
    const berlin = await newEvent({
      timezone: 'Europe/Berlin',
      start_date: '2031-01-15 10:00:00',
      end_date: '2031-01-15 12:00:00',
    });
    expect(berlin).toMatchObject({
      timezone: 'Europe/Berlin',
      timezone_abbr: 'CET',
      start_date: '2031-01-15 10:00:00',
      utc_start_date: '2031-01-15 09:00:00',
      utc_end_date: '2031-01-15 11:00:00',
    });
    const allDay = await newEvent({
      all_day: 'yes',
      start_date: '2031-02-01 10:00:00',
      end_date: '2031-02-02 12:00:00',
    });
    expect(allDay).toMatchObject({ all_day: true, start_date: '2031-02-01 00:00:00', end_date: '2031-02-02 23:59:59' });
    const relative = await newEvent({ start_date: 'tomorrow 9am', end_date: 'tomorrow 11am' });
    expect(relative.start_date).toBe(dayAt(1, '09:00:00'));
    expect(relative.end_date).toBe(dayAt(1, '11:00:00'));
  });

  it('accepts a venue as an ID, as {id} or as an object of fields that creates it', async () => {
    const created = await newEvent({
      venue: { venue: unique('Harbor Hall'), address: '12 Dock St', city: 'Portland', show_map: 'false' },
    });
    const venue = created.venue;
    expect(Array.isArray(venue)).toBe(false);
    expect(venue).toMatchObject({ address: '12 Dock St', city: 'Portland', show_map: false, show_map_link: true });
    expect(venue.url).toBe(`${SITE}/venue/${venue.slug}/`);
    expect((await newEvent({ venue: venue.id })).venue.id).toBe(venue.id);
    expect((await newEvent({ venue: String(venue.id) })).venue.id).toBe(venue.id);
    expect((await newEvent({ venue: { id: venue.id } })).venue.id).toBe(venue.id);
    // An object with an id links that venue; its other fields neither create nor rename one.
    const linked = await newEvent({ venue: { id: String(venue.id), venue: 'Not a new venue' } });
    expect(linked.venue).toMatchObject({ id: venue.id, venue: venue.venue });
    expect((await newEvent({ venue: '' })).venue).toEqual([]);
  });

  it('accepts organizers as one ID, a CSV, or a list mixing IDs, {id} and new organizer objects, in order', async () => {
    const first = (await newEvent({ organizer: { organizer: unique('Acme'), email: 'acme@example.com' } }))
      .organizer[0];
    expect(first.email).toBe('acme@example.com');
    const second = (await newEvent({ organizer: [{ organizer: unique('Arts') }] })).organizer[0];
    const name = unique('New org');
    const mixed = await newEvent({
      organizer: [second.id, { organizer: name, phone: '+1 555 0200' }, { id: first.id }],
    });
    expect(mixed.organizer.map((organizer: Json) => organizer.id)).toEqual([second.id, expect.any(Number), first.id]);
    expect(mixed.organizer[1]).toMatchObject({ organizer: name, phone: '+1 555 0200' });
    expect((await newEvent({ organizer: first.id })).organizer.map((o: Json) => o.id)).toEqual([first.id]);
    expect((await newEvent({ organizer: `${first.id},${second.id}` })).organizer.map((o: Json) => o.id)).toEqual([
      first.id,
      second.id,
    ]);
    expect((await newEvent({ organizer: [] })).organizer).toEqual([]);
  });

  it('accepts categories and tags by ID or name, creating the missing names', async () => {
    const [music, fresh, tagName] = [unique('Music'), unique('Fresh'), unique('outdoor')];
    const first = await newEvent({ categories: [music] });
    const musicId = first.categories[0].id;
    const second = await newEvent({ categories: [musicId, fresh], tags: `${tagName},${tagName.toUpperCase()}` });
    expect(second.categories.map((term: Json) => term.name).sort()).toEqual([music, fresh].sort());
    expect(second.categories.find((term: Json) => term.id === musicId)).toMatchObject({
      name: music,
      taxonomy: 'tribe_events_cat',
      count: 2,
      filter: 'raw',
      parent: 0,
      term_group: 0,
    });
    expect(second.tags).toHaveLength(1);
    expect(second.tags[0]).toMatchObject({
      name: tagName,
      taxonomy: 'post_tag',
      urls: { self: `${API}/tags/${second.tags[0].id}`, collection: `${API}/tags` },
    });
    // By slug too: the same term, not a new one.
    const third = await newEvent({ categories: first.categories[0].slug });
    expect(third.categories.map((term: Json) => term.id)).toEqual([musicId]);
  });

  it('refuses an unknown venue ID with 400 naming venue and writes nothing at all', async () => {
    const [title, category, tag, organizer] = [
      unique('Bad venue'),
      unique('NotCreated'),
      unique('nottag'),
      unique('NotOrg'),
    ];
    for (const venue of [999999, { id: 999999 }, 'abc', -2]) {
      const response = await rest.post('/events', {
        json: {
          title,
          start_date: dayAt(1),
          end_date: dayAt(1, '11:00:00'),
          venue,
          categories: [category],
          tags: [tag],
          organizer: { organizer },
        },
      });
      expectError(response, 400, 'rest_invalid_param', 'venue');
    }
    const data = await server.gqlOk(
      `query ($title: String!, $category: String!, $tag: String!, $organizer: String!) {
        events(filter: { search: $title, statuses: [PUBLISH, DRAFT, PENDING, PRIVATE, FUTURE, TRASH] }) { totalCount }
        eventCategories(search: $category, hideEmpty: false) { totalCount }
        eventTags(search: $tag, hideEmpty: false) { totalCount }
        organizers(search: $organizer, statuses: [PUBLISH, DRAFT, PENDING, PRIVATE, FUTURE, TRASH]) { totalCount }
      }`,
      { title, category, tag, organizer },
      ADMIN_AUTHORIZATION,
    );
    expect(data).toEqual({
      events: { totalCount: 0 },
      eventCategories: { totalCount: 0 },
      eventTags: { totalCount: 0 },
      organizers: { totalCount: 0 },
    });
  });

  it('refuses an unknown organizer ID, and a venue object without a name, with 400 naming the parameter', async () => {
    const base = { title: unique('Bad links'), start_date: dayAt(1), end_date: dayAt(1, '11:00:00') };
    expectError(
      await rest.post('/events', { json: { ...base, organizer: [999999] } }),
      400,
      'rest_invalid_param',
      'organizer',
    );
    expectError(
      await rest.post('/events', { json: { ...base, venue: { city: 'Nowhere' } } }),
      400,
      'rest_invalid_param',
      'venue',
    );
    expectError(
      await rest.post('/events', { json: { ...base, organizer: [{ email: 'x@example.com' }] } }),
      400,
      'rest_invalid_param',
      'organizer',
    );
  });

  it('accepts form-encoded bodies with PHP-style arrays and objects', async () => {
    const [category, venueName] = [unique('FormCat'), unique('Form hall')];
    const org = (await newEvent({ organizer: { organizer: unique('Form org') } })).organizer[0];
    const response = await rest.post('/events', {
      form: {
        title: 'Form & event',
        start_date: dayAt(2),
        end_date: dayAt(2, '11:00:00'),
        featured: 'yes',
        sticky: '1',
        show_map: 'no',
        categories: [category],
        venue: { venue: venueName, city: 'Berlin' },
        organizer: [String(org.id)],
        cost: '20$',
      },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({
      title: 'Form & event',
      featured: true,
      sticky: true,
      show_map: false,
      venue: { venue: venueName, city: 'Berlin' },
      organizer: [{ id: org.id }],
      cost: '20$',
      cost_details: { currency_symbol: '$', currency_position: 'postfix', values: ['20'] },
    });
    expect(response.body.categories.map((term: Json) => term.name)).toEqual([category]);
  });

  it('answers malformed JSON with 400 rest_invalid_json', async () => {
    const response = await rest.post('/events', { raw: '{"title": ', headers: { 'content-type': 'application/json' } });
    expectError(response, 400, 'rest_invalid_json');
    expect(response.body).toEqual({
      code: 'rest_invalid_json',
      message: 'Invalid JSON body passed.',
      data: { status: 400 },
    });
  });

  it('takes cost ranges and keeps the values sorted', async () => {
    const range = await newEvent({ cost: ['25', 10] });
    expect(range.cost_details.values).toEqual(['10', '25']);
    const text = await newEvent({ cost: '$10 - $25' });
    expect(text.cost).toBe('$10 – $25');
    expect(text.cost_details).toEqual({
      currency_symbol: '$',
      currency_code: '',
      currency_position: 'prefix',
      values: ['10', '25'],
    });
    expect((await newEvent({ cost: '0' })).cost).toBe('Free');
  });

  it('shows a plain amount with the site’s currency when the event names none, as TEC’s tribe_format_currency', async () => {
    const plain = await newEvent({ cost: '15' });
    expect([plain.cost, plain.cost_details.currency_symbol, plain.cost_details.currency_position]).toEqual([
      '$15',
      '',
      '',
    ]);
    expect((await newEvent({ cost: '10 - 25' })).cost).toBe('$10 – $25');
    expect((await newEvent({ cost: '0 - 25' })).cost).toBe('Free – $25');
    // Text that is not only amounts stays as entered; the event's own symbol and position win.
    expect((await newEvent({ cost: 'Donation' })).cost).toBe('Donation');
    expect((await newEvent({ cost: '10 at the door' })).cost).toBe('10 at the door');
    expect((await newEvent({ cost: '20€' })).cost).toBe('20€');
  });

  it('accepts an image URL and answers the image object (decision 8)', async () => {
    const event = await newEvent({ image: images.at('/poster.jpg') });
    expect(event.image).toMatchObject({ url: images.at('/poster.jpg'), id: expect.any(Number), extension: 'jpg' });
    expect((await newEvent({ image: event.image.id })).image.id).toBe(event.image.id);
    expectError(
      await rest.post('/events', { json: { title: 'x', start_date: dayAt(1), end_date: dayAt(1), image: 999999 } }),
      400,
      'rest_invalid_param',
      'image',
    );
  });

  it('refuses PUT and DELETE on the collection with rest_no_route', async () => {
    const put = await rest.put('/events', { json: {} });
    expectError(put, 404, 'rest_no_route');
    expect(put.body.message).toBe('No route was found matching the URL and request method.');
    // No method of the route matched, so WordPress sends no Allow header (sample 44).
    expect(put.headers.get('allow')).toBeNull();
    expectError(await rest.delete('/events'), 404, 'rest_no_route');
    expectError(await rest.patch('/events', { json: { title: 'x' } }), 404, 'rest_no_route');
  });
});

describe('GET /events/{id} and /events/by-slug/{slug}', () => {
  it('refuses a query or body value that contradicts the record the path names, and changes nothing', async () => {
    const created = await newEvent();
    const renamed = await rest.post(`/events/by-slug/${created.slug}`, {
      json: { slug: unique('other-slug'), title: 'Not applied' },
    });
    expectError(renamed, 400, 'rest_invalid_param', 'slug');
    const otherId = await rest.post(`/events/${created.id}`, { json: { id: created.id + 1000, title: 'Not applied' } });
    expectError(otherId, 400, 'rest_invalid_param', 'id');
    expectError(await rest.get(`/events/${created.id}?id=${created.id + 1}`), 400, 'rest_invalid_param', 'id');
    expect((await rest.get(`/events/${created.id}`)).body.title).toBe(created.title);
    const same = await rest.post(`/events/by-slug/${created.slug}`, { json: { slug: created.slug, title: 'Applied' } });
    expect(same.status).toBe(200);
    expect(same.body.title).toBe('Applied');
  });

  it('answers a published event with json_ld, the venue and organizers with theirs', async () => {
    const created = await newEvent({
      venue: { venue: unique('Hall'), city: 'Portland' },
      organizer: [{ organizer: unique('Acme') }],
      cost: '10',
    });
    const response = await rest.get(`/events/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('allow')).toBe(SINGLE_ALLOW);
    expectEventShape(response.body, true);
    expect(response.body.json_ld).toMatchObject({
      '@context': 'http://schema.org',
      '@type': 'Event',
      name: created.title,
      url: created.url,
      location: { '@type': 'Place' },
    });
    expect(response.body.venue.json_ld['@type']).toBe('Place');
    const { json_ld: _, ...rest1 } = response.body;
    const stripped = { ...rest1, venue: withoutJsonLd(rest1.venue), organizer: rest1.organizer.map(withoutJsonLd) };
    expect(stripped).toEqual({ ...created });
    const bySlug = await rest.get(`/events/by-slug/${created.slug}`);
    expect(bySlug.status).toBe(200);
    expect(bySlug.body).toEqual(response.body);
    expect(bySlug.headers.get('allow')).toBe(SINGLE_ALLOW);
  });

  it('answers an unknown ID with 404 rest-event-not-found (decision 3)', async () => {
    const response = await rest.get('/events/999999');
    expectError(response, 404, 'rest-event-not-found');
    expect(response.body.message).toBe('Event with ID 999999 does not exist.');
    expect(response.headers.get('allow')).toBe(SINGLE_ALLOW);
  });

  it('answers an unknown slug with 400 rest_invalid_param naming slug', async () => {
    const response = await rest.get('/events/by-slug/no-such-event');
    expectError(response, 400, 'rest_invalid_param', 'slug');
    expect(response.body).toEqual({
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): slug',
      data: { status: 400, params: { slug: 'Invalid parameter.' }, details: [] },
    });
  });

  it('answers GET /events/0 with 404, as any unknown ID', async () => {
    const response = await rest.get('/events/0');
    expectError(response, 404, 'rest-event-not-found');
    expect(response.body.message).toBe('Event with ID 0 does not exist.');
    expectError(await rest.get('/events/0.ics'), 404, 'rest-event-not-found');
    expectError(await rest.get('/events/-1'), 404, 'rest_no_route');
  });

  it('answers a draft by ID with 403 event-not-accessible, and by slug like an unknown slug', async () => {
    const draft = await newEvent({ status: 'draft' });
    const response = await rest.get(`/events/${draft.id}`);
    expectError(response, 403, 'event-not-accessible');
    expect(response.body.message).toBe('The requested event is not accessible');
    // By slug the answer must not tell a draft from a slug nobody uses.
    const bySlug = await rest.get(`/events/by-slug/${draft.slug}`);
    const unknown = await rest.get('/events/by-slug/no-such-event');
    expect(bySlug.status).toBe(400);
    expect(bySlug.body).toEqual(unknown.body);
    // A write is refused before the slug is looked at, as WordPress checks permissions first.
    expectError(
      await rest.post(`/events/by-slug/${draft.slug}`, { json: { title: 'x' }, headers: { authorization: '' } }),
      401,
      'rest_forbidden',
    );
    // Who may read it gets it.
    const asAdmin = await rest.get(`/events/by-slug/${draft.slug}`, {
      headers: { authorization: ADMIN_AUTHORIZATION },
    });
    expect(asAdmin.status, asAdmin.text).toBe(200);
  });

  it('shuts a password-protected event: 403 event-password-protected on single reads, blanked in lists (decision 3)', async () => {
    const scope = await isolatedCategory();
    const { result } = await server.gqlOk(
      `mutation ($input: EventInput!) { result: createEvent(input: $input) { id: databaseId slug } }`,
      {
        input: {
          title: 'Secret event',
          description: '<p>Members only details.</p>',
          excerpt: 'secret',
          password: 'letmein',
          cost: '$5',
          startDate: dayAt(4, '19:00:00'),
          endDate: dayAt(4, '21:00:00'),
          featured: true,
          website: 'https://example.com/secret',
          categories: [String(scope.id)],
          tags: [unique('secret')],
          venues: [{ new: { name: unique('Secret hall') } }],
          organizers: [{ new: { name: unique('Secret org') } }],
        },
      },
    );
    for (const route of [
      `/events/${result.id}`,
      `/events/by-slug/${result.slug}`,
      `/events/${result.id}?password=nope`,
    ]) {
      const response = await rest.get(route);
      expectError(response, 403, 'event-password-protected');
      expect(response.body.message).toBe('The requested event is password protected');
    }
    const list = await rest.get('/events', { query: `include=${result.id}` });
    expectEnvelope(list);
    const [event] = list.body.events;
    expect(event).toMatchObject({
      id: result.id,
      title: 'Secret event',
      slug: result.slug,
      status: 'publish',
      start_date: dayAt(4, '19:00:00'),
      description: '',
      excerpt: '',
      image: false,
      all_day: null,
      cost: '',
      website: '',
      show_map: null,
      show_map_link: null,
      hide_from_listings: null,
      sticky: null,
      featured: null,
      ticketed: null,
      categories: [],
      tags: [],
      venue: [],
      organizer: [],
      custom_fields: [],
      cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
    });
    // Blanked fields hide nothing the filters would reveal either: the category filter still finds it.
    expect(ids(await rest.get('/events', { query: `categories=${scope.slug}` }))).toEqual([result.id]);
  });

  it('unlocks a protected event with ?password=<the password>, and shows it whole to a user who may edit it (decision 3)', async () => {
    const scope = await isolatedCategory();
    const { result } = await server.gqlOk(
      `mutation ($input: EventInput!) { result: createEvent(input: $input) { id: databaseId slug } }`,
      {
        input: {
          title: unique('Unlockable'),
          description: '<p>Members only details.</p>',
          excerpt: 'secret',
          password: 'letmein',
          cost: '$5',
          startDate: dayAt(5, '19:00:00'),
          endDate: dayAt(5, '21:00:00'),
          featured: true,
          website: 'https://example.com/unlockable',
          categories: [String(scope.id)],
          organizers: [{ new: { name: unique('Members org') } }],
        },
      },
    );
    const whole = {
      description: '<p>Members only details.</p>',
      excerpt: '<p>secret</p>',
      cost: '$5',
      website: 'https://example.com/unlockable',
      featured: true,
    };
    const unlocked = await rest.get(`/events/${result.id}`, { query: { password: 'letmein' } });
    expect(unlocked.status, unlocked.text).toBe(200);
    expectEventShape(unlocked.body, true);
    expect(unlocked.body).toMatchObject({ id: result.id, ...whole, categories: [{ id: scope.id }] });
    expect(unlocked.body.organizer).toHaveLength(1);
    const bySlug = await rest.get(`/events/by-slug/${result.slug}`, { query: { password: 'letmein' } });
    expect(bySlug.status, bySlug.text).toBe(200);
    expect(bySlug.body).toEqual(unlocked.body);
    // A wrong password still shuts it; the administrator, who may edit it, needs none.
    expectError(
      await rest.get(`/events/by-slug/${result.slug}`, { query: { password: 'LETMEIN' } }),
      403,
      'event-password-protected',
    );
    const asAdmin = await rest.get(`/events/${result.id}`, { headers: { authorization: ADMIN_AUTHORIZATION } });
    expect(asAdmin.status, asAdmin.text).toBe(200);
    expect(asAdmin.body).toEqual(unlocked.body);
    // Lists unlock it with the password too.
    const list = await rest.get('/events', { query: { include: result.id, password: 'letmein' } });
    expectEnvelope(list);
    expect(list.body.events[0]).toMatchObject({ id: result.id, ...whole });
    expect(
      (await rest.get('/events', { query: { include: result.id, password: 'nope' } })).body.events[0],
    ).toMatchObject({ id: result.id, description: '', cost: '' });
  });

  it('does not route non-numeric IDs or an empty slug (404 rest_no_route)', async () => {
    expectError(await rest.get('/events/foo'), 404, 'rest_no_route');
    expectError(await rest.get('/events/12abc'), 404, 'rest_no_route');
    expectError(await rest.get('/events/by-slug/'), 404, 'rest_no_route');
    expectError(await rest.get('/events/1/extra'), 404, 'rest_no_route');
    expectError(await rest.post('/events/foo', { json: { title: 'x' } }), 404, 'rest_no_route');
    expectError(await rest.delete('/events/foo'), 404, 'rest_no_route');
  });

  it('answers OPTIONS with the allowed methods', async () => {
    const created = await newEvent({});
    expect((await rest.options('/events')).headers.get('allow')).toBe('GET, POST');
    expect((await rest.options(`/events/${created.id}`)).headers.get('allow')).toBe(SINGLE_ALLOW);
    expect((await rest.options(`/events/by-slug/${created.slug}`)).headers.get('allow')).toBe(SINGLE_ALLOW);
    expect((await rest.options(`/events/${created.id}`)).status).toBe(200);
  });
});

function withoutJsonLd(record: Json | Json[]): Json | Json[] {
  if (Array.isArray(record)) return record;
  const { json_ld: _, ...restOf } = record;
  return restOf;
}

describe('POST|PUT|PATCH /events/{id} (update)', () => {
  it('answers 200 with the event; fields not sent keep their stored values (decision 4)', async () => {
    const created = await newEvent({
      status: 'draft',
      all_day: true,
      start_date: '2031-06-01',
      end_date: '2031-06-02',
      featured: true,
      sticky: true,
      hide_from_listings: true,
      show_map: false,
      show_map_link: false,
      ticketed: true,
      website: 'https://example.com/e',
      cost: '$15',
      excerpt: 'Short',
      venue: { venue: unique('Kept hall') },
      organizer: [{ organizer: unique('Kept org') }],
      categories: [unique('KeptCat')],
      tags: [unique('kepttag')],
    });
    const response = await rest.post(`/events/${created.id}`, { json: { title: 'Renamed' } });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('allow')).toBe(SINGLE_ALLOW);
    expectEventShape(response.body);
    const { title, modified, modified_utc, ...unchanged } = response.body;
    const { title: _t, modified: _m, modified_utc: _mu, ...before } = created;
    expect(title).toBe('Renamed');
    expect(unchanged).toEqual(before);
    expect(response.body).toMatchObject({
      status: 'draft',
      all_day: true,
      start_date: '2031-06-01 00:00:00',
      end_date: '2031-06-02 23:59:59',
      featured: true,
      sticky: true,
      hide_from_listings: true,
      show_map: false,
      show_map_link: false,
      ticketed: true,
    });
  });

  it('changes only what is sent, through POST, PUT and PATCH, JSON or form', async () => {
    const created = await newEvent({
      featured: true,
      start_date: '2031-07-01 10:00:00',
      end_date: '2031-07-01 12:00:00',
    });
    const put = await rest.put(`/events/${created.id}`, {
      json: { featured: false, start_date: '2031-07-01 11:00:00', end_date: '2031-07-01 13:30:00' },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({
      featured: false,
      start_date: '2031-07-01 11:00:00',
      end_date: '2031-07-01 13:30:00',
      title: created.title,
    });
    const patch = await rest.patch(`/events/${created.id}`, { form: { sticky: 'true', all_day: '0' } });
    expect(patch.status, patch.text).toBe(200);
    expect(patch.body).toMatchObject({
      sticky: true,
      all_day: false,
      featured: false,
      start_date: '2031-07-01 11:00:00',
    });
    // Only the start sent: the end is kept.
    const start = await rest.post(`/events/${created.id}`, { json: { start_date: '2031-07-01 09:00:00' } });
    expect(start.body).toMatchObject({ start_date: '2031-07-01 09:00:00', end_date: '2031-07-01 13:30:00' });
    const status = await rest.post(`/events/${created.id}`, { json: { status: 'draft' } });
    expect(status.body.status).toBe('draft');
    expect((await rest.post(`/events/${created.id}`, { json: { description: 'x' } })).body.status).toBe('draft');
  });

  it('replaces or clears links and terms only when they are sent', async () => {
    const created = await newEvent({
      venue: { venue: unique('Hall') },
      organizer: [{ organizer: unique('Org') }],
      categories: [unique('Cat')],
      tags: [unique('tag')],
    });
    const kept = await rest.post(`/events/${created.id}`, { json: { title: 'Still linked' } });
    expect(kept.body.venue.id).toBe(created.venue.id);
    expect(kept.body.organizer).toEqual(created.organizer);
    const cleared = await rest.post(`/events/${created.id}`, {
      json: { venue: '', organizer: [], categories: '', tags: [] },
    });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).toMatchObject({ venue: [], organizer: [], categories: [], tags: [] });
  });

  it('answers an unknown ID with 404 rest-event-not-found, and bad values with 400 first', async () => {
    const response = await rest.post('/events/999999', { json: { title: 'x' } });
    expectError(response, 404, 'rest-event-not-found');
    expect(response.body.message).toBe('Event with ID 999999 does not exist.');
    expectError(await rest.put('/events/999999', { json: { title: 'x' } }), 404, 'rest-event-not-found');
    const created = await newEvent({});
    expectError(await rest.post(`/events/${created.id}`, { json: { title: '' } }), 400, 'rest_invalid_param', 'title');
    expectError(
      await rest.post(`/events/${created.id}`, { json: { venue: 999999 } }),
      400,
      'rest_invalid_param',
      'venue',
    );
    expectError(
      await rest.post(`/events/${created.id}`, { json: { end_date: 'never' } }),
      400,
      'rest_invalid_param',
      'end_date',
    );
    expectError(
      await rest.post(`/events/${created.id}`, { raw: '[', headers: { 'content-type': 'application/json' } }),
      400,
      'rest_invalid_json',
    );
    expect((await rest.get(`/events/${created.id}`)).body.title).toBe(created.title);
  });

  it('updates by slug; an unknown slug is 400 naming slug', async () => {
    const created = await newEvent({});
    const response = await rest.post(`/events/by-slug/${created.slug}`, { json: { title: 'Via slug' } });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ id: created.id, title: 'Via slug', slug: created.slug });
    expectError(
      await rest.patch('/events/by-slug/no-such-event', { json: { title: 'x' } }),
      400,
      'rest_invalid_param',
      'slug',
    );
  });

  it('honours X-HTTP-Method-Override and _method on POST', async () => {
    const created = await newEvent({});
    const patched = await rest.post(`/events/${created.id}`, {
      json: { title: 'Overridden' },
      headers: { 'X-HTTP-Method-Override': 'PATCH' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.title).toBe('Overridden');
    const deleted = await rest.post(`/events/${created.id}`, { query: '_method=DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.body.status).toBe('trash');
    const other = await newEvent({});
    const viaHeader = await rest.post(`/events/${other.id}`, { headers: { 'X-HTTP-Method-Override': 'DELETE' } });
    expect(viaHeader.body.status).toBe('trash');
    // Overriding a GET is not honoured (it would let a link delete).
    const kept = await newEvent({});
    expect((await rest.get(`/events/${kept.id}`, { query: '_method=DELETE' })).body.status).toBe('publish');
  });
});

describe('DELETE /events/{id}', () => {
  it('moves to the trash (200, status trash), then 410 event-is-in-trash, GET 403 event-no-longer-available', async () => {
    const created = await newEvent({ venue: { venue: unique('Hall') } });
    const response = await rest.delete(`/events/${created.id}`);
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('allow')).toBe(SINGLE_ALLOW);
    expectEventShape(response.body);
    expect(response.body.status).toBe('trash');
    expect(response.body.venue.id).toBe(created.venue.id);

    const again = await rest.delete(`/events/${created.id}`);
    expectError(again, 410, 'event-is-in-trash');
    expect(again.body).toEqual({
      code: 'event-is-in-trash',
      message: 'The event is already trashed',
      data: { status: 410 },
    });
    expect(again.headers.get('allow')).toBe(SINGLE_ALLOW);

    const read = await rest.get(`/events/${created.id}`);
    expectError(read, 403, 'event-no-longer-available');
    expect(read.body.message).toBe('This event is no longer available');
    expect(ids(await rest.get('/events', { query: `include=${created.id}` }))).toEqual([]);
  });

  it('deletes for good with force=true; the ID is then unknown', async () => {
    const created = await newEvent({});
    const response = await rest.delete(`/events/${created.id}`, { query: 'force=true' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.id).toBe(created.id);
    expectError(await rest.get(`/events/${created.id}`), 404, 'rest-event-not-found');
    expectError(await rest.delete(`/events/${created.id}`), 404, 'rest-event-not-found');
    const trashed = await newEvent({});
    await rest.delete(`/events/${trashed.id}`);
    expect((await rest.delete(`/events/${trashed.id}`, { query: 'force=1' })).status).toBe(200);
    expectError(await rest.get(`/events/${trashed.id}`), 404, 'rest-event-not-found');
    expectError(
      await rest.delete(`/events/${trashed.id}`, { query: 'force=maybe' }),
      400,
      'rest_invalid_param',
      'force',
    );
  });

  it('deletes by slug; an unknown slug is 400 naming slug; an unknown ID 404', async () => {
    const created = await newEvent({});
    const response = await rest.delete(`/events/by-slug/${created.slug}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ id: created.id, status: 'trash' });
    expectError(await rest.delete(`/events/by-slug/${created.slug}`), 410, 'event-is-in-trash');
    expectError(await rest.delete('/events/by-slug/no-such-event'), 400, 'rest_invalid_param', 'slug');
    expectError(await rest.delete('/events/999999'), 404, 'rest-event-not-found');
  });
});

describe('_fields and _envelope (§9)', () => {
  it('keeps only the named fields of a single event, in the record order', async () => {
    const created = await newEvent({});
    const response = await rest.get(`/events/${created.id}`, { query: '_fields=title,id' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: created.id, title: created.title });
    const nested = await rest.get(`/events/${created.id}`, {
      query: '_fields=id,start_date_details.year,cost_details',
    });
    expect(nested.body).toEqual({
      id: created.id,
      start_date_details: { year: created.start_date_details.year },
      cost_details: created.cost_details,
    });
    expect((await rest.get(`/events/${created.id}`, { query: '_fields[]=id&_fields[]=slug' })).body).toEqual({
      id: created.id,
      slug: created.slug,
    });
  });

  it('filters the list envelope as WordPress does: its own keys, and dotted names into the events', async () => {
    const created = await newEvent({});
    const top = await rest.get('/events', { query: `include=${created.id}&_fields=total,total_pages` });
    expect(top.body).toEqual({ total: 1, total_pages: 1 });
    expect(top.headers.get('x-tec-total')).toBe('1');
    // WordPress filters an object response by its own keys: `id` and `title` are not keys of the envelope.
    expect((await rest.get('/events', { query: `include=${created.id}&_fields=id,title` })).body).toEqual({});
    const nested = await rest.get('/events', { query: `include=${created.id}&_fields=events.id,events.title,total` });
    expect(nested.body).toEqual({ events: [{ id: created.id, title: created.title }], total: 1 });
  });

  it('leaves error bodies whole under _fields', async () => {
    const response = await rest.get('/events/999999', { query: '_fields=id' });
    expectError(response, 404, 'rest-event-not-found');
  });

  it('wraps the response in {body, status, headers} with HTTP 200 under _envelope', async () => {
    const created = await newEvent({});
    const single = await rest.get(`/events/${created.id}`, { query: '_envelope' });
    expect(single.status).toBe(200);
    expect(Object.keys(single.body)).toEqual(['body', 'status', 'headers']);
    expect(single.body.status).toBe(200);
    expect(single.body.body.id).toBe(created.id);
    expect(single.body.headers.Allow).toBe(SINGLE_ALLOW);

    const list = await rest.get('/events', { query: `include=${created.id}&_envelope=1` });
    expect(list.body.status).toBe(200);
    expect(list.body.headers).toMatchObject({ 'X-TEC-Total': '1', 'X-TEC-TotalPages': '1' });
    expect(list.body.body.total).toBe(1);

    const error = await rest.get('/events/999999', { query: '_envelope' });
    expect(error.status).toBe(200);
    expect(error.body.status).toBe(404);
    expect(error.body.body.code).toBe('rest-event-not-found');

    const created201 = await rest.post('/events', {
      query: '_envelope',
      json: { title: 'Enveloped', start_date: dayAt(1), end_date: dayAt(1) },
    });
    expect(created201.status).toBe(200);
    expect(created201.body.status).toBe(201);
    const fields = await rest.get(`/events/${created.id}`, { query: '_envelope&_fields=id' });
    expect(fields.body.body).toEqual({ id: created.id });
  });
});
