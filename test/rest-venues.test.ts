import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, createVenue, unique } from './support/factories.js';
import {
  adminAuthor,
  expectSampleOrder,
  inOrder,
  restClient,
  sampleBody,
  sampleHeaders,
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

// REST /venues as The Events Calendar answers them (docs/rest-compatibility.md), over HTTP against a real server and database.

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

async function newVenue(fields: Record<string, unknown> = {}) {
  const reply = await write('POST', '/venues', { venue: unique('Venue'), ...fields });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

function expectVenue(venue: any, options: { single?: boolean } = {}) {
  assertSchema('venue', venue);
  expect(inOrder(Object.keys(venue), VENUE_KEY_ORDER), Object.keys(venue).join(',')).toBe(true);
  expect('json_ld' in venue).toBe(options.single === true);
  expect(venue.global_id).toBe(`calendar.test?id=${venue.id}`);
  expect(venue.global_id_lineage).toEqual([venue.global_id]);
  expect(venue.url).toBe(`${SITE}/venue/${venue.slug}/`);
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

/** The same request by the alias namespace, a language prefix and the plain-permalink form answers the same body. */
async function expectSameEverywhere(route: string, query = '') {
  const canonical = await rest.get(route, { query });
  const forms = [
    { base: '/wp-json/tribe/events/v1' },
    { base: '/de/wp-json/calendar/events/v1' },
    { base: `/?rest_route=/calendar/events/v1` },
  ];
  for (const form of forms) {
    const other = await rest.get(route, { query, ...form });
    expect(other.status, form.base).toBe(canonical.status);
    expect(other.text, form.base).toBe(canonical.text);
  }
  return canonical;
}

describe('GET /venues', () => {
  // Its own server, so totals are exact.
  let list: TestServer;
  let client: RestClient;
  const ids: Record<string, number> = {};
  let pastEvent: number;
  let futureEvent: number;
  let draftEvent: number;

  beforeAll(async () => {
    list = await startServer({ SITE_URL: SITE });
    client = restClient(list);
    const empty = await client.get('/venues');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      venues: [],
      rest_url: `${API_URL}/venues/?page=1&per_page=10&status=publish`,
      total: 0,
      total_pages: 0,
    });
    expect(empty.headers.get('x-tec-total')).toBe('0');
    expect(empty.headers.get('x-tec-totalpages')).toBe('0');
    const create = async (key: string, fields: Record<string, unknown>) => {
      const reply = await client.post('/venues', { json: fields, headers: WRITE_HEADERS });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      ids[key] = reply.body.id;
    };
    await create('harbor', {
      venue: 'Harbor Hall',
      address: '12 Dock St',
      city: 'Portland',
      country: 'United States',
      state: 'ME',
      zip: '04101',
      phone: '+1 555 0100',
      website: 'https://example.com/venue',
      stateprovince: 'ME',
    });
    await create('loft', { venue: 'The Loft', address: '400 Main Ave', city: 'Austin', state: 'TX', zip: '78701' });
    await create('pavilion', {
      venue: 'Riverside Park Pavilion',
      address: '1 River Rd',
      city: 'Chicago',
      phone: '+1 555 0106',
    });
    await create('draft', { venue: 'Hidden Draft', status: 'draft', city: 'Portland' });
    await create('lonely', { venue: 'Lonely Barn', city: 'Nowhere' });
    const gqlEvent = (input: Record<string, unknown>) => createEvent(list, input);
    pastEvent = (
      await gqlEvent({ startDate: '2020-01-15 10:00:00', endDate: '2020-01-15 12:00:00', venues: [{ id: ids.harbor }] })
    ).id;
    futureEvent = (await gqlEvent({ venues: [{ id: ids.loft }] })).id;
    draftEvent = (await gqlEvent({ status: 'DRAFT', venues: [{ id: ids.pavilion }] })).id;
  });
  afterAll(() => list.close());

  it('lists published venues newest first in the original envelope, with X-TEC headers', async () => {
    const reply = await client.get('/venues');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(reply.headers.get('x-tec-total')).toBe('4');
    expect(reply.headers.get('x-tec-totalpages')).toBe('1');
    expect(reply.headers.get('access-control-expose-headers')).toContain('X-TEC-Total');
    expect(reply.headers.get('access-control-expose-headers')).toContain('X-TEC-TotalPages');
    expect(reply.headers.get('x-wp-total')).toBeNull();
    const sample = sampleBody('14-venues-list');
    expect(Object.keys(reply.body)).toEqual(Object.keys(sample));
    expect(Object.keys(reply.body)).toEqual(['venues', 'rest_url', 'total', 'total_pages']);
    expect(reply.body.venues.map((v: any) => v.id)).toEqual([ids.lonely, ids.pavilion, ids.loft, ids.harbor]);
    expect(reply.body.rest_url).toBe(`${API_URL}/venues/?page=1&per_page=10&status=publish`);
    expect(reply.body.total).toBe(4);
    expect(reply.body.total_pages).toBe(1);
    for (const venue of reply.body.venues) {
      expectVenue(venue);
      expectSampleOrder(venue, sample.venues[0]);
    }
    const harbor = reply.body.venues.find((v: any) => v.id === ids.harbor);
    // The sample's keys, `author` included: the administrator created it.
    expect(Object.keys(harbor)).toEqual(Object.keys(sample.venues[0]));
    expect(harbor).toMatchObject({
      author: await adminAuthor(list),
      status: 'publish',
      venue: 'Harbor Hall',
      slug: 'harbor-hall',
      address: '12 Dock St',
      city: 'Portland',
      country: 'United States',
      state: 'ME',
      zip: '04101',
      phone: '+1 555 0100',
      website: 'https://example.com/venue',
      stateprovince: 'ME',
      show_map: true,
      show_map_link: true,
    });
    expect(sampleHeaders('14-venues-list').headers['x-tec-total']).toBeDefined();
  });

  it('pages with next and previous links, and answers 404 past the last page', async () => {
    const first = await client.get('/venues', { query: 'per_page=2' });
    expect(Object.keys(first.body)).toEqual(['venues', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
    expect(first.body.venues.map((v: any) => v.id)).toEqual([ids.lonely, ids.pavilion]);
    expect(first.body.rest_url).toBe(`${API_URL}/venues/?page=1&per_page=2&status=publish`);
    expect(first.body.next_rest_url).toBe(`${API_URL}/venues/?per_page=2&status=publish&page=2`);
    expect(first.body.total_pages).toBe(2);
    expect(first.headers.get('x-tec-totalpages')).toBe('2');

    const second = await client.get('/venues', { query: 'per_page=2&page=2' });
    expect(Object.keys(second.body)).toEqual(['venues', 'rest_url', 'previous_rest_url', 'total', 'total_pages']);
    expect(second.body.venues.map((v: any) => v.id)).toEqual([ids.loft, ids.harbor]);
    expect(second.body.previous_rest_url).toBe(`${API_URL}/venues/?per_page=2&status=publish`);

    const middle = await client.get('/venues', { query: 'per_page=1&page=2' });
    expect(Object.keys(middle.body)).toEqual([
      'venues',
      'rest_url',
      'next_rest_url',
      'previous_rest_url',
      'total',
      'total_pages',
    ]);
    expect(middle.body.next_rest_url).toBe(`${API_URL}/venues/?per_page=1&status=publish&page=3`);

    const third = await client.get('/venues', { query: 'per_page=1&page=3' });
    expect(third.body.previous_rest_url).toBe(`${API_URL}/venues/?per_page=1&status=publish&page=2`);

    const beyond = await client.get('/venues', { query: 'per_page=2&page=3' });
    expectError(beyond, 404, 'venue-archive-page-not-found');
    expect(beyond.body.message).toBe('The requested venue archive page does not exist');
  });

  it('validates page and per_page, and clamps per_page to 50', async () => {
    for (const query of ['page=0', 'page=-1', 'page=abc', 'page=1.5'])
      expectInvalidParam(await client.get('/venues', { query }), 'page');
    for (const query of ['per_page=0', 'per_page=-3', 'per_page=abc'])
      expectInvalidParam(await client.get('/venues', { query }), 'per_page');
    const clamped = await client.get('/venues', { query: 'per_page=1000' });
    expect(clamped.status).toBe(200);
    expect(clamped.body.rest_url).toBe(`${API_URL}/venues/?page=1&per_page=50&status=publish`);
    expect(clamped.body.total).toBe(4);
    const boundary = await client.get('/venues', { query: 'per_page=50&page=1' });
    expect(boundary.body.venues).toHaveLength(4);
  });

  it('searches name, address, city and phone, leaving search out of rest_url', async () => {
    const byCity = await client.get('/venues', { query: 'search=portland' });
    expect(byCity.body.venues.map((v: any) => v.id)).toEqual([ids.harbor]); // the draft in Portland stays hidden
    expect(byCity.body.rest_url).toBe(`${API_URL}/venues/?page=1&per_page=10&status=publish`);
    expect((await client.get('/venues', { query: 'search=Main Ave' })).body.venues.map((v: any) => v.id)).toEqual([
      ids.loft,
    ]);
    expect((await client.get('/venues', { query: 'search=0106' })).body.venues.map((v: any) => v.id)).toEqual([
      ids.pavilion,
    ]);
    expect((await client.get('/venues', { query: 'search=Pavilion' })).body.total).toBe(1);
    const none = await client.get('/venues', { query: 'search=zzzz' });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ venues: [], total: 0, total_pages: 0 });
    expectInvalidParam(await client.get('/venues', { query: 'search=' }), 'search');
    expectInvalidParam(await client.get('/venues', { query: 'search=%20%20' }), 'search');
  });

  it('filters by event, which must be an existing event', async () => {
    const reply = await client.get('/venues', { query: `event=${futureEvent}` });
    expect(reply.body.venues.map((v: any) => v.id)).toEqual([ids.loft]);
    expect(reply.body.rest_url).toBe(`${API_URL}/venues/?page=1&per_page=10&event=${futureEvent}&status=publish`);
    expect((await client.get('/venues', { query: `event=${draftEvent}` })).body.venues.map((v: any) => v.id)).toEqual([
      ids.pavilion,
    ]);
    expectInvalidParam(await client.get('/venues', { query: 'event=999999' }), 'event');
    expectInvalidParam(await client.get('/venues', { query: 'event=abc' }), 'event');
    expectInvalidParam(await client.get('/venues', { query: 'event=0' }), 'event');
    expectInvalidParam(await client.get('/venues', { query: `event=${ids.harbor + 1000}` }), 'event');
  });

  it('filters by has_events (drafts do not count) and intersects filters', async () => {
    const withEvents = await client.get('/venues', { query: 'has_events=true' });
    expect(withEvents.body.venues.map((v: any) => v.id)).toEqual([ids.loft, ids.harbor]);
    expect(withEvents.body.rest_url).toBe(`${API_URL}/venues/?page=1&per_page=10&has_events=true&status=publish`);
    const without = await client.get('/venues', { query: 'has_events=0' });
    expect(without.body.venues.map((v: any) => v.id)).toEqual([ids.lonely, ids.pavilion]);
    const both = await client.get('/venues', { query: `has_events=false&event=${futureEvent}` });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ venues: [], total: 0, total_pages: 0 });
    expectInvalidParam(await client.get('/venues', { query: 'has_events=maybe' }), 'has_events');
  });

  it('filters by only_with_upcoming (default false), which stays out of rest_url', async () => {
    const upcoming = await client.get('/venues', { query: 'only_with_upcoming=true' });
    expect(upcoming.body.venues.map((v: any) => v.id)).toEqual([ids.loft]);
    expect(upcoming.body.rest_url).toBe(`${API_URL}/venues/?page=1&per_page=10&status=publish`);
    expect((await client.get('/venues', { query: 'only_with_upcoming=false' })).body.total).toBe(4);
    expectInvalidParam(await client.get('/venues', { query: 'only_with_upcoming=soon' }), 'only_with_upcoming');
    expect(pastEvent).toBeGreaterThan(0);
  });

  it('lets anonymous readers ask for published venues only', async () => {
    const publish = await client.get('/venues', { query: 'status=publish' });
    expect(publish.status).toBe(200);
    expect(publish.body.total).toBe(4);
    for (const query of [
      'status=draft',
      'status=publish,draft',
      'status=any',
      'status=bogus',
      'status[]=publish&status[]=pending',
    ]) {
      expectInvalidParam(await client.get('/venues', { query }), 'status');
    }
  });

  it('lists every status but trash to writers by default (status=any), and the statuses they ask for', async () => {
    const all = await client.get('/venues', { headers: AS_ADMIN });
    expect(all.status, all.text).toBe(200);
    expect(all.body.venues.map((v: any) => v.id)).toEqual([ids.lonely, ids.draft, ids.pavilion, ids.loft, ids.harbor]);
    expect(all.body.rest_url).toBe(`${API_URL}/venues/?page=1&per_page=10&status=any`);
    expect(all.headers.get('x-tec-total')).toBe('5');
    expect((await client.get('/venues', { query: 'status=any', headers: AS_ADMIN })).text).toBe(all.text);
    const drafts = await client.get('/venues', { query: 'status=draft', headers: AS_ADMIN });
    expect(drafts.body.venues.map((v: any) => v.id)).toEqual([ids.draft]);
    expect(drafts.body.rest_url).toBe(`${API_URL}/venues/?page=1&per_page=10&status=draft`);
    expect((await client.get('/venues', { query: 'status=publish,draft', headers: AS_ADMIN })).body.total).toBe(5);
    expectInvalidParam(await client.get('/venues', { query: 'status=bogus', headers: AS_ADMIN }), 'status');
  });

  it('answers the same body under the alias namespace, a language prefix and rest_route', async () => {
    for (const form of [
      '/wp-json/tribe/events/v1',
      '/de/wp-json/calendar/events/v1',
      '/?rest_route=/calendar/events/v1',
    ]) {
      const canonical = await client.get('/venues', { query: 'per_page=2&page=2' });
      const other = await client.get('/venues', { query: 'per_page=2&page=2', base: form });
      expect(other.status).toBe(200);
      expect(other.text).toBe(canonical.text);
      expect(other.headers.get('x-tec-total')).toBe('4');
      const error = await client.get('/venues', { query: 'status=draft', base: form });
      expect(error.text).toBe((await client.get('/venues', { query: 'status=draft' })).text);
    }
  });
});

