import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Agent, get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILED_CLI } from '../bench/processes.js';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { runCommand, startInstance, stop, type Instance } from './support/processes.js';

// Regression tests for issue 24, rows 8 and 14 (second half): one client flooding the service with reads the
// response cache cannot answer (hundreds of connections of random searches, or a few of feeds with random
// passwords) took the others down, and requests shed before routing left no log line. Each scenario runs against a
// compiled server process with the default limits, as `npm start` runs it; TRUST_PROXY lets the test be several
// clients (X-Forwarded-For). The flood runs in a worker thread, so that this process reads the server's log as it
// comes. Latencies are compared with the same reads made just before the flood, on the same (shared) machine.

const API = '/wp-json/calendar/events/v1';
const GREEDY = '203.0.113.66';
const POLITE = '198.51.100.7';
const FEED_PASSWORD = 'feed-secret-7Hq';
const FLOOD_S = 14;
/** The flood's first seconds are left to reach its steady state; the polite client reads in the rest of it. */
const WARM_UP_MS = 2500;
const POLITE_MS = 8000;
const POLITE_TIMEOUT_MS = 10_000;
const REFUSAL_REASONS = ['client_over_share', 'overloaded', 'password_guesses', 'sign_in_failures'];

let dir: string;
let database: TestDatabase;
let instance: Instance;
let protectedId: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-fair-shedding-'));
  database = await freshDatabase(dir);
  // The demo calendar (320 events from today on): every list and feed below does real work. Its administrator
  // (`demo`) gets a password to add a protected event with.
  const cli = (...args: string[]) =>
    runCommand(process.execPath, [COMPILED_CLI, ...args], {
      DATABASE_URL: database.url,
      CALENDAR_ADMIN_PASSWORD: '',
      LOG_LEVEL: 'warn',
    });
  const seeded = await cli('seed');
  expect(seeded.code, seeded.stderr).toBe(0);
  const issued = await cli('passwords', 'create', 'demo');
  expect(issued.code, issued.stderr).toBe(0);
  const secret = /^\w{4}( \w{4}){5}$/m.exec(issued.stdout)?.[0];
  expect(secret, issued.stdout).toBeDefined();
  instance = await startInstance(database.url, { TRUST_PROXY: 'true', LOG_LEVEL: 'info' });
  const day = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
  const mutation = `mutation { createEvent(input: { title: "Members only", startDate: "${day} 18:00", endDate: "${day} 20:00", status: PUBLISH, password: "${FEED_PASSWORD}" }) { databaseId } }`;
  const created = await fetch(`${instance.base}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`demo:${secret}`).toString('base64')}`,
    },
    body: JSON.stringify({ query: mutation }),
  });
  const result = (await created.json()) as { data: { createEvent: { databaseId: number } } };
  protectedId = result.data.createEvent.databaseId;
  expect(protectedId, JSON.stringify(result)).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  if (instance) await stop(instance);
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Read {
  status: number | 'timeout';
  ms: number;
}

/**
 * A GET over `agent`'s one kept-alive connection, as a browser or an API client keeps its own. (A connection opened
 * while a flood opens hundreds waits until Node has accepted those: one per turn of its busy event loop. That is the
 * kernel's and Node's queue, before the service sees any request; see docs/limits-and-security.md.)
 */
function get(agent: Agent, path: string, headers: Record<string, string>, timeoutMs: number): Promise<Read> {
  const started = performance.now();
  return new Promise((resolve) => {
    const request = httpGet(`${instance.base}${path}`, { agent, headers, timeout: timeoutMs }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode!, ms: performance.now() - started }));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', () => resolve({ status: 'timeout', ms: performance.now() - started }));
  });
}

const politeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
afterAll(() => {
  politeAgent.destroy();
  healthAgent.destroy();
});

let politeReads = 0;
/** One read of the polite client: a list the response cache cannot answer (a query of its own), with its request ID. */
function politeRead(): Promise<Read> {
  const n = ++politeReads;
  return get(
    politeAgent,
    `${API}/events?per_page=10&search=e&polite=${n}`,
    { 'x-forwarded-for': POLITE, 'x-request-id': `polite-${n}` },
    POLITE_TIMEOUT_MS,
  );
}

async function politeReadsFor(ms: number): Promise<Read[]> {
  const reads: Read[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    reads.push(await politeRead());
    await sleep(50);
  }
  return reads;
}

/** Probes /healthz every 250 ms while `running`; `reads` holds the probes so far. */
function healthLatenciesWhile(running: () => boolean): Promise<Read[]> & { reads: Read[] } {
  const reads: Read[] = [];
  const done = (async () => {
    while (running()) {
      reads.push(await get(healthAgent, '/healthz', {}, POLITE_TIMEOUT_MS));
      await sleep(250);
    }
    return reads;
  })();
  return Object.assign(done, { reads });
}

interface LogLine {
  msg: string;
  durationMs?: number;
  requestId?: string;
  status?: number;
  reason?: string;
  droppedLines?: number;
}

