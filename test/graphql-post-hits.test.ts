import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from './support/database.js';
import { collectResponse, type RawResponse as Raw, withoutDate } from './support/raw-http.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// A GraphQL query sent by POST is answered from the response cache on node:http: its body is read there (bounded by
// its Content-Length) and looked up before any Fetch Request is built. A miss, or a body the cache does not keep, goes
// the whole way with the bytes already read. `fetched` counts the requests that reached `app.fetch` (the whole way).
// MAX_IN_FLIGHT=1: a request whose admission ticket were never finished would have the next one refused (429).

const TIMEOUT_MS = 3000;
const lines: string[] = [];
let server: TestServer;
let fetched = 0;

const QUERY = 'query Venues($first: Int) { venues(first: $first) { edges { node { name address } } } }';
/** A query's body; each `first` is a key of its own, so each test starts with a miss. */
const queryBody = (first: number) => JSON.stringify({ query: QUERY, variables: { first }, operationName: 'Venues' });

beforeAll(async () => {
  server = await startServer(
    {
      LOG_LEVEL: 'info',
      RESPONSE_CACHE_TTL_MS: '600000',
      MAX_IN_FLIGHT: '1',
      REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
    },
    { logTo: { write: (line) => void lines.push(line) } },
  );
  const whole = server.app.fetch;
  server.app.fetch = (...args) => {
    fetched++;
    return whole(...args);
  };
  for (let n = 1; n <= 6; n++)
    await server.gqlOk('mutation($input: VenueInput!) { createVenue(input: $input) { id } }', {
      input: { name: `Hall ${n}`, address: `${n} Long Street, far enough to be compressed. `.repeat(4) },
    });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/**
 * A POST to /graphql on node:http with exactly these headers (Content-Length unless `chunked`), its body written in
 * `parts` pieces `pauseMs` apart; the answer without its `date`.
 */
function post(
  body: string,
  headers: Record<string, string> = {},
  { parts = 1, pauseMs = 0, chunked = false, pauseAfter = 0 } = {},
): Promise<Raw> {
  const bytes = Buffer.from(body);
  const length = chunked ? {} : { 'content-length': String(bytes.length) };
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      `${server.url}/graphql`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...length, ...headers } },
      (response) => collectResponse(response).then((raw) => resolve(withoutDate(raw)), reject),
    );
    sent.on('error', reject);
    void (async () => {
      const size = Math.ceil(bytes.length / parts);
      for (let start = 0; start < bytes.length; start += size) {
        if (start > 0) await sleep(start === size && pauseAfter ? pauseAfter : pauseMs);
        sent.write(bytes.subarray(start, start + size));
      }
      sent.end();
    })();
  });
}

/** The requests of `action` that went the whole way (reached `app.fetch`). */
async function fetchesOf(action: () => Promise<unknown>): Promise<number> {
  const before = fetched;
  await action();
  return fetched - before;
}

const venues = (answer: Raw) =>
  (JSON.parse(answer.body.toString()) as any).data.venues.edges.map((edge: any) => edge.node.name);

/** The log lines at level error or of a 5xx answer. */
const failures = () =>
  lines.map((line) => JSON.parse(line)).filter((line) => line.level >= 50 || (line.status ?? 0) >= 500);

/** Sends raw bytes on a connection of its own; resolves what the server wrote back once either side closed it. */
function rawExchange(bytes: string, { hangUpAfterMs }: { hangUpAfterMs?: number } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(received).toString()));
    socket.write(bytes);
    if (hangUpAfterMs !== undefined) setTimeout(() => socket.destroy(), hangUpAfterMs);
  });
}