describe('POST /venues', () => {
  it('creates a venue (201) with every field, coordinates and map flags from strings', async () => {
    const reply = await write('POST', '/venues', {
      venue: 'Harbor Hall Create',
      description: '<p>By the sea</p>',
      excerpt: 'Sea',
      address: '12 Dock St',
      city: 'Portland',
      country: 'United States',
      province: 'Maine',
      state: 'ME',
      zip: '04101',
      phone: '+1 555 0100',
      stateprovince: 'ME',
      website: 'https://example.com/venue',
      show_map: 'false',
      show_map_link: 'true',
      geo_lat: '43.6591',
      geo_lng: -70.2568,
      date: '2024-05-01 10:00:00',
      image: images.at('/hall.jpg'),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.headers.get('location')).toBeNull();
    const venue = reply.body;
    expectVenue(venue);
    expect(Object.keys(venue)).toEqual([
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'venue',
      'description',
      'excerpt',
      'slug',
      'image',
      'address',
      'city',
      'country',
      'province',
      'state',
      'zip',
      'phone',
      'website',
      'stateprovince',
      'geo_lat',
      'geo_lng',
      'show_map',
      'show_map_link',
      'global_id',
      'global_id_lineage',
    ]);
    expect(venue).toMatchObject({
      author: await adminAuthor(server),
      status: 'publish',
      date: '2024-05-01 10:00:00',
      date_utc: '2024-05-01 10:00:00',
      venue: 'Harbor Hall Create',
      description: '<p>By the sea</p>',
      excerpt: '<p>Sea</p>',
      slug: 'harbor-hall-create',
      province: 'Maine',
      geo_lat: 43.6591,
      geo_lng: -70.2568,
      show_map: false,
      show_map_link: true,
    });
    expect(venue.image).toMatchObject({ url: images.at('/hall.jpg'), extension: 'jpg' });
    const read = await rest.get(`/venues/${venue.id}`);
    expect(read.body.show_map).toBe(false);
  });

  it('accepts JSON booleans and form-encoded bodies, and defaults the map flags to true', async () => {
    const json = await newVenue({ show_map: false, show_map_link: false });
    expect([json.show_map, json.show_map_link]).toEqual([false, false]);
    const defaults = await newVenue();
    expect([defaults.show_map, defaults.show_map_link]).toEqual([true, true]);
    expect(Object.keys(defaults)).toEqual([
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'venue',
      'slug',
      'show_map',
      'show_map_link',
      'global_id',
      'global_id_lineage',
    ]);
    const name = unique('Form Venue');
    const form = await rest.post('/venues', {
      form: { venue: name, city: 'Berlin', show_map: '0', show_map_link: 'yes' },
      headers: WRITE_HEADERS,
    });
    expect(form.status).toBe(201);
    expect(form.body).toMatchObject({ venue: name, city: 'Berlin', show_map: false, show_map_link: true });
  });

  it('requires venue (rest_missing_callback_param) and rejects an empty one', async () => {
    const missing = await write('POST', '/venues', { city: 'Berlin' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): venue',
      data: { status: 400, params: ['venue'] },
    });
    const none = await write('POST', '/venues');
    expect(none.body.code).toBe('rest_missing_callback_param');
    expectInvalidParam(await write('POST', '/venues', { venue: '' }), 'venue');
    expectInvalidParam(await write('POST', '/venues', { venue: '   ' }), 'venue');
    expectInvalidParam(await write('POST', '/venues', { venue: ['a'] }), 'venue');
  });

  it('names the REST parameter of every invalid value, including those GraphQL refuses', async () => {
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ website: 'not a url' }, ['website']],
      [{ geo_lat: 91, geo_lng: 0 }, ['geo_lat']],
      [{ geo_lat: 0, geo_lng: 181 }, ['geo_lng']],
      [{ geo_lat: 'north', geo_lng: 0 }, ['geo_lat']],
      [{ geo_lat: 10 }, ['geo_lat']],
      [{ author: 999999 }, ['author']],
      [{ author: 'me' }, ['author']],
      [{ show_map: 'maybe' }, ['show_map']],
      [{ show_map_link: 2 }, ['show_map_link']],
      [{ status: 'bogus' }, ['status']],
      [{ image: 'not an image' }, ['image']],
      [{ image: '999999' }, ['image']],
      [{ date: 'notadate' }, ['date']],
      [{ date_utc: 'never' }, ['date_utc']],
      [{ slug: '' }, ['slug']],
      [{ website: 'ftp://example.com', show_map: 'maybe' }, ['show_map']],
    ];
    for (const [fields, params] of cases) {
      const reply = await write('POST', '/venues', { venue: unique('Bad'), ...fields });
      expectInvalidParam(reply, ...params);
    }
    const both = await write('POST', '/venues', { venue: unique('Bad'), website: 'nope', author: 999999 });
    expectInvalidParam(both, 'website', 'author');
    expect(both.body.data.details.website.code).toBe('rest_invalid_param');
  });

  it('answers an existing venue with the same fields instead of creating a duplicate (201)', async () => {
    const name = unique('Dup Hall');
    const fields = {
      venue: name,
      description: 'D',
      address: '5 Pier Road',
      city: 'Kiel',
      zip: '24103',
      phone: '0431 1',
    };
    const first = await newVenue(fields);
    const again = await write('POST', '/venues', fields);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first);
    // Only the fields given are compared; an address matches when it holds every word of the one given.
    expect((await write('POST', '/venues', { venue: name })).body.id).toBe(first.id);
    expect((await write('POST', '/venues', { venue: name, address: 'pier road' })).body.id).toBe(first.id);
    expect((await write('POST', '/venues', { venue: ` ${name} `, city: 'Kiel' })).body.id).toBe(first.id);
    // Any difference in a compared field creates a new venue.
    const otherCity = await write('POST', '/venues', { ...fields, city: 'Hamburg' });
    expect(otherCity.status).toBe(201);
    expect(otherCity.body.id).not.toBe(first.id);
    expect(otherCity.body.slug).toBe(`${first.slug}-2`);
    const otherAddress = await write('POST', '/venues', { ...fields, address: '7 Pier Road' });
    expect(otherAddress.body.id).not.toBe(first.id);
    const otherName = await write('POST', '/venues', { ...fields, venue: `${name} 2` });
    expect(otherName.body.id).not.toBe(first.id);
    // Fields outside the comparison do not matter; a trashed venue is never answered.
    expect(
      (await write('POST', '/venues', { ...fields, country: 'Germany', website: 'https://kiel.example' })).body.id,
    ).toBe(first.id);
    const lone = await newVenue({ city: 'Trash Town' });
    expect((await write('DELETE', `/venues/${lone.id}`)).status).toBe(200);
    const fresh = await write('POST', '/venues', { venue: lone.venue, city: 'Trash Town' });
    expect(fresh.status).toBe(201);
    expect(fresh.body.id).not.toBe(lone.id);
  });

  it('still validates a duplicate before answering it', async () => {
    const first = await newVenue({ city: 'Valid' });
    expectInvalidParam(
      await write('POST', '/venues', { venue: first.venue, city: 'Valid', website: 'nope' }),
      'website',
    );
  });

  it('is not a route for PUT, PATCH or DELETE on the collection', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      expectError(await write(method, '/venues', { venue: 'x' }), 404, 'rest_no_route');
    }
  });
});

