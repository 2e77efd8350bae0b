import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, createVenue, unique } from './support/factories.js';
import { dayAt } from './support/rest.js';
import { rawRequest, type RawResponse } from './support/raw-http.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// HTTP caching of the API's GET answers (src/http/representation.ts): a strong ETag naming the body, 304 to a client
// that holds it (from the response cache too), Cache-Control public or private by credentials, no-store on errors,
// and HEAD. Both servers run the same checks: with the response cache (default) and without (RESPONSE_CACHE_MB=0).

const REST = '/wp-json/calendar/events/v1';
const GRAPHQL_GET = `/graphql?query=${encodeURIComponent('{ venues(first: 5) { totalCount edges { node { name } } } }')}`;

let cached: TestServer;
let uncached: TestServer;
beforeAll(async () => {
  [cached, uncached] = await Promise.all([startServer(), startServer({ RESPONSE_CACHE_MB: '0' })]);
  for (const server of [cached, uncached]) {
    await createVenue(server);
    await createEvent(server, { title: unique('Feed'), startDate: dayAt(3), endDate: dayAt(3, '12:00:00') });
  }
}, 60_000);
afterAll(async () => {
  await Promise.all([cached?.close(), uncached?.close()]);
});

const get = (server: TestServer, path: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(`${server.url}${path}`, { 'accept-encoding': 'identity', accept: 'application/json', ...headers }, method);
const header = (response: RawResponse, name: string) => String(response.headers[name] ?? '');
const varyOf = (response: RawResponse) =>
  header(response, 'vary')
    .toLowerCase()
    .split(/\s*,\s*/);
const bodyTag = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/**
 * An anonymous answer's Cache-Control: revalidated by every cache; or, when the response cache keeps it, also kept by
 * shared caches that are purged on writes (s-maxage; docs/caching.md, "A CDN or reverse proxy in front"), unless the
 * clock changes it within a second (the events list, which reads the clock).
 */
const ANONYMOUS = /^public, (no-cache|max-age=0, s-maxage=[1-9]\d*(, stale-while-revalidate=[1-9]\d*)?)$/;
const KEPT_BY_SHARED_CACHES = 'public, max-age=0, s-maxage=3600, stale-while-revalidate=30';

const READS = [`${REST}/venues`, `${REST}/events`, `${REST}/events.ics`, GRAPHQL_GET];

describe.each([
  ['with the response cache', () => cached],
  ['without the response cache', () => uncached],
])('HTTP caching %s', (_name, server) => {
  it('gives every successful GET a strong ETag that names its body, the same for identical requests', async () => {
    for (const path of [`${REST}/venues`, `${REST}/events`, GRAPHQL_GET]) {
      const first = await get(server(), path);
      const second = await get(server(), path);
      expect(first.status, path).toBe(200);
      expect(header(first, 'etag'), path).toBe(bodyTag(first.body));
      expect(header(second, 'etag'), path).toBe(header(first, 'etag'));
      expect(second.body.equals(first.body), path).toBe(true);
    }
  });

  it('changes the ETag after a write', async () => {
    const before = await get(server(), `${REST}/venues`);
    await createVenue(server());
    const after = await get(server(), `${REST}/venues`);
    expect(header(after, 'etag')).not.toBe(header(before, 'etag'));
    const stale = await get(server(), `${REST}/venues`, { 'if-none-match': header(before, 'etag') });
    expect(stale.status).toBe(200);
    expect(header(stale, 'etag')).toBe(header(after, 'etag'));
  });

  it('answers 304 without a body to If-None-Match naming the current tag (in a list, weakly, or *), 200 otherwise', async () => {
    for (const path of READS) {
      const fresh = await get(server(), path);
      const etag = header(fresh, 'etag');
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]+"$/);
      for (const ifNoneMatch of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
        const revalidated = await get(server(), path, { 'if-none-match': ifNoneMatch });
        expect(revalidated.status, `${path} ${ifNoneMatch}`).toBe(304);
        expect(revalidated.body.length).toBe(0);
        expect(header(revalidated, 'etag')).toBe(etag);
        expect(header(revalidated, 'cache-control')).toMatch(ANONYMOUS);
        expect(varyOf(revalidated)).toEqual(expect.arrayContaining(['accept-encoding', 'origin']));
      }
      for (const ifNoneMatch of ['"other"', `${etag.slice(0, -2)}"`, '', 'garbage', `"${etag}"`]) {
        const changed = await get(server(), path, { 'if-none-match': ifNoneMatch });
        expect(changed.status, `${path} ${ifNoneMatch}`).toBe(200);
        expect(changed.body.equals(fresh.body)).toBe(true);
      }
    }
  });

  it('lets shared caches keep anonymous answers and revalidate; credentialed answers are private', async () => {
    for (const path of READS) {
      const anonymous = await get(server(), path);
      expect(header(anonymous, 'cache-control'), path).toMatch(ANONYMOUS);
      if (server() === uncached) expect(header(anonymous, 'cache-control'), path).toBe('public, no-cache');
      if (server() === cached && path === `${REST}/venues`)
        expect(header(anonymous, 'cache-control'), path).toBe(KEPT_BY_SHARED_CACHES);
      const signedIn = await get(server(), path, { authorization: ADMIN_AUTHORIZATION });
      expect(signedIn.status, path).toBe(200);
      expect(header(signedIn, 'cache-control'), path).toBe('private, no-cache');
      const revalidated = await get(server(), path, {
        authorization: ADMIN_AUTHORIZATION,
        'if-none-match': header(signedIn, 'etag'),
      });
      expect([revalidated.status, header(revalidated, 'cache-control')], path).toEqual([304, 'private, no-cache']);
      for (const credentialed of [signedIn, revalidated])
        expect([credentialed.headers['surrogate-key'], credentialed.headers['cache-tag']], path).toEqual([
          undefined,
          undefined,
        ]);
      expect(header(await get(server(), path, { cookie: 'session=x' }), 'cache-control'), path).toBe(
        'private, no-cache',
      );
    }
  });

  it('tells every cache not to store errors, and gives them no ETag', async () => {
    const errors: [string, Record<string, string>, number][] = [
      [`${REST}/events/999999`, {}, 404],
      [`${REST}/events?per_page=abc`, {}, 400],
      [`${REST}/venues`, { authorization: 'Basic bm9ib2R5Om5vdGhpbmc=' }, 401],
      ['/nowhere', {}, 404],
      [`/graphql?query=${encodeURIComponent('{ nope')}`, { accept: 'application/graphql-response+json' }, 400],
    ];
    for (const [path, headers, status] of errors) {
      const response = await get(server(), path, headers);
      expect(response.status, path).toBe(status);
      expect(header(response, 'cache-control'), path).toBe('no-store');
      expect(response.headers.etag, path).toBeUndefined();
      const conditional = await get(server(), path, { ...headers, 'if-none-match': '*' });
      expect(conditional.status, `${path} with If-None-Match: *`).toBe(status);
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    for (const path of READS) {
      const full = await get(server(), path);
      const head = await get(server(), path, {}, 'HEAD');
      expect(head.status, path).toBe(200);
      expect(head.body.length, path).toBe(0);
      for (const name of ['etag', 'content-type', 'content-length', 'cache-control'])
        expect(header(head, name), `${path} ${name}`).toBe(header(full, name));
      expect(Number(header(head, 'content-length'))).toBe(full.body.length);
      const conditional = await get(server(), path, { 'if-none-match': header(full, 'etag') }, 'HEAD');
      expect(conditional.status, path).toBe(304);
    }
  });

  it('gives the feeds their ETag and Last-Modified; If-Modified-Since answers 304 only without If-None-Match', async () => {
    const feed = await get(server(), `${REST}/events.ics`);
    expect(header(feed, 'content-type')).toMatch(/^text\/calendar/);
    const lastModified = header(feed, 'last-modified');
    expect(lastModified).not.toBe('');
    expect((await get(server(), `${REST}/events.ics`, { 'if-modified-since': lastModified })).status).toBe(304);
    expect(
      (await get(server(), `${REST}/events.ics`, { 'if-modified-since': lastModified, 'if-none-match': '"other"' }))
        .status,
    ).toBe(200);
  });

  it('gives GraphQL over POST no ETag (only GETs are representations a cache can hold)', async () => {
    const response = await fetch(`${server().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: '{ venues(first: 1) { totalCount } }' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBeNull();
  });
});

describe('conditional requests and the response cache', () => {
  it('answers a repeated conditional anonymous read from memory (no more statements than the version check)', async () => {
    const path = `${REST}/venues?per_page=7`;
    const first = await get(cached, path);
    let revalidated: RawResponse | undefined;
    const statements = await cached.countQueries(async () => {
      revalidated = await get(cached, path, { 'if-none-match': header(first, 'etag') });
    });
    expect(revalidated!.status).toBe(304);
    expect(statements).toBeLessThanOrEqual(1);
    const computed = await uncached.countQueries(() => get(uncached, path, { 'if-none-match': header(first, 'etag') }));
    expect(computed).toBeGreaterThan(1);
  });

  it('gives equal bodies equal ETags, however they were computed (a credentialed read is never remembered)', async () => {
    const path = `${REST}/venues?per_page=2&_fields=id`;
    const anonymous = await get(cached, path);
    const signedIn = await get(cached, path, { authorization: ADMIN_AUTHORIZATION });
    expect(signedIn.body.equals(anonymous.body)).toBe(true);
    expect(header(signedIn, 'etag')).toBe(header(anonymous, 'etag'));
  });
});
