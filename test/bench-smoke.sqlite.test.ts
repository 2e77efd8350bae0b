import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../bench/datasets.js';
import { startFloor, type RunningFloor } from '../bench/floor.js';
import { generateDatabase } from '../bench/generate.js';
import { PROJECT_ROOT } from '../bench/processes.js';
import { placeOf, SQLITE_PLACE } from '../bench/profile.js';
import type { Results } from '../bench/report.js';
import { firstDifference, REST, scenariosFor, selectScenarios } from '../bench/scenarios.js';
import { loadConfig } from '../src/config.js';
import { createApp, type App } from '../src/server.js';
import { TEST_POSTGRES_URL } from './support/database.js';

// The benchmark harness works (npm run bench measures; it never runs here): the floor answers the service's bytes
// and follows writes, and a tiny run of the whole harness over the `npm run seed` data runs every scenario, reports
// both floors, and fails what cannot be measured. On SQLite, whatever engine the rest of the run uses (the benchmark
// measures the embedded default), and a few scenarios on a PostgreSQL copy of the data (bench/postgres.ts). The seed and the servers run compiled (test/support/build.ts builds).
// It does not depend on the run's engine, so it runs once, in the SQLite project (named `.sqlite.test.ts`): run
// twice it cost the suite nearly four minutes.

const SITE_URL = 'http://calendar.bench';
/** Whether the suite runs with PostgreSQL (vitest.config.ts: TEST_ENGINES). */
const withPostgres = (process.env.TEST_ENGINES ?? 'sqlite,postgres').split(',').includes('postgres');
let dir: string;
let seedPath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-bench-smoke-'));
  seedPath = seedDatabase(join(dir, 'seed.db')).path;
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function bodies(app: App, floor: RunningFloor, path: string) {
  const ours = await app.fetch(new Request(`http://127.0.0.1${path}`));
  const theirs = await fetch(floor.url + path);
  expect([ours.status, theirs.status]).toEqual([200, 200]);
  return {
    ours: Buffer.from(await ours.arrayBuffer()),
    theirs: Buffer.from(await theirs.arrayBuffer()),
    total: theirs.headers.get('x-tec-total'),
  };
}

describe('benchmark floor', () => {
  it('answers the events list with the service bytes, on the seed data and generated data with protected events', async () => {
    const generated = await generateDatabase(join(dir, 'generated.db'), 1000);
    const protectedEvents = new Database(generated.path, { readonly: true })
      .prepare(`SELECT count(*) FROM Event WHERE password != ''`)
      .pluck()
      .get();
    expect(protectedEvents).toBeGreaterThan(0);
    for (const path of [seedPath, generated.path]) {
      const databaseUrl = `file:${path}`;
      const app = await createApp(
        loadConfig({ DATABASE_URL: databaseUrl, SITE_URL, PORT: '0', LOG_LEVEL: 'warn', RESPONSE_CACHE_MB: '0' }),
      );
      const floor = await startFloor({ databaseUrl, siteUrl: SITE_URL });
      try {
        for (const query of ['', '?per_page=50', '?page=2', '?page=4&per_page=50']) {
          const { ours, theirs } = await bodies(app, floor, `${REST}/events${query}`);
          expect(firstDifference(ours, theirs), `${path} ${query}`).toBeNull();
          expect(JSON.parse(ours.toString()).events.length).toBeGreaterThan(0);
        }
      } finally {
        await floor.close();
        await app.close();
      }
    }
  });

  it('generates the recurring-series data set as series the service reads, IDs shared with venues and organizers', async () => {
    const generated = await generateDatabase(join(dir, 'series.db'), 200, { seriesOccurrences: 2500 });
    expect(generated.events).toBe(200 + 2500 + 2);
    const app = await createApp(
      loadConfig({
        DATABASE_URL: `file:${generated.path}`,
        SITE_URL,
        PORT: '0',
        LOG_LEVEL: 'warn',
        RESPONSE_CACHE_MB: '0',
      }),
    );
    try {
      const list = await (
        await app.fetch(new Request(`http://127.0.0.1${REST}/events?per_page=50&search=Daily%20class`))
      ).json();
      const occurrence = list.events.find((event: { recurring_event_id?: number }) => event.recurring_event_id);
      expect(occurrence, 'an occurrence in the list').toBeDefined();
      const master = await (
        await app.fetch(new Request(`http://127.0.0.1${REST}/events/${occurrence.recurring_event_id}`))
      ).json();
      expect(master.recurrence[0]).toMatch(/^RRULE:FREQ=DAILY;/);
      const venues = await (await app.fetch(new Request(`http://127.0.0.1${REST}/venues?per_page=50`))).json();
      expect(venues.venues.map((venue: { id: number }) => venue.id)).not.toContain(occurrence.id);
    } finally {
      await app.close();
    }
  });

  it('remembers the list total only while the data version stays the same', async () => {
    const path = join(dir, 'written.db');
    copyFileSync(seedPath, path);
    const databaseUrl = `file:${path}`;
    const app = await createApp(
      loadConfig({ DATABASE_URL: databaseUrl, SITE_URL, PORT: '0', LOG_LEVEL: 'warn', RESPONSE_CACHE_MB: '0' }),
    );
    const floor = await startFloor({ databaseUrl, siteUrl: SITE_URL });
    const writer = new Database(path);
    try {
      const before = await bodies(app, floor, `${REST}/events`);
      const first = JSON.parse(before.theirs.toString()).events[0].id as number;
      // A writer the floor does not know of: the data-version triggers tell it.
      writer.prepare('UPDATE Event SET hideFromListings = 1 WHERE id = ?').run(first);
      const after = await bodies(app, floor, `${REST}/events`);
      expect(Number(after.total)).toBe(Number(before.total) - 1);
      expect(firstDifference(after.ours, after.theirs)).toBeNull();
      expect(JSON.parse(after.theirs.toString()).events[0].id).not.toBe(first);
    } finally {
      writer.close();
      await floor.close();
      await app.close();
    }
  });
});