describe('GET /venues/{id} and /venues/by-slug/{slug}', () => {
  it('reads a venue with json_ld, in the sample key order', async () => {
    const created = await newVenue({
      address: '12 Dock St',
      city: 'Portland',
      country: 'United States',
      state: 'ME',
      zip: '04101',
      phone: '+1 555 0100',
      website: 'https://example.com/venue',
      stateprovince: 'ME',
      geo_lat: 43.6,
      geo_lng: -70.2,
    });
    const reply = await rest.get(`/venues/${created.id}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-tec-total')).toBeNull();
    const venue = reply.body;
    expectVenue(venue, { single: true });
    const sample = sampleBody('15-venue-single');
    expectSampleOrder(venue, sample);
    expectSampleOrder(venue.json_ld, sample.json_ld);
    expectSampleOrder(venue.json_ld.address, sample.json_ld.address);
    expect(venue.json_ld).toMatchObject({
      '@type': 'Place',
      name: created.venue,
      telephone: '+1 555 0100',
      sameAs: 'https://example.com/venue',
      address: {
        '@type': 'PostalAddress',
        streetAddress: '12 Dock St',
        addressLocality: 'Portland',
        addressRegion: 'ME',
        postalCode: '04101',
        addressCountry: 'United States',
      },
    });
    expect([venue.geo_lat, venue.geo_lng]).toEqual([43.6, -70.2]);
    const { json_ld: _jsonLd, ...rest_ } = venue;
    expect(rest_).toEqual(created);

    const bySlug = await rest.get(`/venues/by-slug/${created.slug}`);
    expect(bySlug.status).toBe(200);
    expect(bySlug.text).toBe(reply.text);
  });

  it('answers the same single read and error under every URL form', async () => {
    const created = await newVenue();
    expect((await expectSameEverywhere(`/venues/${created.id}`)).status).toBe(200);
    expect((await expectSameEverywhere(`/venues/by-slug/${created.slug}`)).status).toBe(200);
    expect((await expectSameEverywhere('/venues/999999')).status).toBe(400);
  });

  it('answers an unknown ID with 400 rest_invalid_param naming id (sample 31), and an unknown slug naming slug', async () => {
    const unknown = await rest.get('/venues/999999');
    expect(unknown.status).toBe(sampleHeaders('31-err-unknown-venue-id').status);
    expect(unknown.body).toEqual(sampleBody('31-err-unknown-venue-id'));
    expectInvalidParam(await rest.get('/venues/0'), 'id');
    expectInvalidParam(await rest.get('/venues/by-slug/no-such-venue'), 'slug');
    expectError(await rest.get('/venues/foo'), 404, 'rest_no_route');
    expectError(await rest.get('/venues/by-slug/'), 404, 'rest_no_route');
    expectError(await rest.get('/venues/12/extra'), 404, 'rest_no_route');
  });

  it('blanks the protected fields of a password-protected venue in reads, keeping the key order', async () => {
    const name = unique('Secret Hall');
    const { id } = await createVenue(server, {
      name,
      description: 'Hidden',
      address: '1 Secret St',
      city: 'Hush',
      state: 'CA',
      zip: '90000',
      phone: '555',
      website: 'https://secret.example',
      latitude: 1.5,
      longitude: 2.5,
      password: 'letmein',
    });
    const single = await rest.get(`/venues/${id}`);
    expect(single.status).toBe(200);
    // Every protected key is there, blanked, whether the venue has a value for it or not (a deliberate deviation:
    // TEC blanks only the keys present); `state` is not protected.
    expect(single.body).toMatchObject({
      id,
      venue: name,
      status: 'publish',
      description: '',
      excerpt: '',
      image: false,
      address: '',
      city: '',
      country: '',
      province: '',
      state: 'CA',
      zip: '',
      phone: '',
      website: '',
      stateprovince: '',
      geo_lat: 0,
      geo_lng: 0,
      show_map: null,
      show_map_link: null,
    });
    expect(single.body.json_ld).toEqual({ '@type': 'Place', name });
    expect(Object.keys(single.body)).toEqual(VENUE_KEY_ORDER);
    // So a locked venue's shape does not tell which fields it has: one with none has the same keys (no `state`).
    const bare = await createVenue(server, { password: 'letmein' }, 'name');
    const bareSingle = await rest.get(`/venues/${bare.id}`);
    expect(bareSingle.status).toBe(200);
    expect(bareSingle.body).toMatchObject({
      id: bare.id,
      venue: bare.name,
      description: '',
      image: false,
      address: '',
      geo_lat: 0,
      geo_lng: 0,
    });
    expect(Object.keys(bareSingle.body)).toEqual(VENUE_KEY_ORDER.filter((key) => key !== 'state'));
    const listed = await rest.get('/venues', { query: `search=${encodeURIComponent(name)}` });
    const { json_ld: _jsonLd, ...withoutJsonLd } = single.body;
    expect(listed.body.venues).toEqual([withoutJsonLd]);
    // The password unlocks it for anyone; the administrator, who may edit it, sees it whole without one.
    const unlocked = await rest.get(`/venues/${id}`, { query: { password: 'letmein' } });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body).toMatchObject({
      id,
      venue: name,
      description: '<p>Hidden</p>',
      address: '1 Secret St',
      city: 'Hush',
      state: 'CA',
      zip: '90000',
      phone: '555',
      website: 'https://secret.example',
      geo_lat: 1.5,
      geo_lng: 2.5,
      show_map: true,
      show_map_link: true,
    });
    expect(inOrder(Object.keys(unlocked.body), VENUE_KEY_ORDER)).toBe(true);
    expect((await rest.get(`/venues/${id}`, { query: { password: 'nope' } })).text).toBe(single.text);
    const asAdmin = await rest.get(`/venues/by-slug/${single.body.slug}`, { headers: AS_ADMIN });
    expect(asAdmin.text).toBe(unlocked.text);
    // Asking to create it again answers the existing venue as its creator may see it: whole, for the administrator.
    const again = await write('POST', '/venues', { venue: name });
    expect(again.status).toBe(201);
    const { json_ld: _unlockedJsonLd, ...unlockedWithoutJsonLd } = unlocked.body;
    expect(again.body).toEqual(unlockedWithoutJsonLd);
  });

  it('refuses a venue that is not published with 403 venue-not-accessible', async () => {
    const draft = await newVenue({ status: 'draft' });
    expect(draft.status).toBe('draft');
    const reply = await rest.get(`/venues/${draft.id}`);
    expectError(reply, 403, 'venue-not-accessible');
    expect(reply.body.message).toBe('The requested venue is not accessible');
    expectError(await rest.get(`/venues/by-slug/${draft.slug}`), 403, 'venue-not-accessible');
  });
});

describe('POST/PUT/PATCH /venues/{id} and /venues/by-slug/{slug}', () => {
  it('updates with each editable method (200), keeping every field not sent', async () => {
    const created = await newVenue({
      address: '1 Old Rd',
      city: 'Oldtown',
      phone: '123',
      geo_lat: 1,
      geo_lng: 2,
      show_map: false,
    });
    const post = await write('POST', `/venues/${created.id}`, { city: 'Newtown' });
    expect(post.status).toBe(200);
    expectVenue(post.body);
    expect(post.body).toMatchObject({
      id: created.id,
      address: '1 Old Rd',
      city: 'Newtown',
      phone: '123',
      geo_lat: 1,
      geo_lng: 2,
      show_map: false,
    });
    const put = await write('PUT', `/venues/${created.id}`, { show_map: 'true', show_map_link: false });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ city: 'Newtown', show_map: true, show_map_link: false });
    const patch = await write('PATCH', `/venues/${created.id}`, {
      venue: 'Renamed Hall',
      geo_lat: -33.9,
      geo_lng: 151.2,
      phone: '',
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ venue: 'Renamed Hall', slug: created.slug, geo_lat: -33.9, geo_lng: 151.2 });
    expect('phone' in patch.body).toBe(false);
    expect('json_ld' in patch.body).toBe(false);
    const read = await rest.get(`/venues/${created.id}`);
    const { json_ld: _jsonLd, ...stored } = read.body;
    expect(stored).toEqual(patch.body);
  });

  it('updates by slug, where the path names the venue', async () => {
    const created = await newVenue();
    // A different slug in the body would be a rename through the address itself: refused, naming it, nothing changed.
    expectInvalidParam(
      await write('PATCH', `/venues/by-slug/${created.slug}`, { city: 'Nowhere', slug: 'other-slug' }),
      'slug',
    );
    const reply = await write('PATCH', `/venues/by-slug/${created.slug}`, { city: 'Slugville' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: created.id, city: 'Slugville', slug: created.slug });
    const renamed = await write('PATCH', `/venues/${created.id}`, { slug: unique('new-slug') });
    expect(renamed.body.slug).toMatch(/^new-slug-/);
  });

  it('answers an unknown ID or slug with 400 naming it, and invalid values naming them', async () => {
    for (const method of ['POST', 'PUT', 'PATCH'] as const) {
      expectInvalidParam(await write(method, '/venues/999999', { city: 'x' }), 'id');
      expectInvalidParam(await write(method, '/venues/by-slug/no-such-venue', { city: 'x' }), 'slug');
    }
    const created = await newVenue();
    expectInvalidParam(await write('PATCH', `/venues/${created.id}`, { venue: '' }), 'venue');
    expectInvalidParam(await write('PATCH', `/venues/${created.id}`, { website: 'nope' }), 'website');
    expectInvalidParam(await write('PATCH', `/venues/${created.id}`, { geo_lat: 95, geo_lng: 0 }), 'geo_lat');
    // Found by the REST fuzzer: a longitude alone was refused as geo_lat, a parameter the client had not sent.
    expectInvalidParam(await write('PATCH', `/venues/${created.id}`, { geo_lng: 0 }), 'geo_lng');
    expectInvalidParam(await write('PATCH', `/venues/${created.id}`, { geo_lat: 0 }), 'geo_lat');
    expectInvalidParam(await write('PATCH', `/venues/${created.id}`, { show_map: 'perhaps' }), 'show_map');
    expectInvalidParam(await write('PATCH', `/venues/${created.id}`, { author: 424242 }), 'author');
    expect((await rest.get(`/venues/${created.id}`)).body.venue).toBe(created.venue);
  });

  it('updates with an empty body (nothing changes)', async () => {
    const created = await newVenue({ city: 'Same' });
    const reply = await write('POST', `/venues/${created.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: created.id, venue: created.venue, city: 'Same' });
  });
});

