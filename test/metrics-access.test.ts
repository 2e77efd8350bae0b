import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { OPERATION_NAMES_KEPT } from '../src/metrics/metrics.js';
import { startServer, type TestServer } from './support/server.js';

// Who may read /metrics, and what a client can do to its labels (issue 30, point 1). Prometheus itself scrapes in
// test/metrics-prometheus.test.ts.

const TOKEN = 'a-metrics-token-of-some-length';

/** A GET of `target` exactly as written (fetch would normalise it), answering the status. */
function rawGet(server: TestServer, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.end(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  });
}
const scrape = (server: TestServer, authorization?: string) =>
  fetch(`${server.url}/metrics`, { headers: authorization ? { authorization } : {} });

describe('metrics switched off (the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  it('has no /metrics', async () => {
    expect(server.app.metrics).toBeUndefined();
    expect((await scrape(server)).status).toBe(404);
    expect((await scrape(server, `Bearer ${TOKEN}`)).status).toBe(404);
  });
});

describe('METRICS_TOKEN on the service port', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ METRICS_TOKEN: TOKEN });
  });
  afterAll(() => server?.close());

  it('answers only a request bearing the token, never cached, never with CORS headers', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const refused = await scrape(server, authorization);
      expect(refused.status, String(authorization)).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await refused.text()).not.toMatch(/calendar_/);
    }
    const answer = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}`, origin: 'https://elsewhere.example' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(await answer.text()).toMatch(
      /^calendar_http_requests_total\{route="\/metrics",method="GET",status="401"\} 4$/m,
    );
  });

  it('survives request targets that are no URL relative to the site (`//`, `//[`, `//:99999/x`), labelling them', async () => {
    const targets = ['//', '//[', '//:99999/x', '///wp-json/calendar/events/v1/events', '/?rest_route=//'];
    const statuses = await Promise.all(targets.map((target) => rawGet(server, target)));
    expect(statuses.every((status) => status >= 200 && status < 500)).toBe(true);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await scrape(server, `Bearer ${TOKEN}`)).status).toBe(200);
  });

  it('keeps client-chosen labels bounded: operation names past the first 100 count as "other", paths by route', async () => {
    for (let n = 0; n < OPERATION_NAMES_KEPT + 30; n++) await server.gql(`query Named${n} { __typename }`);
    for (const path of ['/no/such/page', '/no/other/page', '/wp-json/calendar/events/v1/events/987654321'])
      await fetch(`${server.url}${path}`);
    const text = await (await scrape(server, `Bearer ${TOKEN}`)).text();
    const operations = new Set(
      [...text.matchAll(/^calendar_graphql_operations_total\{operation="([^"]*)"/gm)].map((match) => match[1]),
    );
    expect(operations.size).toBe(OPERATION_NAMES_KEPT + 1);
    expect(operations.has('other')).toBe(true);
    expect(text).toMatch(/^calendar_graphql_operations_total\{operation="other",type="query",outcome="ok"\} 30$/m);
    const routes = new Set(
      [...text.matchAll(/^calendar_http_requests_total\{route="([^"]*)"/gm)].map((match) => match[1]),
    );
    expect([...routes].sort()).toEqual([
      '/graphql',
      '/healthz',
      '/metrics',
      'rest /events/{id}',
      'rest unmatched',
      'unmatched',
    ]);
  });
});

describe('metrics of load shedding', () => {
  let server: TestServer;
  const stalled: Socket[] = [];
  beforeAll(async () => {
    server = await startServer({ METRICS_TOKEN: TOKEN, MAX_IN_FLIGHT: '1', TRUST_PROXY: 'true' });
    // Two requests whose bodies never come hold the process at twice MAX_IN_FLIGHT: the next ones are refused, 503.
    for (const address of ['192.0.2.80', '192.0.2.81']) {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${address}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
      );
      stalled.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  });
  afterAll(async () => {
    for (const socket of stalled) socket.destroy();
    await server?.close();
  });

  it('counts every shed request by its reason, and is scraped all the same', async () => {
    const answers = [];
    for (let n = 0; n < 5; n++)
      answers.push(
        (
          await fetch(`${server.url}/wp-json/calendar/events/v1/events`, {
            headers: { 'x-forwarded-for': '192.0.2.82' },
          })
        ).status,
      );
    expect(answers).toEqual([503, 503, 503, 503, 503]);
    // Refused straight on node:http, where an error would go uncaught: a target that is no relative URL.
    expect(await rawGet(server, '//[')).toBe(503);
    const scraped = await scrape(server, `Bearer ${TOKEN}`);
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(text).toMatch(/^calendar_requests_refused_total\{reason="overloaded"\} 6$/m);
    expect(text).toMatch(/^calendar_http_requests_total\{route="rest \/events",method="GET",status="503"\} 5$/m);
  });
});

describe('metrics settings', () => {
  const load = (env: Record<string, string>) => () => loadConfig({ DATABASE_URL: 'file:./x.db', ...env });
  it.each([
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN must be at least 16 characters long'],
    [{ METRICS_PORT: 'abc' }, 'METRICS_PORT must be a port number (0-65535), got "abc"'],
    [{ METRICS_PORT: '4000' }, 'METRICS_PORT must differ from PORT (4000)'],
    [{ METRICS_PORT: '9100', WORKERS: '2' }, 'with WORKERS > 1 each worker would answer for itself'],
  ])('refuses %j', (env, message) => {
    expect(load(env)).toThrow(ConfigError);
    expect(load(env)).toThrow(message);
  });

  it('takes a port alone, a token alone, or both', () => {
    expect(load({ METRICS_PORT: '9100' })().metrics).toEqual({ port: 9100, token: undefined });
    expect(load({ METRICS_TOKEN: TOKEN })().metrics).toEqual({ port: undefined, token: TOKEN });
    expect(load({})().metrics).toBeUndefined();
  });
});
