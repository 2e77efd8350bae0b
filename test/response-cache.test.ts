import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, TEST_ENGINE, type TestDatabase } from './support/database.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';
import { type RawResponse, rawRequest, withoutDate } from './support/raw-http.js';
import { PROCESS_ADMIN_PASSWORD, readUntil, rest, startInstance, stop, type Instance } from './support/processes.js';

// The response cache answers repeated anonymous reads from memory, yet a write through REST or GraphQL is visible to
// the very next read in the process that made it, and in another process on the same database within the staleness
// bound (SQLite: the very next read too; PostgreSQL: the change notification's delay). Two server processes share one
// database; the TTL is long, so only the data version can make a remembered answer stale.

const ADMIN = `Basic ${Buffer.from(`admin:${PROCESS_ADMIN_PASSWORD}`).toString('base64')}`;
const LONG_TTL = { RESPONSE_CACHE_TTL_MS: '600000' };

let dir: string;
let database: TestDatabase;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-cache-'));
  database = await freshDatabase(dir);
  a = await startInstance(database.url, LONG_TTL);
  b = await startInstance(database.url, LONG_TTL);
}, 120_000);

afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map(stop));
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function titles(instance: Instance, query = '') {
  const { status, body } = await rest(instance, 'GET', `/events?start_date=2030-01-01&end_date=2030-12-31${query}`);
  expect(status).toBe(200);
  return (body.events as { title: string }[]).map((event) => event.title);
}