/** Stand-ins for the parts of a data set and credentials that do not change which scenarios exist. */
const credentials = { basic: 'Basic x', bearer: 'Bearer y', editor: 'Basic z' };
const data = { sampleEventIds: [1], sampleEventSlugs: ['a'], filterCategory: 'music', filterSearch: 'night' };

describe('benchmark scenarios', () => {
  it('selects scenarios by ID and leaves out -IDs, refusing unknown ones', () => {
    const all = scenariosFor(data, credentials);
    expect(selectScenarios(all, undefined)).toHaveLength(all.length);
    expect(selectScenarios(all, 'rest-list-10,rest-list-10-304').map((s) => s.id)).toEqual([
      'rest-list-10',
      'rest-list-10-304',
    ]);
    expect(selectScenarios(all, '-rest-list-10-304').map((s) => s.id)).not.toContain('rest-list-10-304');
    expect(selectScenarios(all, '-rest-list-10-304')).toHaveLength(all.length - 1);
    expect(() => selectScenarios(all, 'rest-list-11')).toThrow(/unknown scenarios: rest-list-11/);
  });
});

describe('benchmark profiles', () => {
  it('count a sample where its code lives, a builtin where it was called from', () => {
    const at = (url: string, functionName = 'f') => placeOf({ functionName, url });
    expect(at('file:///app/node_modules/@prisma/client/runtime/client.js')).toBe('@prisma/client');
    expect(at('file:///app/node_modules/graphql/execution/execute.js')).toBe('graphql');
    expect(at('file:///app/node_modules/better-sqlite3/lib/methods/wrappers.js')).toBe(SQLITE_PLACE);
    expect(at('file:///app/src/db/sqlite-adapter.ts')).toBe(SQLITE_PLACE);
    expect(at('file:///app/src/graphql/events/type.ts')).toBe('src/graphql/');
    expect(at('file:///app/src/server.ts')).toBe('src/server.ts');
    expect(at('node:internal/deps/undici/undici')).toBe('Node.js (HTTP objects, streams, buffers)');
    expect(at('', 'stringify')).toBeNull();
    expect(at('', '(garbage collector)')).toBe('garbage collection');
  });
});

