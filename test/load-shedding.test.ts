import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { refusalAnswer } from '../src/limits/admission.js';
import { rest, startInstance, stop, type Instance } from './support/processes.js';

// A process that cannot keep up sheds load (429 or 503 + Retry-After at once) instead of timing everyone out, and its
// health check keeps answering. The server runs as `npm start` runs it, in a process of its own, with the default
// limits. All requests come from one address here: the flood is that client's own excess, answered 429. Fairness
// between clients is tested in test/security-audit-2-shedding.test.ts.

const API = '/wp-json/calendar/events/v1';
const MIN_FLOOD_S = 6;
const MAX_FLOOD_S = 40;
let dir: string;
let database: TestDatabase;
let instance: Instance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-shedding-'));
  database = await freshDatabase(dir);
  instance = await startInstance(database.url);
  for (let n = 0; n < 40; n++) {
    const created = await rest(instance, 'POST', '/events', {
      title: `Load ${n}`,
      description: 'x'.repeat(2000),
      start_date: `2031-02-${String((n % 27) + 1).padStart(2, '0')} 10:00:00`,
      end_date: `2031-02-${String((n % 27) + 1).padStart(2, '0')} 12:00:00`,
      venue: { venue: `Hall ${n}`, city: 'Oslo' },
    });
    expect(created.status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  if (instance) await stop(instance);
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('under 500 connections of cache-busting reads', () => {
  it('answers /healthz within 3 s throughout, sheds REST and GraphQL with 429 + Retry-After in their shapes, and serves normally afterwards', async () => {
    const healthLatencies: number[] = [];
    const shed: { rest?: { body: string; retryAfter: string }; graphql?: string } = {};
    let loading = true;
    const probe = (async () => {
      while (loading) {
        const started = performance.now();
        const response = await fetch(`${instance.base}/healthz`);
        expect(response.status).toBe(200);
        healthLatencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const statuses = new Map<number, number>();
    let n = 0;
    // The flood lasts at least MIN_FLOOD_S, and on until some reads were served (at most MAX_FLOOD_S): how long the
    // first requests a process takes need to finish depends on the machine, not on whether it sheds correctly.
    const flood = (connections: number, request: autocannon.Request) =>
      // At run time the tracker autocannon answers is both stoppable and awaitable; its types know only the latter.
      autocannon({
        url: instance.base,
        connections,
        duration: MAX_FLOOD_S,
        timeout: 20,
        requests: [request],
      }) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    // A new query every time: the response cache cannot answer, every request does the real work.
    const floods = [
      flood(400, {
        method: 'GET',
        setupRequest: (request) => ({
          ...request,
          path: `${API}/events?per_page=50&start_date=2031-01-01&search=Load&cb=${++n}`,
        }),
        onResponse: (status, body, _context, headers) => {
          count(status);
          if (status === 429)
            shed.rest ??= { body: String(body), retryAfter: (headers as Record<string, string>)['retry-after']! };
        },
      }),
      flood(100, {
        method: 'GET',
        headers: { accept: 'application/json' },
        setupRequest: (request) => ({
          ...request,
          path: `/graphql?query=${encodeURIComponent(`{ events(first: 20) { totalCount edges { node { title } } } } # ${++n}`)}`,
        }),
        onResponse: (status, body) => {
          count(status);
          if (status === 429) shed.graphql ??= String(body);
        },
      }),
    ];
    const floodStarted = performance.now();
    while (performance.now() - floodStarted < MIN_FLOOD_S * 1000 || !statuses.get(200)) {
      if (performance.now() - floodStarted > MAX_FLOOD_S * 1000) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const run of floods) run.stop();
    const [restRun, graphqlRun] = await Promise.all(floods);
    loading = false;
    await probe;
    for (const run of [restRun, graphqlRun]) {
      expect(run.errors, 'no connection errors').toBe(0);
      expect(run.timeouts, 'no timeouts').toBe(0);
    }
    expect(statuses.get(200) ?? 0, 'some reads were served').toBeGreaterThan(0);
    expect(
      [...statuses.keys()].filter((status) => status !== 200 && status !== 429),
      'served or shed as its own excess, nothing else',
    ).toEqual([]);
    // Whether the process fell behind enough to shed depends on the machine; when it did, the answers are these.
    if (shed.rest) {
      expect(shed.rest.retryAfter).toBe('1');
      expect(JSON.parse(shed.rest.body)).toEqual({
        code: 'rest_client_over_share',
        message: 'This client is sending more than its share while the service is busy; try again shortly.',
        data: { status: 429 },
      });
    }
    if (shed.graphql)
      expect(JSON.parse(shed.graphql).errors[0].extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: 1 });
    expect(healthLatencies.length).toBeGreaterThanOrEqual(3);
    expect(
      Math.max(...healthLatencies),
      `health latencies ${healthLatencies.map(Math.round).join(', ')} ms`,
    ).toBeLessThan(3000);
    // Once the flood is over, the process serves again within a moment.
    let after = 503;
    for (let attempt = 0; attempt < 50 && after !== 200; attempt++) {
      after = (await fetch(`${instance.base}${API}/events?per_page=5&start_date=2031-01-01`)).status;
      if (after !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(after).toBe(200);
  }, 90_000);

  it('answers a shed GraphQL request as GraphQL errors with a code, a REST one as its REST error', () => {
    const rest = (status: 429 | 503) => ({ code: `rest_${status}`, message: `Busy ${status}.`, data: { status } });
    const overloaded = refusalAnswer('/graphql', 503, rest);
    expect(overloaded.status).toBe(503);
    expect(overloaded.headers['retry-after']).toBe('1');
    expect(JSON.parse(overloaded.body)).toEqual({
      errors: [{ message: 'Busy 503.', extensions: { code: 'SERVICE_OVERLOADED' } }],
    });
    expect(JSON.parse(refusalAnswer('/graphql', 429, rest).body)).toEqual({
      errors: [{ message: 'Busy 429.', extensions: { code: 'RATE_LIMITED', retryAfter: 1 } }],
    });
    expect(JSON.parse(refusalAnswer('/wp-json/calendar/events/v1/events', 429, rest).body)).toEqual(rest(429));
  });
});
