import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILED_CLI } from '../bench/processes.js';
import { freshDatabase, querySql, TEST_ENGINE, type TestDatabase } from './support/database.js';
import { type Instance, runCommand, startInstance, stop } from './support/processes.js';
import { call } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

// A site as an import source (issue 31): the REST API of another instance of this service, found out from its REST
// root or from a WordPress page's Link header, imported at once and kept in line with the site on later runs
// (renamed, trashed, unchanged writes nothing), events edited here kept when the source says so, and a run held by
// one process at a time, however long it takes.

const dir = mkdtempSync(join(tmpdir(), 'calendar-site-source-'));
let origin: TestServer;
/** A WordPress-like front page naming the origin's REST root in its Link header, and a slow way to the origin. */
let front: Server;
let frontUrl: string;
/** Milliseconds the front waits before passing a request under /slow/ on to the origin. */
let slowMs = 0;
/** The front answers the site's event lists with a 500 (a site that fails part of a run). */
let failEventLists = false;
const slowRequests: string[] = [];
const ids: Record<string, number> = {};
const databases: TestDatabase[] = [];

async function newDatabase(): Promise<TestDatabase> {
  const database = await freshDatabase(mkdtempSync(join(dir, 'db-')));
  databases.push(database);
  return database;
}

const cli = (database: TestDatabase, args: string[], env: Record<string, string> = {}) =>
  runCommand(process.execPath, [COMPILED_CLI, ...args], {
    DATABASE_URL: database.url,
    CALENDAR_ADMIN_PASSWORD: '',
    OUTBOUND_ALLOW_PRIVATE: '127.0.0.1',
    ...env,
  });

async function created(route: string, json: Record<string, unknown>): Promise<number> {
  const answer = await call(origin, 'POST', route, { json });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.id;
}

const eventsOf = (database: TestDatabase) =>
  querySql(database.url, `SELECT title, status FROM "Event" WHERE "recurringEventId" IS NULL ORDER BY title`);

const changes = async (database: TestDatabase) =>
  Number((await querySql(database.url, 'SELECT count(*) AS n FROM "Change"'))[0]!.n);