describe('benchmark harness', () => {
  it('runs every scenario on the seed data and reports ratios to both floors', async () => {
    const out = join(dir, 'out');
    const env = {
      ...process.env,
      BENCH_SIZES: 'seed',
      BENCH_DURATION: '0.2',
      BENCH_WARMUP: '0',
      BENCH_CONCURRENCY: '1,2',
      BENCH_DRAIN: '1',
      BENCH_PROFILE_SECONDS: '0.3',
      // The PostgreSQL rows on the suite's PostgreSQL, unless the suite runs without one (TEST_ENGINES=sqlite).
      BENCH_ENGINES: withPostgres ? 'sqlite,postgres' : 'sqlite',
      BENCH_POSTGRES_URL: TEST_POSTGRES_URL,
      BENCH_OUT: out,
    };
    mkdirSync(out);
    const { code, output } = await new Promise<{ code: number | null; output: string }>((done) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts'], {
        cwd: PROJECT_ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
      child.on('exit', (code) => done({ code, output }));
    });
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Results;
    const [size] = results.sizes;
    expect(size!.source).toBe('seed');
    expect(size!.byteCheck.map((check) => check.identical)).toEqual([true, true]);

    // The service answers conditional requests only when it sends an ETag: then the 304 scenario is measured,
    // otherwise it fails, loudly, rather than measuring 200s.
    const app = await createApp(
      loadConfig({ DATABASE_URL: `file:${seedPath}`, SITE_URL, PORT: '0', LOG_LEVEL: 'warn' }),
    );
    const etag = await app
      .fetch(new Request(`http://127.0.0.1${REST}/events`))
      .then((response) => response.headers.get('etag'));
    await app.close();
    const expected = selectScenarios(scenariosFor(data, credentials), undefined);
    for (const scenario of expected) {
      const failure = size!.failed.find((failed) => failed.scenario === scenario.id);
      if (scenario.conditional && !etag) {
        expect(failure?.reason, scenario.id).toMatch(/without an ETag header/);
        continue;
      }
      expect(failure, `${scenario.id}: ${failure?.reason}`).toBeUndefined();
      const runs = size!.runs.filter((run) => run.scenario === scenario.id);
      expect(
        runs.map((run) => run.concurrency),
        scenario.id,
      ).toEqual([1, 2]);
      for (const run of runs) {
        expect(run.requests, scenario.id).toBeGreaterThan(0);
        expect(run.errors + run.unexpected, scenario.id).toBe(0);
        expect(run.ratioToFloor, scenario.id).toBeGreaterThan(0);
        expect(run.ratioToStatic, scenario.id).toBeGreaterThan(0);
      }
    }
    // The floor answers a page of 10 and a page of 50 (each page size of the service is judged against its own).
    expect(size!.floor.runs.map((run) => [run.scenario, run.concurrency, run.unexpected, run.errors])).toEqual([
      ['floor-list-10', 1, 0, 0],
      ['floor-list-10', 2, 0, 0],
      ['floor-list-50', 1, 0, 0],
      ['floor-list-50', 2, 0, 0],
    ]);
    expect(size!.staticFloor.runs.map((run) => [run.concurrency, run.unexpected, run.errors])).toEqual([
      [1, 0, 0],
      [2, 0, 0],
    ]);
    const list50 = size!.runs.find((run) => run.scenario === 'rest-list-50' && run.concurrency === 1);
    const floor50 = size!.floor.runs.find((run) => run.scenario === 'floor-list-50' && run.concurrency === 1);
    expect(list50!.ratioToFloor).toBeCloseTo(list50!.rps / floor50!.rps, 6);
    // Each uncached scenario profiled in process: its time per request, and shares that add up to the whole.
    for (const id of ['rest-list-10', 'rest-list-50', 'gql-month-view', 'rest-event-id']) {
      const profile = size!.profiles[id]!;
      expect(profile.requests, id).toBeGreaterThan(0);
      expect(profile.msPerRequest, id).toBeGreaterThan(0);
      expect(
        profile.shares.reduce((sum, entry) => sum + entry.share, 0),
        id,
      ).toBeCloseTo(1, 6);
      expect(
        profile.shares.map((entry) => entry.place),
        id,
      ).toContain(SQLITE_PLACE);
    }
    expect(readFileSync(join(out, 'results.md'), 'utf8')).toContain('## Where the time goes');
    // The uncached lists and the month view on a PostgreSQL copy, each against a SQLite run just before it.
    if (withPostgres) {
      const postgres = size!.postgres!;
      expect(postgres.runs.map((run) => [run.scenario, run.concurrency, run.unexpected, run.errors])).toEqual(
        ['rest-list-10', 'rest-list-50', 'gql-month-view'].flatMap((id) => [
          [id, 1, 0, 0],
          [id, 2, 0, 0],
        ]),
      );
      for (const run of postgres.runs) expect(run.ratioToSqlite).toBeCloseTo(run.rps / run.sqliteRps, 6);
      for (const id of ['rest-list-10', 'rest-list-50']) expect(postgres.queries[id], id).toBe(size!.queries[id]);
      expect(results.targets.filter((target) => target.id === 'rest-list-10-postgres')).toHaveLength(2);
    } else {
      expect(size!.postgres).toBeNull();
    }
    expect(code, output.slice(-2000)).toBe(size!.failed.length ? 1 : 0);

    const markdown = readFileSync(join(out, 'results.md'), 'utf8');
    for (const column of [
      'c1 req/s',
      'c1 p50 ms',
      'c1 p99 ms',
      'c1 vs floor',
      'c1 vs static',
      'c2 vs floor',
      'c2 vs static',
      'SQL/req',
    ]) {
      expect(markdown).toContain(`| ${column} |`);
    }
    expect(markdown).toMatch(/\| Floor: events list, per_page 10 \| 5 \|/);
    expect(markdown).toMatch(/\| Static floor: the same bytes from memory \| 0 \|/);
    expect(markdown).toContain('Cached anonymous REST events list');
  }, 400_000);
});
