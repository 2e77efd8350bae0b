import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFloor, type RunningFloor } from '../bench/floor.js';
import { generateDatabase, type GeneratedData } from '../bench/generate.js';
import { runLoad } from '../bench/load.js';
import { checkResponse, firstDifference, REST, scenariosFor } from '../bench/scenarios.js';
import { loadConfig } from '../src/config.js';
import { createApp, listen, shutdown, type App } from '../src/server.js';

// The benchmark harness works (npm run bench measures; it never runs here): a small generated database, the floor
// answering the service's bytes, every scenario answering, and the load generator reporting a clean run. Always on
// SQLite, whatever engine the rest of the run uses: the benchmark measures the embedded default.

const SITE_URL = 'http://calendar.bench';
let dir: string;
let data: GeneratedData;
let app: App;
let server: Server;
let serviceUrl: string;
let floor: RunningFloor;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-bench-smoke-'));
  data = await generateDatabase(join(dir, 'bench.db'), 50);
  const databaseUrl = `file:${data.path}`;
  app = await createApp(loadConfig({ DATABASE_URL: databaseUrl, SITE_URL, PORT: '0', HOST: '127.0.0.1' }), { countQueries: true });
  server = await listen(app, 0, '127.0.0.1');
  serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  floor = await startFloor({ databaseUrl, siteUrl: SITE_URL });
});

afterAll(async () => {
  await floor?.close();
  if (server) await shutdown(server, app);
  rmSync(dir, { recursive: true, force: true });
});

const bytes = async (url: string) => {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
};

describe('benchmark harness', () => {
  it('generates the data set it describes', () => {
    expect(data.events).toBe(50);
    expect(data.venues).toBeGreaterThan(0);
    expect(data.sampleEventIds.length).toBeGreaterThan(0);
    expect(data.sampleEventSlugs).toHaveLength(data.sampleEventIds.length);
  });

  it('has a floor that answers the events list with the same bytes as the service', async () => {
    for (const path of [`${REST}/events`, `${REST}/events?per_page=50`]) {
      const [ours, theirs] = await Promise.all([bytes(serviceUrl + path), bytes(floor.url + path)]);
      expect(firstDifference(ours, theirs)).toBeNull();
      expect(JSON.parse(ours.toString()).events.length).toBeGreaterThan(0);
    }
  });

  it('has scenarios the service answers, REST and GraphQL', async () => {
    for (const scenario of scenariosFor(data)) {
      const request = scenario.requests[0]!;
      const response = await fetch(serviceUrl + request.path, { method: request.method ?? 'GET', headers: request.headers, body: request.body });
      const body = await response.text();
      // The filtered list may find nothing in 50 events; it must still answer.
      const problem = checkResponse(scenario, response.status, body);
      expect(problem === null || (scenario.id.endsWith('filtered') && problem === 'an empty list'), `${scenario.id}: ${problem}`).toBe(true);
    }
  });

  it('runs the load generator and reports a clean run', async () => {
    const result = await runLoad({ url: floor.url, connections: 2, duration: 1, requests: [{ path: `${REST}/events` }] });
    expect(result.requests).toBeGreaterThan(0);
    expect(result.rps).toBeGreaterThan(0);
    expect(result.p50).toBeGreaterThan(0);
    expect(result.p99).toBeGreaterThanOrEqual(result.p50);
    expect(result.errors + result.timeouts + result.non2xx).toBe(0);
  });
});