beforeAll(async () => {
  origin = await startServer();
  ids.venue = await created('/venues', { venue: 'Kulturbrauerei', city: 'Berlin', country: 'Germany' });
  ids.jazz = await created('/events', {
    title: 'Jazz night',
    timezone: 'Europe/Berlin',
    start_date: '2030-03-29 20:00:00',
    end_date: '2030-03-29 23:00:00',
    venue: ids.venue,
    categories: ['Music'],
  });
  ids.poetry = await created('/events', {
    title: 'Poetry slam',
    timezone: 'America/New_York',
    start_date: '2030-04-02 19:00:00',
    end_date: '2030-04-02 21:00:00',
  });
  ids.choir = await created('/events', {
    title: 'Weekly choir',
    timezone: 'Europe/Berlin',
    start_date: '2030-03-18 19:00:00',
    end_date: '2030-03-18 21:00:00',
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
  });
  front = createServer(async (request, response) => {
    if (request.url === '/') {
      response.writeHead(200, {
        'content-type': 'text/html; charset=UTF-8',
        link: `<${origin.url}/wp-json/>; rel="https://api.w.org/"`,
      });
      return void response.end('<!doctype html><title>A WordPress site</title>');
    }
    if (!request.url?.startsWith('/slow/')) return void response.writeHead(404).end();
    slowRequests.push(request.url);
    await new Promise((resolve) => setTimeout(resolve, slowMs));
    if (failEventLists && /\/events\?/.test(request.url)) {
      response.writeHead(500, { 'content-type': 'application/json' });
      return void response.end('{"code":"internal_server_error","message":"Down for a moment"}');
    }
    const answer = await fetch(`${origin.url}${request.url.slice('/slow'.length)}`);
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(await answer.text());
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  front?.close();
  await origin?.close();
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe(`a site as an import source (${TEST_ENGINE})`, () => {
  it('imports the site at once, then follows it: unchanged writes nothing, an edit updates, a deletion trashes', async () => {
    const database = await newDatabase();
    const root = `${origin.url}/wp-json/`;
    const added = await cli(database, ['sources', 'add', root, '--every', '1h', '--category', 'From the site']);
    expect(added.stderr).toBe('');
    expect(added.stdout).toContain(`Added source 1: ${root}, every 3600 s.`);
    // A venue, a category (and the one the source adds), three events, of which one a series of three.
    expect(added.stdout).toContain('Source 1: created 8, updated 0, trashed 0, unchanged 0, skipped 0, failed 0.');
    expect((await cli(database, ['sources', 'list'])).stdout).toMatch(/^1 +site +http/m);
    const reader = await startServer({}, { databaseOf: { databaseUrl: database.url } });
    try {
      const listed = await call(reader, 'GET', '/events', {
        query: { start_date: '2030-01-01', end_date: '2030-12-31', per_page: 50 },
      });
      expect(listed.body.events.map((event: { title: string }) => event.title)).toEqual([
        'Weekly choir',
        'Weekly choir',
        'Jazz night',
        'Weekly choir',
        'Poetry slam',
      ]);
      const jazz = listed.body.events.find((event: { title: string }) => event.title === 'Jazz night');
      expect(jazz).toMatchObject({ start_date: '2030-03-29 20:00:00', timezone: 'Europe/Berlin' });
      expect(jazz.venue.venue).toBe('Kulturbrauerei');
      expect(jazz.categories.map((category: { name: string }) => category.name).sort()).toEqual([
        'From the site',
        'Music',
      ]);
    } finally {
      await reader.close();
    }

    const before = await changes(database);
    const again = await cli(database, ['sources', 'run', '1']);
    expect(again.stdout).toContain('created 0, updated 0, trashed 0, unchanged 8, skipped 0, failed 0');
    expect(await changes(database)).toBe(before);

    expect(
      (await call(origin, 'POST', `/events/${ids.jazz}`, { json: { title: 'Jazz night (sold out)' } })).status,
    ).toBe(200);
    expect((await call(origin, 'DELETE', `/events/${ids.poetry}`)).status).toBe(200);
    const followed = await cli(database, ['sources', 'run', '1']);
    expect(followed.stdout).toContain('created 0, updated 1, trashed 1, unchanged 6, skipped 0, failed 0');
    expect(await eventsOf(database)).toEqual([
      expect.objectContaining({ title: 'Jazz night (sold out)', status: 'publish' }),
      expect.objectContaining({ title: 'Poetry slam', status: 'trash' }),
      expect.objectContaining({ title: 'Weekly choir', status: 'publish' }),
    ]);
    // Back at the source: out of the trash here.
    expect((await call(origin, 'POST', `/events/${ids.poetry}`, { json: { status: 'publish' } })).status).toBe(200);
    const back = await cli(database, ['sources', 'run', '1']);
    expect(back.stdout).toContain('updated 1, trashed 0');
    expect((await eventsOf(database)).find((event) => event.title === 'Poetry slam')!.status).toBe('publish');

    // A whole series trashed at the source: its master here, and its occurrences with it.
    expect((await call(origin, 'DELETE', `/events/${ids.choir}`)).status).toBe(200);
    const seriesGone = await cli(database, ['sources', 'run', '1']);
    // The master counted: its occurrences, answered by the source no more either, are in the trash with it.
    expect(seriesGone.stdout, seriesGone.stderr).toContain('created 0, updated 0, trashed 1, unchanged 4, skipped 0');
    const choir = await querySql(database.url, `SELECT status FROM "Event" WHERE title = 'Weekly choir'`);
    expect(choir.map((event) => event.status)).toEqual(['trash', 'trash', 'trash', 'trash']);
    expect((await call(origin, 'POST', `/events/${ids.choir}`, { json: { status: 'publish' } })).status).toBe(200);
  }, 120_000);

  it('finds a site from its front page, keeps what was edited here and what left the site, when told to', async () => {
    const database = await newDatabase();
    const added = await cli(database, ['sources', 'add', `${frontUrl}/`, '--local-edits', 'keep', '--missing', 'keep']);
    expect(added.stderr).toBe('');
    expect(added.stdout).toContain('Source 1: created 8,');
    // Known from now on by the REST root the page named.
    expect((await cli(database, ['sources', 'list'])).stdout).toContain(`site  ${origin.url}/wp-json/`);
    const [jazz] = await querySql(database.url, `SELECT id FROM "Event" WHERE title LIKE 'Jazz night%'`);
    const reader = await startServer({}, { databaseOf: { databaseUrl: database.url } });
    try {
      const renamed = await call(reader, 'POST', `/events/${jazz!.id}`, { json: { title: 'Jazz night, our way' } });
      expect(renamed.status, renamed.text).toBe(200);
    } finally {
      await reader.close();
    }
    await call(origin, 'POST', `/events/${ids.jazz}`, { json: { title: 'Jazz night (moved upstairs)' } });
    await call(origin, 'DELETE', `/events/${ids.poetry}`);
    // A category whose event count changed here when its events came (no edit of it) follows the site.
    const [music] = (await call(origin, 'GET', '/categories', { query: { search: 'Music' } })).body.categories;
    await call(origin, 'POST', `/categories/${music.id}`, { json: { name: 'Live music' } });
    const run = await cli(database, ['sources', 'run', '1']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('created 0, updated 1, trashed 0, unchanged 5, skipped 1, failed 0');
    const [category] = await querySql(database.url, `SELECT name FROM "Term" WHERE slug = 'music'`);
    expect(category!.name).toBe('Live music');
    expect(run.stdout).toMatch(/event \d+ "Jazz night \(moved upstairs\)": edited here since it was imported: kept/);
    expect(run.stdout).toMatch(/event \d+: no longer on the site \(kept here\): GET .*HTTP 4\d\d/);
    expect((await eventsOf(database)).map((event) => `${event.title} ${event.status}`)).toEqual([
      'Jazz night, our way publish',
      'Poetry slam publish',
      'Weekly choir publish',
    ]);
    await call(origin, 'POST', `/events/${ids.poetry}`, { json: { status: 'publish' } });
  }, 120_000);

  it('refuses a private address without OUTBOUND_ALLOW_PRIVATE, and a URL that is neither feed nor site', async () => {
    const database = await newDatabase();
    const refused = await cli(database, ['sources', 'add', `${origin.url}/wp-json/`, '--kind', 'site'], {
      OUTBOUND_ALLOW_PRIVATE: '',
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^Error: source 1: .*may not be fetched: its host is a private or local/);
    const nothing = await cli(database, ['sources', 'add', `${frontUrl}/nothing-here`]);
    expect(nothing.stderr.trim()).toMatch(/^Error: source 2: the URL could not be fetched: the server answered 404$/);
    const webcalSite = await cli(database, ['sources', 'add', 'webcal://example.org/wp-json/', '--kind', 'site']);
    expect(webcalSite.stderr.trim()).toBe(
      'Error: a site is read over http or https: give its REST root, e.g. https://example.org/wp-json/',
    );
  }, 60_000);

  it('fails a run whose event list the site does not answer, trashing nothing it did not see, and tries again', async () => {
    const database = await newDatabase();
    const added = await cli(database, [
      'sources',
      'add',
      `${frontUrl}/slow/wp-json/`,
      '--kind',
      'site',
      '--every',
      '1h',
    ]);
    expect(added.stdout).toContain('Source 1: created 8,');
    failEventLists = true;
    const failed = await cli(database, ['sources', 'run', '1']).finally(() => {
      failEventLists = false;
    });
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toMatch(
      /^Error: source 1: the site did not answer 1 list page\(s\), first events page 1 \(GET .*HTTP 500 internal_server_error: Down for a moment\); nothing it did not list was trashed$/,
    );
    expect(failed.stdout).toContain('unchanged 2,');
    const [source] = await querySql(
      database.url,
      'SELECT failures, "lastError" AS error, "nextRunAt" AS next FROM "ImportSource"',
    );
    expect(source!.failures).toBe(1);
    expect(String(source!.error)).toContain('list page(s)');
    const wait = new Date(source!.next as string | number).getTime() - Date.now();
    expect(wait).toBeGreaterThan(30_000);
    expect(wait).toBeLessThanOrEqual(60_000);
    expect(await querySql(database.url, `SELECT id FROM "Event" WHERE status = 'trash'`)).toEqual([]);
    const recovered = await cli(database, ['sources', 'run', '1']);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(recovered.stdout).toContain('created 0, updated 0, trashed 0, unchanged 8, skipped 0, failed 0');
    const [after] = await querySql(database.url, 'SELECT failures, "lastError" AS error FROM "ImportSource"');
    expect(after).toEqual({ failures: 0, error: null });
  }, 60_000);

  it('runs a site once at a time: not beside a run in another process, not twice when a run outlasts the lease', async () => {
    const database = await newDatabase();
    const added = await cli(database, ['sources', 'add', `${frontUrl}/slow/wp-json/`, '--kind', 'site']);
    expect(added.code, added.stderr).toBe(0);
    // A slow run in one process: `sources run` in another says so, and leaves it alone.
    slowMs = 300;
    slowRequests.length = 0;
    let firstDone = false;
    const first = cli(database, ['sources', 'run', '1']).finally(() => {
      firstDone = true;
    });
    while (slowRequests.length === 0 && !firstDone) await new Promise((resolve) => setTimeout(resolve, 50));
    const busy = await cli(database, ['sources', 'run', '1']);
    expect(busy.code).toBe(1);
    expect(busy.stderr.trim()).toBe('Error: source 1 is being run by another process; try again when it is done');
    const firstRun = await first;
    expect(firstRun.code, firstRun.stderr).toBe(0);

    // Two servers; the scheduling lease lasts 300 ms, each request to the site takes 250 ms: the run outlasts the
    // lease many times, and the other server, taking the lease over, finds the source due but held.
    slowMs = 250;
    const env = { FEED_CHECK_MS: '100', WEBHOOK_LEASE_MS: '300', OUTBOUND_ALLOW_PRIVATE: '127.0.0.1' };
    const servers: Instance[] = await Promise.all([startInstance(database.url, env), startInstance(database.url, env)]);
    try {
      slowRequests.length = 0;
      await querySql(database.url, `UPDATE "ImportSource" SET "nextRunAt" = "createdAt" WHERE id = 1`);
      const lastRun = async () => {
        const [row] = await querySql(
          database.url,
          `SELECT "lastRunAt" AS at, "claimedUntil" AS claimed, "lastError" AS error FROM "ImportSource"`,
        );
        return { claimed: row!.claimed, error: row!.error, at: String(row!.at) };
      };
      const before = (await lastRun()).at;
      // Done: recorded, and the source given up (just after).
      const done = (row: Awaited<ReturnType<typeof lastRun>>) => row.at !== before && row.claimed === null;
      for (let wait = 0; wait < 600 && !done(await lastRun()); wait++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const after = await lastRun();
      expect(after.at, servers.flatMap((server) => server.output).join('')).not.toBe(before);
      expect(after.error).toBeNull();
      expect(after.claimed).toBeNull();
      // Each list asked once: one run, in one process.
      const eventPages = slowRequests.filter((url) => /\/events\?/.test(url) && !url.includes('post_parent'));
      expect(eventPages.length, slowRequests.join('\n')).toBe(1);
      expect(slowRequests.length).toBeGreaterThan(4);
    } finally {
      slowMs = 0;
      await Promise.all(servers.map(stop));
    }
  }, 180_000);
});