const parsed: LogLine[] = [];
let readChunks = 0;
let partialLine = '';
/** The server's log lines so far (read once each: there are tens of thousands). */
function logLines(): LogLine[] {
  const text = partialLine + instance.output.slice(readChunks).join('');
  readChunks = instance.output.length;
  const lines = text.split('\n');
  partialLine = lines.pop()!;
  for (const line of lines) if (line.startsWith('{')) parsed.push(JSON.parse(line) as LogLine);
  return parsed;
}

/**
 * Floods the server from GREEDY (`connections` at once, each sending the next request as soon as it has the answer
 * to the last, Retry-After or not) with `path`, where every `[<id>]` is a new random ID (also the request's
 * X-Request-ID), while the polite client reads and /healthz is probed.
 */
async function underFlood(connections: number, path: string) {
  for (let n = 0; n < 3; n++) await politeRead(); // warm, and its connection open
  let probing = true;
  const health = healthLatenciesWhile(() => probing);
  const baseline = await politeReadsFor(2000);
  const flood = autocannon({
    url: `${instance.base}${path}`,
    workers: 1,
    connections,
    duration: FLOOD_S,
    timeout: 30,
    idReplacement: true,
    headers: { 'x-forwarded-for': GREEDY, 'x-request-id': 'greedy-[<id>]' },
  }) as unknown as PromiseLike<autocannon.Result>;
  await sleep(WARM_UP_MS);
  const floodHealthFrom = health.reads.length;
  const reads = await politeReadsFor(POLITE_MS);
  const floodHealthTo = health.reads.length;
  const result = await flood;
  probing = false;
  const greedy = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count ?? 0]),
  ) as Record<string, number>;
  // The server logs asynchronously: wait until it has written a line for every answer the flood counted.
  const answered = Object.values(greedy).reduce((sum, count) => sum + count, 0);
  for (
    let waited = 0;
    waited < 20_000 && logLines().filter((line) => line.requestId?.startsWith('greedy-')).length < answered;
    waited += 200
  )
    await sleep(200);
  return {
    baseline,
    reads,
    health: (await health).slice(floodHealthFrom, floodHealthTo),
    greedy,
    result,
    lines: logLines(),
  };
}

function expectFairness(outcome: Awaited<ReturnType<typeof underFlood>>) {
  const { baseline, reads, health, greedy, result, lines } = outcome;
  const served = new Map(
    lines
      .filter((line) => line.requestId?.startsWith('polite-'))
      .map((line) => [line.requestId, Math.round(line.durationMs!)]),
  );
  const summary = `server-side ${[...served.values()].slice(-reads.length).join(' ')} ms; baseline ${baseline.map((read) => Math.round(read.ms)).join(' ')} ms; under the flood ${reads.map((read) => `${read.status}:${Math.round(read.ms)}`).join(' ')}; greedy ${JSON.stringify(greedy)}; health ${health.map((read) => Math.round(read.ms)).join(' ')} ms`;
  // The polite client is served, every time, without waiting for the flood.
  expect(reads.length, summary).toBeGreaterThanOrEqual(5);
  expect(
    reads.filter((read) => read.status !== 200),
    summary,
  ).toEqual([]);
  // Not waiting for the flood (15 s) means well under a second; on CI's two busy cores a polite read under the flood
  // took up to 600 ms (median), so the bound is one second.
  expect(median(reads.map((read) => read.ms)), summary).toBeLessThan(
    Math.max(10 * median(baseline.map((read) => read.ms)), 1000),
  );
  // /healthz keeps answering at once.
  expect(health.length, summary).toBeGreaterThanOrEqual(5);
  expect(
    health.filter((read) => read.status !== 200),
    summary,
  ).toEqual([]);
  expect(Math.max(...health.map((read) => read.ms)), summary).toBeLessThan(3000);
  // The greedy client is refused (429: its own excess), at once rather than by timing out.
  expect(greedy['429'] ?? 0, summary).toBeGreaterThan(0);
  expect(result.timeouts, summary).toBe(0);
  expect(result.errors, summary).toBe(0);
  // Every request has its line, a refused one with its reason; none was dropped.
  expect(lines.filter((line) => line.droppedLines !== undefined)).toEqual([]);
  const greedyLines = lines.filter((line) => line.requestId?.startsWith('greedy-'));
  for (const status of Object.keys(greedy)) {
    expect(
      greedyLines.filter((line) => String(line.status) === status).length,
      `lines of ${status}s; ${summary}`,
    ).toBeGreaterThanOrEqual(greedy[status]!);
  }
  const refusedLines = greedyLines.filter((line) => line.status === 429 || line.status === 503);
  expect(
    refusedLines.filter((line) => !REFUSAL_REASONS.includes(line.reason!)),
    summary,
  ).toEqual([]);
  const politeLines = lines.filter((line) => line.requestId?.startsWith('polite-'));
  expect(politeLines.length).toBeGreaterThanOrEqual(baseline.length + reads.length);
  return refusedLines;
}

