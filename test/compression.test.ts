import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVenue } from './support/factories.js';
import { rawRequest, type RawResponse } from './support/raw-http.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// Compression of the API's answers (src/http/representation.ts): br or gzip as Accept-Encoding allows, for bodies of
// 1 KB and more, with one ETag per coding; the identity tag revalidates too.

const REST = '/wp-json/calendar/events/v1';
const LARGE = `${REST}/venues?per_page=20`;
const SMALL = `${REST}/venues?per_page=1&_fields=id`;
const GRAPHQL_LARGE = `/graphql?query=${encodeURIComponent('{ venues(first: 20) { edges { node { id name slug address city country } } } }')}`;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  for (let n = 0; n < 12; n++)
    await createVenue(server, { address: `${n} Harbour Road`, city: 'Lisbon', country: 'Portugal' });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(`${server.url}${path}`, { accept: 'application/json', ...headers }, method);
const header = (response: RawResponse, name: string) => response.headers[name] as string | undefined;
const DECOMPRESS = { br: brotliDecompressSync, gzip: gunzipSync } as const;

describe('compression', () => {
  it('answers br and gzip that decompress to the identity body, smaller, with Vary and Content-Length', async () => {
    for (const path of [LARGE, GRAPHQL_LARGE]) {
      const identity = await get(path, { 'accept-encoding': 'identity' });
      expect(identity.body.length, path).toBeGreaterThanOrEqual(1024);
      expect(header(identity, 'content-encoding'), path).toBeUndefined();
      for (const coding of ['br', 'gzip'] as const) {
        const compressed = await get(path, { 'accept-encoding': coding });
        expect(compressed.status, path).toBe(200);
        expect(header(compressed, 'content-encoding'), path).toBe(coding);
        expect(header(compressed, 'vary')?.toLowerCase(), path).toContain('accept-encoding');
        expect(Number(header(compressed, 'content-length')), path).toBe(compressed.body.length);
        expect(compressed.body.length, path).toBeLessThan(identity.body.length);
        expect(DECOMPRESS[coding](compressed.body).equals(identity.body), `${path} ${coding}`).toBe(true);
      }
    }
  });

  it('prefers brotli among codings accepted equally, follows q-values, and never sends a refused coding (q=0)', async () => {
    const cases: [string, string | undefined][] = [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['BR;Q=0, GZIP;Q=0.1', 'gzip'],
      ['br;q=0, gzip;q=0', undefined],
      ['*;q=0, identity', undefined],
      ['gzip;q=0, *', 'br'],
      ['deflate, compress', undefined],
      ['', undefined],
      ['br;q=garbage, gzip', 'gzip'],
    ];
    const identity = await get(LARGE, { 'accept-encoding': 'identity' });
    for (const [acceptEncoding, expected] of cases) {
      const response = await get(LARGE, { 'accept-encoding': acceptEncoding });
      expect(response.status, acceptEncoding).toBe(200);
      expect(header(response, 'content-encoding'), acceptEncoding).toBe(expected);
      if (expected === undefined) expect(response.body.equals(identity.body), acceptEncoding).toBe(true);
    }
    const none = await get(LARGE);
    expect(header(none, 'content-encoding'), 'no Accept-Encoding: identity').toBeUndefined();
  });

  it('sends a body under 1 KB as it is, still saying the answer varies by Accept-Encoding', async () => {
    const small = await get(SMALL, { 'accept-encoding': 'br, gzip' });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(header(small, 'content-encoding')).toBeUndefined();
    expect(header(small, 'vary')?.toLowerCase()).toContain('accept-encoding');
  });

  it("gives each coding its ETag; If-None-Match with any coding's tag, the identity one included, answers 304", async () => {
    const identityTag = header(await get(LARGE, { 'accept-encoding': 'identity' }), 'etag')!;
    expect(identityTag).toMatch(/^"[^"]+"$/);
    const tags = { br: identityTag.replace(/"$/, '-br"'), gzip: identityTag.replace(/"$/, '-gzip"') };
    for (const coding of ['br', 'gzip'] as const) {
      const compressed = await get(LARGE, { 'accept-encoding': coding });
      expect(header(compressed, 'etag')).toBe(tags[coding]);
      for (const held of [tags[coding], identityTag, tags[coding === 'br' ? 'gzip' : 'br']]) {
        const revalidated = await get(LARGE, { 'accept-encoding': coding, 'if-none-match': held });
        expect(
          [revalidated.status, header(revalidated, 'etag'), revalidated.body.length],
          `${coding} holding ${held}`,
        ).toEqual([304, held, 0]);
        expect(header(revalidated, 'content-encoding')).toBeUndefined();
      }
      const other = await get(LARGE, {
        'accept-encoding': coding,
        'if-none-match': identityTag.replace(/"$/, '-deflate"'),
      });
      expect(other.status).toBe(200);
    }
  });

  it('answers the same compressed bytes from the response cache as when first computed, and to credentialed reads', async () => {
    const path = `${REST}/venues?per_page=15`;
    const first = await get(path, { 'accept-encoding': 'br' });
    const again = await get(path, { 'accept-encoding': 'br' });
    expect(again.body.equals(first.body)).toBe(true);
    const signedIn = await get(path, { 'accept-encoding': 'gzip', authorization: ADMIN_AUTHORIZATION });
    expect(header(signedIn, 'content-encoding')).toBe('gzip');
    expect(JSON.parse(gunzipSync(signedIn.body).toString()).venues.length).toBe(12);
  });

  it('compresses a large GraphQL answer over POST too, without validators', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'br' },
      body: JSON.stringify({ query: '{ venues(first: 20) { edges { node { id name slug address city country } } } }' }),
    });
    expect(response.headers.get('content-encoding')).toBe('br');
    expect(response.headers.get('etag')).toBeNull();
    expect(((await response.json()) as any).data.venues.edges.length).toBe(12);
    const small = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'br' },
      body: JSON.stringify({ query: '{ venues(first: 1) { totalCount } }' }),
    });
    expect(small.headers.get('content-encoding')).toBeNull();
  });

  it('sends no body for HEAD and never compresses an error or an event stream', async () => {
    const head = await get(LARGE, { 'accept-encoding': 'br' }, 'HEAD');
    expect([head.status, head.body.length]).toEqual([200, 0]);
    const error = await get(`${REST}/events?per_page=${'9'.repeat(2000)}`, { 'accept-encoding': 'br' });
    expect(error.status).toBe(400);
    expect(header(error, 'content-encoding')).toBeUndefined();
    const stream = await get(GRAPHQL_LARGE, { accept: 'text/event-stream', 'accept-encoding': 'br, gzip' });
    expect(header(stream, 'content-type')).toMatch(/^text\/event-stream/);
    // GraphQL Yoga marks its event streams `Content-Encoding: none`, so that no proxy buffers them to compress.
    expect(header(stream, 'content-encoding') ?? 'none').toBe('none');
    expect(stream.body.toString()).toContain('event: next');
  });
});