async function gqlMutation(instance: Instance, query: string, variables: Record<string, unknown>) {
  const response = await fetch(`${instance.base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: ADMIN },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as any;
  expect(result.errors).toBeUndefined();
  return result.data;
}

describe(`response cache, two processes on one ${TEST_ENGINE} database`, () => {
  it('answers a hit (served before any Fetch Request is built) with the headers and bytes of the miss: GET, HEAD, 304, CORS', async () => {
    const created = await rest(a, 'POST', '/venues', {
      venue: 'Hit or miss hall',
      description: 'A hall big enough to be compressed. '.repeat(60),
    });
    expect(created.status).toBe(201);
    const path = '/wp-json/calendar/events/v1/venues?search=Hit%20or%20miss';
    const headers = { 'accept-encoding': 'gzip', origin: 'https://app.example', 'x-request-id': 'sent-by-the-client' };
    const miss = await rawGet(a, path, headers);
    const hit = await rawGet(a, path, headers);
    expect(miss.status).toBe(200);
    expect(hit).toEqual(miss);
    expect(hit.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(hit.headers['x-request-id']).toBe('sent-by-the-client');
    expect(JSON.parse(gunzipSync(hit.body).toString()).venues).toHaveLength(1);
    expect(hit.headers['content-encoding']).toBe('gzip');
    const head = await rawGet(a, path, headers, 'HEAD');
    expect(head.headers).toEqual(hit.headers);
    expect(head.body.length).toBe(0);
    const revalidated = await rawGet(a, path, { ...headers, 'if-none-match': String(hit.headers.etag) });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect(revalidated.headers['access-control-allow-origin']).toBe('https://app.example');
    const otherOrigin = await rawGet(a, path, { ...headers, origin: 'null' });
    expect(otherOrigin.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a repeated anonymous read from memory with the same bytes', async () => {
    const url = `${a.base}/wp-json/calendar/events/v1/venues`;
    const first = await fetch(url);
    const second = await fetch(url);
    expect(await second.text()).toBe(await first.text());
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  });

  it('shows a REST write to the very next read in its process, and in the other within the bound', async () => {
    expect(await titles(a)).toEqual([]);
    expect(await titles(b)).toEqual([]);
    const created = await rest(a, 'POST', '/events', {
      title: 'Harbour concert',
      start_date: '2030-05-01 19:00:00',
      end_date: '2030-05-01 21:00:00',
    });
    expect(created.status).toBe(201);
    expect(await titles(a)).toEqual(['Harbour concert']);
    expect(
      await readUntil(
        () => titles(b),
        (list) => list.length > 0,
      ),
    ).toEqual(['Harbour concert']);

    const updated = await rest(b, 'POST', `/events/${created.body.id}`, { title: 'Harbour concert (moved)' });
    expect(updated.status).toBe(200);
    expect(await titles(b)).toEqual(['Harbour concert (moved)']);
    expect(
      await readUntil(
        () => titles(a),
        (list) => list[0] !== 'Harbour concert',
      ),
    ).toEqual(['Harbour concert (moved)']);
  });

  it('shows a GraphQL write to the next REST and GraphQL reads in either process (within the bound)', async () => {
    const before = await titles(b, '&search=lantern');
    expect(before).toEqual([]);
    const query = `{ events(filter: { search: "lantern", startDate: "2030-01-01" }) { edges { node { title } } } }`;
    const read = async (instance: Instance) => {
      const response = await fetch(`${instance.base}/graphql?query=${encodeURIComponent(query)}`, {
        headers: { accept: 'application/json' },
      });
      return ((await response.json()) as any).data.events.edges.map((edge: any) => edge.node.title);
    };
    expect(await read(b)).toEqual([]);
    await gqlMutation(a, `mutation($input: EventInput!) { createEvent(input: $input) { id } }`, {
      input: { title: 'Lantern walk', startDate: '2030-06-01 20:00:00', endDate: '2030-06-01 22:00:00' },
    });
    expect(await read(a)).toEqual(['Lantern walk']);
    expect(
      await readUntil(
        () => titles(b, '&search=lantern'),
        (list) => list.length > 0,
      ),
    ).toEqual(['Lantern walk']);
    expect(
      await readUntil(
        () => read(b),
        (list) => list.length > 0,
      ),
    ).toEqual(['Lantern walk']);
  });

  it('shows a deletion and a term change within the bound (totals and term counts included)', async () => {
    const listed = await rest(b, 'GET', '/events?start_date=2030-01-01&end_date=2030-12-31');
    const total = Number(listed.headers.get('x-tec-total'));
    const category = await rest(a, 'POST', '/categories', { name: 'Harbour' });
    const termCount = () => rest(b, 'GET', `/categories/${category.body.id}`).then((term) => term.body.count as number);
    expect(await readUntil(termCount, (count) => count === 0)).toBe(0);
    const id = listed.body.events[0].id;
    expect((await rest(a, 'POST', `/events/${id}`, { categories: [category.body.id] })).status).toBe(200);
    expect(await readUntil(termCount, (count) => count === 1)).toBe(1);

    expect((await rest(a, 'DELETE', `/events/${id}`)).status).toBe(200);
    const listedTotal = () =>
      rest(b, 'GET', '/events?start_date=2030-01-01&end_date=2030-12-31').then((list) =>
        Number(list.headers.get('x-tec-total')),
      );
    expect(await readUntil(listedTotal, (count) => count === total - 1)).toBe(total - 1);
    expect(await readUntil(termCount, (count) => count === 0)).toBe(0);
  });

  it('never answers a signed-in reader from the anonymous cache', async () => {
    const draft = await rest(a, 'POST', '/events', {
      title: 'Draft recital',
      status: 'draft',
      start_date: '2030-07-01 19:00:00',
      end_date: '2030-07-01 20:00:00',
    });
    expect(draft.status).toBe(201);
    const url = `${b.base}/wp-json/calendar/events/v1/events?start_date=2030-07-01&end_date=2030-07-02&status=draft`;
    const anonymous = await fetch(url);
    expect(anonymous.status).not.toBe(200);
    const signedIn = await fetch(url, { headers: { authorization: ADMIN } });
    expect(signedIn.status).toBe(200);
    expect(((await signedIn.json()) as any).events.map((event: any) => event.title)).toEqual(['Draft recital']);
  });
});

describe(`learning of changes without asking (${TEST_ENGINE})`, () => {
  // A server in this process, whose statements are counted, and a writer process on its database. Polling is off in
  // effect (once in ten minutes): on PostgreSQL only the change notification can make the reader see the write.
  let reader: TestServer;
  let writer: Instance;

  beforeAll(async () => {
    reader = await startServer({ ...LONG_TTL, DATA_VERSION_POLL_MS: '600000' });
    writer = await startInstance(reader.app.config.databaseUrl, LONG_TTL);
  }, 120_000);

  afterAll(async () => {
    if (writer) await stop(writer);
    await reader?.close();
  });

  const venues = async () => {
    const response = await fetch(`${reader.url}/wp-json/calendar/events/v1/venues?per_page=50`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { venues: { venue: string }[] }).venues.map((venue) => venue.venue).sort();
  };

  it('answers a cache hit with no statement, and a write in another process within the bound', async () => {
    expect(await venues()).toEqual([]);
    expect(await reader.countQueries(async () => expect(await venues()).toEqual([]))).toBe(0);

    const created = await fetch(`${writer.base}/wp-json/calendar/events/v1/venues`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: ADMIN_AUTHORIZATION },
      body: JSON.stringify({ venue: 'Quay shed' }),
    });
    expect(created.status).toBe(201);
    expect(await readUntil(venues, (names) => names.length > 0)).toEqual(['Quay shed']);

    // Learnt from the notification (PostgreSQL) or the synchronous read (SQLite): hits stay free of statements.
    expect(await reader.countQueries(async () => expect(await venues()).toEqual(['Quay shed']))).toBe(0);
  });

  it('answers a request without Accept from the answer kept for `*/*`, and the other way round', async () => {
    const answer = ({ status, headers, body }: RawResponse) => ({ status, etag: headers.etag, body: body.toString() });
    const get = (path: string, headers: Record<string, string> = {}) =>
      rawRequest(`${reader.url}/wp-json/calendar/events/v1${path}`, headers).then(answer);
    const venues = await get('/venues?per_page=7', { accept: '*/*' });
    expect(venues.status).toBe(200);
    expect(await reader.countQueries(async () => expect(await get('/venues?per_page=7')).toEqual(venues))).toBe(0);
    const organizers = await get('/organizers?per_page=7');
    expect(organizers.status).toBe(200);
    const asked = () => get('/organizers?per_page=7', { accept: '*/*' });
    expect(await reader.countQueries(async () => expect(await asked()).toEqual(organizers))).toBe(0);
    // Another type is another entry (GraphiQL's page is not the JSON of the same URL), computed once.
    const json = () => get('/venues?per_page=7', { accept: 'application/json' });
    expect(await reader.countQueries(async () => expect(await json()).toEqual(venues))).toBeGreaterThan(0);
    expect(await reader.countQueries(async () => expect(await json()).toEqual(venues))).toBe(0);
  });

  it('sees its own write at the very next read', async () => {
    const created = await reader.gqlOk(`mutation($input: VenueInput!) { createVenue(input: $input) { id } }`, {
      input: { name: 'Boat house' },
    });
    expect(created.createVenue.id).toBeTruthy();
    expect(await venues()).toEqual(['Boat house', 'Quay shed']);
  });
});

/** A GET (or HEAD) on node:http, so that the headers are exactly those sent and received; `date` left out. */
const rawGet = (instance: Instance, path: string, headers: Record<string, string>, method = 'GET') =>
  rawRequest(`${instance.base}${path}`, headers, method).then(withoutDate);