describe('one client flooding the service (24.8, 24.14)', () => {
  it('with hundreds of connections of random searches is refused with 429, while another client is served and every refusal is logged', async () => {
    const outcome = await underFlood(400, `${API}/events?per_page=10&search=[<id>]`);
    const refused = expectFairness(outcome);
    expect(new Set(refused.map((line) => line.reason))).toEqual(new Set(['client_over_share']));
  }, 90_000);

  it('with a few connections of a feed with random passwords is refused with 429, while another client is served and every refusal is logged', async () => {
    const feed = await fetch(`${instance.base}${API}/events.ics?password=${FEED_PASSWORD}`, {
      headers: { 'x-forwarded-for': '192.0.2.99' },
    });
    expect(await feed.text()).toContain('Members only');
    const refused = expectFairness(await underFlood(8, `${API}/events.ics?password=[<id>]`));
    expect(refused.filter((line) => line.reason !== 'client_over_share' && line.reason !== 'password_guesses')).toEqual(
      [],
    );
  }, 90_000);
});

describe('wrong passwords of a protected event (24.8)', () => {
  const guess = (address: string, password: string, path = `/events/${protectedId}`) =>
    fetch(`${instance.base}${API}${path}?password=${encodeURIComponent(password)}`, {
      headers: { 'x-forwarded-for': address },
    });

  it('count as failed sign-ins of the address: past SIGNIN_FAILURES_PER_ADDRESS it gets 429 before any check, other addresses do not', async () => {
    const guesser = '192.0.2.50';
    for (let n = 0; n < 30; n++) expect((await guess(guesser, `wrong-${n}`)).status).toBe(403);
    const refused = await guess(guesser, 'wrong-again');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toEqual({
      code: 'rest_too_many_password_attempts',
      message: expect.stringMatching(/^Too many wrong passwords from this address\. Try again in \d+ seconds\.$/),
      data: { status: 429 },
    });
    // The right password too, the feeds too, and GraphQL's `password` arguments: nothing is checked any more.
    expect((await guess(guesser, FEED_PASSWORD)).status).toBe(429);
    expect((await guess(guesser, 'wrong', '/events.ics')).status).toBe(429);
    const graphql = await fetch(`${instance.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': guesser },
      body: JSON.stringify({ query: `{ event(id: ${protectedId}, password: "${FEED_PASSWORD}") { title } }` }),
    });
    expect(graphql.status).toBe(429);
    expect((await graphql.json()).errors[0].extensions).toEqual({
      code: 'RATE_LIMITED',
      retryAfter: expect.any(Number),
    });
    // Reads without a password are served; another address may still guess, and the right password opens the event.
    expect(
      (await fetch(`${instance.base}${API}/events/${protectedId}`, { headers: { 'x-forwarded-for': guesser } })).status,
    ).toBe(403);
    expect((await guess('192.0.2.51', FEED_PASSWORD)).status).toBe(200);
    const lines = logLines().filter((line) => line.status === 429 && line.reason === 'password_guesses');
    expect(lines.length).toBeGreaterThanOrEqual(4);
  });
});

describe('a refused EventSource (24.8)', () => {
  let full: Instance;
  let fullDatabase: TestDatabase;
  const stalled: Socket[] = [];
  beforeAll(async () => {
    fullDatabase = await freshDatabase(dir);
    full = await startInstance(fullDatabase.url, { TRUST_PROXY: 'true', MAX_IN_FLIGHT: '1' });
    // Two requests whose bodies never come hold the process at twice MAX_IN_FLIGHT: the next request is refused, 503.
    for (const address of ['192.0.2.70', '192.0.2.71']) {
      const socket = connect(Number(new URL(full.base).port), '127.0.0.1');
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${address}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
      );
      stalled.push(socket);
    }
    await sleep(300);
  }, 60_000);
  afterAll(async () => {
    for (const socket of stalled) socket.destroy();
    if (full) await stop(full);
    await fullDatabase?.drop();
  });

  it('is told to come back (200 with retry), as EventSource gives up on any other status; other clients get the 503', async () => {
    const subscription = encodeURIComponent('subscription { changed { type } }');
    const eventSource = await fetch(`${full.base}/graphql?query=${subscription}`, {
      headers: { accept: 'text/event-stream', 'x-forwarded-for': '192.0.2.72' },
    });
    expect(eventSource.status).toBe(200);
    expect(eventSource.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await eventSource.text()).toBe(': The service is busy; try again shortly.\nretry: 1000\n\n');
    const plain = await fetch(`${full.base}/graphql?query=${subscription}`, {
      headers: { accept: 'application/json', 'x-forwarded-for': '192.0.2.72' },
    });
    expect(plain.status).toBe(503);
    expect((await plain.json()).errors[0].extensions.code).toBe('SERVICE_OVERLOADED');
  });
});