const head = (length: number) =>
  `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

/** Answers a plain query again (200, not 429) within a second: what came before left no ticket unfinished. */
async function answersNormally(first: number) {
  const until = Date.now() + 1000;
  let answer = await post(queryBody(first));
  while (answer.status !== 200 && Date.now() < until) {
    await sleep(50);
    answer = await post(queryBody(first));
  }
  expect(answer.status).toBe(200);
  expect(venues(answer)).toHaveLength(6);
}

describe(`GraphQL queries by POST answered from the cache on node:http (${TEST_ENGINE})`, () => {
  it('answers a hit without the whole way or a statement, with the bytes and headers of the miss', async () => {
    const body = queryBody(10);
    const headers = { 'accept-encoding': 'gzip', origin: 'https://app.example', 'x-request-id': 'post-hit-1' };
    let miss: Raw | undefined;
    let hit: Raw | undefined;
    expect(await fetchesOf(async () => (miss = await post(body, headers)))).toBe(1);
    const statements = await server.countQueries(async () => {
      expect(await fetchesOf(async () => (hit = await post(body, headers)))).toBe(0);
    });
    expect(statements).toBe(0);
    expect(miss!.status).toBe(200);
    expect(hit).toEqual(miss);
    expect(hit!.headers['content-encoding']).toBe('gzip');
    expect(hit!.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(hit!.headers['x-request-id']).toBe('post-hit-1');
    // A POST's answer carries no ETag either way (docs/caching.md): no HTTP cache keeps it.
    expect(hit!.headers.etag).toBeUndefined();
    expect(JSON.parse(gunzipSync(hit!.body).toString()).data.venues.edges).toHaveLength(6);
    const logged = lines.map((line) => JSON.parse(line)).filter((line) => line.requestId === 'post-hit-1');
    expect(logged.map((line) => [line.method, line.path, line.status])).toEqual([
      ['POST', '/graphql', 200],
      ['POST', '/graphql', 200],
    ]);
  });

  it('answers If-None-Match as the whole way does: in full, since a POST answer has no validators', async () => {
    const body = queryBody(11);
    const miss = await post(body, { 'if-none-match': '*' });
    let hit: Raw | undefined;
    expect(await fetchesOf(async () => (hit = await post(body, { 'if-none-match': '*' })))).toBe(0);
    expect(miss.status).toBe(200);
    expect(hit).toEqual({ ...miss, headers: { ...miss.headers, 'x-request-id': hit!.headers['x-request-id'] } });
  });

  it('reads a body sent slowly in several pieces, for a miss (the whole way gets it) and a hit', async () => {
    const body = queryBody(12);
    let miss: Raw | undefined;
    let hit: Raw | undefined;
    expect(await fetchesOf(async () => (miss = await post(body, {}, { parts: 4, pauseMs: 80 })))).toBe(1);
    expect(await fetchesOf(async () => (hit = await post(body, {}, { parts: 4, pauseMs: 80 })))).toBe(0);
    expect(miss!.status).toBe(200);
    expect(venues(miss!)).toHaveLength(6);
    expect(hit!.body).toEqual(miss!.body);
  });

  it('hands a body that takes longer than REQUEST_TIMEOUT_MS to the whole way with the bytes read so far', async () => {
    const answer = await post(queryBody(13), {}, { parts: 2, pauseAfter: TIMEOUT_MS + 300 });
    expect(answer.status).toBe(200);
    expect(venues(answer)).toHaveLength(6);
  });

  it('answers normally after a body longer than its Content-Length (the rest is not a request)', async () => {
    const body = queryBody(14);
    const answered = await rawExchange(`${head(Buffer.byteLength(body))}${body}, "extensions": {"x": 1}}`);
    // node:http parses what follows the declared bytes as the next request, and refuses it (400, connection closed).
    expect(answered).toMatch(/^HTTP\/1\.1 [24]00 /);
    await answersNormally(14);
    expect(failures()).toEqual([]);
  });

  it('answers normally after clients that hang up in the middle of a body', async () => {
    const body = queryBody(15);
    for (const hangUpAfterMs of [0, 30, 100]) {
      const answered = await rawExchange(`${head(Buffer.byteLength(body) + 40)}${body}`, { hangUpAfterMs });
      expect(answered).toBe('');
    }
    await answersNormally(15);
    // The hit of the same query is answered too: nothing of the hung-up bodies was kept.
    await answersNormally(15);
    expect(failures()).toEqual([]);
  });

  it('answers a query sent without Content-Length (chunked) the whole way, every time, as before', async () => {
    const body = queryBody(16);
    for (const _time of [1, 2]) {
      let answer: Raw | undefined;
      const statements = await server.countQueries(async () => {
        expect(await fetchesOf(async () => (answer = await post(body, {}, { parts: 2, chunked: true })))).toBe(1);
      });
      expect(statements).toBeGreaterThan(0);
      expect(venues(answer!)).toHaveLength(6);
    }
  });

  it('runs a mutation sent by POST every time, the whole way', async () => {
    const mutation = JSON.stringify({
      query: 'mutation($input: VenueInput!) { createVenue(input: $input) { id } }',
      variables: { input: { name: 'Twice hall' } },
    });
    const ids: string[] = [];
    for (const _time of [1, 2]) {
      let answer: Raw | undefined;
      expect(await fetchesOf(async () => (answer = await post(mutation, { authorization: ADMIN_AUTHORIZATION })))).toBe(
        1,
      );
      ids.push((JSON.parse(answer!.body.toString()) as any).data.createVenue.id);
    }
    expect(new Set(ids).size).toBe(2);
    // Anonymous: the body is read on node:http, is no query, and reaches GraphQL Yoga whole, which refuses the writer.
    const anonymous: Raw[] = [];
    expect(
      await fetchesOf(async () => {
        anonymous.push(await post(mutation), await post(mutation));
      }),
    ).toBe(2);
    for (const answer of anonymous) {
      const result = JSON.parse(answer.body.toString()) as any;
      expect(result.data?.createVenue ?? null).toBeNull();
      expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
  });
});