describe('DELETE /venues/{id} and /venues/by-slug/{slug}', () => {
  it('moves to the trash (200, status trash), then 410 venue-is-in-trash, and force deletes for good', async () => {
    const created = await newVenue({ city: 'Gone' });
    const trashed = await write('DELETE', `/venues/${created.id}`);
    expect(trashed.status).toBe(200);
    expectVenue(trashed.body);
    expect(trashed.body).toMatchObject({ id: created.id, status: 'trash', city: 'Gone' });
    const again = await write('DELETE', `/venues/${created.id}`);
    expectError(again, 410, 'venue-is-in-trash');
    expect(again.body.message).toBe('The venue is already trashed');
    expectError(await rest.get(`/venues/${created.id}`), 403, 'venue-not-accessible');
    expect((await rest.get('/venues', { query: 'search=Gone' })).body.total).toBe(0);

    const forced = await write('DELETE', `/venues/${created.id}`, undefined, 'force=true');
    expect(forced.status).toBe(200);
    expect(forced.body.id).toBe(created.id);
    expectInvalidParam(await rest.get(`/venues/${created.id}`), 'id');
    expectInvalidParam(await write('DELETE', `/venues/${created.id}`), 'id');
  });

  it('deletes a published venue for good with force, and by slug', async () => {
    const created = await newVenue();
    const forced = await write('DELETE', `/venues/by-slug/${created.slug}`, { force: true });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ id: created.id, status: 'publish' });
    expectInvalidParam(await rest.get(`/venues/by-slug/${created.slug}`), 'slug');
    const other = await newVenue();
    const bySlug = await write('DELETE', `/venues/by-slug/${other.slug}`);
    expect(bySlug.body.status).toBe('trash');
    expectError(await write('DELETE', `/venues/by-slug/${other.slug}`), 410, 'venue-is-in-trash');
  });

  it('answers an unknown ID or slug with 400 naming it, and a bad force value naming force', async () => {
    expectInvalidParam(await write('DELETE', '/venues/999999'), 'id');
    expectInvalidParam(await write('DELETE', '/venues/by-slug/no-such-venue'), 'slug');
    const created = await newVenue();
    expectInvalidParam(await write('DELETE', `/venues/${created.id}`, undefined, 'force=sometimes'), 'force');
    expect((await rest.get(`/venues/${created.id}`)).status).toBe(200);
  });

  it('takes a trashed venue off its events', async () => {
    const venue = await newVenue();
    const event = await createEvent(server, { venues: [{ id: venue.id }] });
    expect((await rest.get(`/events/${event.id}`)).body.venue.id).toBe(venue.id);
    expect((await rest.get('/venues', { query: `event=${event.id}` })).body.total).toBe(1);
    await write('DELETE', `/venues/${venue.id}`);
    expect((await rest.get(`/events/${event.id}`)).body.venue).toEqual([]);
    expect((await rest.get('/venues', { query: `event=${event.id}` })).body.total).toBe(0);
  });
});
