// `import`: copying a The Events Calendar site into this service over its REST API.
// (a) From a second instance of this service, filled through its API and read through `calendar/events/v1`; the
//     records are compared through the REST API of both. Re-runs, changes on the source and a stopped run.
// (b) From recorded responses in the original's format (`tribe/events/v1`, test/fixtures/tec-import/), served by a
//     small node:http server that can fail on cue; the CLI runs as a child process there.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/credentials.js';
import { loadConfig, type Config } from '../src/config.js';
import { createDb } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { linesProgress, type Outcome } from '../src/import/progress.js';
import type { RecordType } from '../src/import/remote.js';
import { runImport, type ImportOptions, type ImportSummary } from '../src/import/run.js';
import { freshDatabase, runSql, type TestDatabase } from './support/database.js';
import { createCategory, createEvent, createOrganizer, createTag, createVenue } from './support/factories.js';
import { readUntil, runSourceCli, type CommandRun } from './support/processes.js';
import { call } from './support/rest.js';
import { ADMIN_AUTHORIZATION, startServer, TEST_ADMIN_PASSWORD, type TestServer } from './support/server.js';
import { startImageServer, type ImageServer } from './support/image-server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/tec-import/', import.meta.url));
const SLOW = 120_000;
const TYPES: RecordType[] = ['category', 'tag', 'venue', 'organizer', 'event'];

// ---------------------------------------------------------------------------------------------------------------
// Targets: a fresh database to import into, and a server over it to read the result back through REST.

interface Target {
  config: Config;
  database: TestDatabase;
  /** A server over the target database (started on first use). */
  server(): Promise<TestServer>;
  close(): Promise<void>;
}

async function newTarget(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-import-'));
  const database = await freshDatabase(dir);
  const config = loadConfig({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1' });
  // The administrator the checks sign in as, made before an import adds its own (the importer): CALENDAR_ADMIN_PASSWORD
  // only bootstraps the first administrator of a database, so the test server could not make it afterwards.
  await migrate(config);
  const db = createDb(config);
  try {
    await bootstrapAdmin(db, TEST_ADMIN_PASSWORD, { warn: () => undefined });
  } finally {
    await db.$disconnect();
  }
  let server: TestServer | undefined;
  return {
    config,
    database,
    async server() {
      server ??= await startServer({ DATABASE_URL: database.url });
      return server;
    },
    async close() {
      await server?.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs an import in process, collecting what it shows. */
async function importInto(target: Target, options: ImportOptions): Promise<ImportSummary & { lines: string[] }> {
  const lines: string[] = [];
  const summary = await runImport(target.config, {
    minRetryDelayMs: 10,
    ...options,
    progress: linesProgress((line) => lines.push(line)),
  });
  return { ...summary, lines };
}

/** The CLI as a child process (stdout is a pipe, not a terminal). `onSpawn` may kill it. */
const cli = (args: string[], env: Record<string, string>, onSpawn?: (kill: () => void) => void): Promise<CommandRun> =>
  runSourceCli(['import', ...args], env, onSpawn);

// ---------------------------------------------------------------------------------------------------------------
// Reading a whole calendar back through REST, as comparable values: IDs replaced by slugs, site URLs left out.

async function listAll(
  server: TestServer,
  route: string,
  key: string,
  query: Record<string, unknown> = {},
): Promise<any[]> {
  const records: any[] = [];
  for (let page = 1; ; page++) {
    const response = await call(server, 'GET', route, {
      query: { ...query, per_page: 50, page },
      headers: { authorization: ADMIN_AUTHORIZATION },
    });
    expect(response.status, `${route} page ${page}: ${response.text}`).toBe(200);
    records.push(...response.body[key]);
    if (page >= response.body.total_pages) return records;
  }
}

const bySlug = <T extends { slug: string }>(records: T[]) => [...records].sort((a, b) => a.slug.localeCompare(b.slug));
const slugs = (records: any[] | undefined) => (records ?? []).map((record) => record.slug);

/** An image object less what differs between sites: its ID, and the smaller copies WordPress makes (`sizes`). */
const imageFacts = (image: any) => (image ? (({ id: _id, sizes: _sizes, ...facts }) => facts)(image) : false);

function comparableEvent(event: any) {
  const venues = Array.isArray(event.venue) ? event.venue : [event.venue];
  return {
    slug: event.slug,
    title: event.title,
    status: event.status,
    description: event.description,
    excerpt: event.excerpt,
    date_utc: event.date_utc,
    all_day: event.all_day,
    start_date: event.start_date,
    end_date: event.end_date,
    utc_start_date: event.utc_start_date,
    utc_end_date: event.utc_end_date,
    timezone: event.timezone,
    timezone_abbr: event.timezone_abbr,
    cost: event.cost,
    cost_details: event.cost_details,
    // Without a website of its own, an event answers its own page, whose host differs between the two servers.
    website: event.website.endsWith(`/event/${event.slug}/`) ? '' : event.website,
    image: imageFacts(event.image),
    show_map: event.show_map,
    show_map_link: event.show_map_link,
    hide_from_listings: event.hide_from_listings,
    sticky: event.sticky,
    featured: event.featured,
    ticketed: event.ticketed,
    venue: slugs(venues.filter((venue: any) => venue?.slug)),
    organizer: slugs(event.organizer),
    categories: slugs(event.categories).sort(),
    tags: slugs(event.tags).sort(),
  };
}

async function calendarOf(server: TestServer) {
  const categories = await listAll(server, '/categories', 'categories', { hide_empty: false });
  const categorySlug = new Map(categories.map((category) => [category.id, category.slug]));
  // Venues and organizers as the REST API answers them, less what differs between sites (IDs, URLs, author,
  // modification dates); an image by its URL.
  const post = ({
    id,
    author,
    url,
    global_id,
    global_id_lineage,
    modified,
    modified_utc,
    date,
    json_ld,
    image,
    ...kept
  }: any) => ({
    ...kept,
    ...(image ? { image: imageFacts(image) } : {}),
  });
  return {
    categories: bySlug(
      categories.map((c) => ({
        name: c.name,
        slug: c.slug,
        description: c.description,
        count: c.count,
        parent: categorySlug.get(c.parent) ?? null,
      })),
    ),
    tags: bySlug(
      (await listAll(server, '/tags', 'tags', { hide_empty: false })).map((t) => ({
        name: t.name,
        slug: t.slug,
        description: t.description,
        count: t.count,
      })),
    ),
    venues: bySlug((await listAll(server, '/venues', 'venues')).map(post)),
    organizers: bySlug((await listAll(server, '/organizers', 'organizers')).map(post)),
    events: bySlug(
      (await listAll(server, '/events', 'events', { start_date: '1970-01-01', end_date: '2100-12-31' })).map(
        comparableEvent,
      ),
    ),
  };
}

function totals(calendar: Awaited<ReturnType<typeof calendarOf>>): Record<RecordType, number> {
  return {
    category: calendar.categories.length,
    tag: calendar.tags.length,
    venue: calendar.venues.length,
    organizer: calendar.organizers.length,
    event: calendar.events.length,
  };
}

/** Checks the outcomes named, for every record type (a type left out must be 0). */
function expectCounts(summary: ImportSummary, expected: Partial<Record<Outcome, Partial<Record<RecordType, number>>>>) {
  for (const [outcome, perType] of Object.entries(expected) as Array<[Outcome, Partial<Record<RecordType, number>>]>) {
    for (const type of TYPES) expect(summary.counts[type][outcome], `${outcome} ${type}`).toBe(perType[type] ?? 0);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// (a) From another instance of this service

describe('import from another instance (calendar/events/v1)', () => {
  let source: TestServer;
  let target: Target;
  let sourceRoot: string;
  // The source fetches the images given to it; the target keeps what the source says of them, never fetching (its
  // configuration refuses 127.0.0.1, where they are).
  let images: ImageServer;
  const withCredentials = { user: 'admin', password: TEST_ADMIN_PASSWORD };
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    images = await startImageServer();
    source = await startServer();
    sourceRoot = `${source.url}/wp-json/`;
    const music = await createCategory(source, { name: 'Music', description: 'Live music of every kind' });
    const jazz = await createCategory(source, { name: 'Jazz', parentId: music.id });
    const bebop = await createCategory(source, { name: 'Bebop', parentId: jazz.id, description: 'Fast and dense' });
    const family = await createCategory(source, { name: 'Family' });
    const free = await createTag(source, { name: 'Free entry' });
    const outdoor = await createTag(source, { name: 'Outdoor', description: 'Bring a coat' });
    const berlin = await createVenue(source, {
      name: 'Kulturbrauerei',
      address: 'Schönhauser Allee 36',
      city: 'Berlin',
      country: 'Germany',
      zip: '10435',
      phone: '+49 30 44352170',
      website: 'https://kulturbrauerei.example',
      latitude: 52.5388,
      longitude: 13.4131,
      image: images.image('jpg', 40, 30),
      description: '<p>A former brewery.</p>',
      excerpt: 'Berlin',
    });
    const tokyo = await createVenue(source, {
      name: 'Blue Note Tokyo',
      city: 'Tokyo',
      country: 'Japan',
      showMap: false,
      showMapLink: false,
    });
    const ana = await createOrganizer(source, {
      name: 'Ana Events',
      email: 'ana@example.com',
      phone: '+1 555 0100',
      website: 'https://ana.example',
    });
    const bo = await createOrganizer(source, { name: 'Bo Presents', description: '<p>Bo.</p>' });
    ids.berlin = berlin.id;
    const events = [
      {
        title: 'Bebop night',
        timezone: 'Europe/Berlin',
        startDate: '2030-03-29 20:00:00',
        endDate: '2030-03-29 23:30:00',
        venues: [{ id: berlin.id }],
        organizers: [{ id: bo.id }, { id: ana.id }],
        categories: [String(bebop.id), String(music.id)],
        tags: [String(free.id)],
        featured: true,
        cost: '€15',
        currencyCode: 'EUR',
        website: 'https://tickets.example/bebop',
        image: images.image('png', 16, 9),
        excerpt: 'Late and loud',
        description: '<p>Three sets &amp; a jam.</p>',
        date: '2029-12-01 09:30:00',
      },
      {
        title: 'Tokyo session',
        timezone: 'Asia/Tokyo',
        startDate: '2030-05-10 19:00:00',
        endDate: '2030-05-10 21:00:00',
        venues: [{ id: tokyo.id }],
        organizers: [{ id: bo.id }],
        categories: [String(jazz.id)],
        sticky: true,
        cost: '3000 ¥',
      },
      {
        title: 'Summer fair',
        timezone: 'America/New_York',
        allDay: true,
        startDate: '2030-07-04',
        endDate: '2030-07-06',
        categories: [String(family.id)],
        tags: [String(outdoor.id), String(free.id)],
        showMap: false,
      },
      {
        title: 'Unannounced gig',
        status: 'DRAFT',
        timezone: 'Australia/Sydney',
        startDate: '2030-09-01 18:00:00',
        endDate: '2030-09-01 22:00:00',
        venues: [{ id: berlin.id }],
        organizers: [{ id: ana.id }],
      },
      {
        title: 'Archive concert',
        timezone: 'UTC',
        startDate: '2019-05-01 19:00:00',
        endDate: '2019-05-01 21:00:00',
        categories: [String(music.id)],
      },
    ];
    for (const input of events) ids[input.title] = (await createEvent(source, input)).id;
    target = await newTarget();
  }, SLOW);

  afterAll(async () => {
    await target?.close();
    await source?.close();
    await images?.close();
  });

  it(
    'copies every record with its dates, zones, flags, links and hierarchy, parents first',
    async () => {
      const run = await importInto(target, { root: sourceRoot, ...withCredentials, perPage: 2 });
      const expected = await calendarOf(source);
      expect(run.namespace).toBe('calendar/events/v1');
      expect(run.authenticated).toBe(true);
      expect(run.failures).toEqual([]);
      expectCounts(run, { created: totals(expected), updated: {}, unchanged: {}, failed: {} });
      const copy = await calendarOf(await target.server());
      expect(copy).toEqual(expected);
      // What the comparison covers, so it cannot pass on two empty calendars.
      expect(copy.categories.find((c) => c.slug === 'bebop')!.parent).toBe('jazz');
      expect(copy.events.find((e) => e.slug === 'unannounced-gig')!.status).toBe('draft');
      expect(copy.events.find((e) => e.slug === 'summer-fair')).toMatchObject({
        all_day: true,
        timezone: 'America/New_York',
        start_date: '2030-07-04 00:00:00',
        end_date: '2030-07-06 23:59:59',
      });
      expect(copy.events.find((e) => e.slug === 'bebop-night')).toMatchObject({
        venue: ['kulturbrauerei'],
        organizer: ['bo-presents', 'ana-events'],
        utc_start_date: '2030-03-29 19:00:00',
      });
      expect(run.lines).toContain(
        `events: ${expected.events.length} of ${expected.events.length} done (created ${expected.events.length}, updated 0, unchanged 0, failed 0)`,
      );
    },
    SLOW,
  );

  it(
    'creates nothing on a second run and reports every record unchanged',
    async () => {
      const before = await calendarOf(source);
      const run = await importInto(target, { root: sourceRoot, ...withCredentials });
      expect(run.failures).toEqual([]);
      expectCounts(run, { created: {}, updated: {}, unchanged: totals(before), failed: {}, missing: {} });
      expect(await calendarOf(await target.server())).toEqual(before);
    },
    SLOW,
  );

  it(
    'finishes a run killed half-way when started again, without duplicates',
    async () => {
      const stopped = await newTarget();
      // A proxy in front of the source that stops answering at the third page of events (one event a page): by then
      // the first page is written and the second is being written.
      const proxy = await startProxy(
        source.url,
        (url) => url.pathname.endsWith('/events') && url.searchParams.get('page') === '3',
      );
      try {
        const root = `${proxy.url}/wp-json/`;
        const killed = await cli(
          [root, '--user', 'admin', '--per-page', '1'],
          { DATABASE_URL: stopped.database.url, CALENDAR_IMPORT_PASSWORD: TEST_ADMIN_PASSWORD },
          (kill) => {
            void proxy.held.then(kill);
          },
        );
        expect(killed.signal).toBe('SIGKILL');
        expect(killed.stdout + killed.stderr).not.toContain(TEST_ADMIN_PASSWORD);
        expect(killed.stdout).toMatch(/^categories: \d+ of \d+ done/m);
        const written = await eventCount(stopped.config);
        expect(written).toBeGreaterThanOrEqual(1);
        // A stop between writing a record and saving its origin: the record exists, its origin does not.
        const db = createDb(stopped.config);
        await db.importOrigin.deleteMany({ where: { recordType: 'event' } });
        await db.$disconnect();

        proxy.holding = false;
        const expected = await calendarOf(source);
        const run = await importInto(stopped, { root, ...withCredentials, perPage: 1 });
        expect(run.failures).toEqual([]);
        expect(run.counts.event.updated).toBe(written); // taken over, not created again
        expect(run.counts.event.created).toBe(expected.events.length - written);
        expect(await calendarOf(await stopped.server())).toEqual(expected);
        expect(await eventCount(stopped.config)).toBe(expected.events.length);
      } finally {
        await proxy.close();
        await stopped.close();
      }
    },
    SLOW,
  );

  it(
    'updates on a third run what changed on the source, including an event hidden from listings since',
    async () => {
      await source.gqlOk(
        `mutation ($id: ID!) { updateEvent(id: $id, input: { title: "Bebop night (extended)", endDate: "2030-03-30 00:30:00" }) { id } }`,
        { id: ids['Bebop night'] },
      );
      await source.gqlOk(
        `mutation ($id: ID!) { updateVenue(id: $id, input: { city: "Berlin-Prenzlauer Berg", phone: "" }) { id } }`,
        { id: ids.berlin },
      );
      await source.gqlOk(`mutation ($id: ID!) { updateEvent(id: $id, input: { hideFromListings: true }) { id } }`, {
        id: ids['Tokyo session'],
      });
      const expected = await calendarOf(source);
      const run = await importInto(target, { root: sourceRoot, ...withCredentials });
      expect(run.failures).toEqual([]);
      expectCounts(run, {
        created: {},
        updated: { event: 2, venue: 1 },
        unchanged: { ...totals(expected), event: expected.events.length - 1, venue: expected.venues.length - 1 },
      });
      const targetServer = await target.server();
      // The import wrote through a client of its own: the running server sees it within the staleness bound.
      const sameAsExpected = (copy: unknown) => JSON.stringify(copy) === JSON.stringify(expected);
      expect(await readUntil(() => calendarOf(targetServer), sameAsExpected)).toEqual(expected);
      const hidden = await call(targetServer, 'GET', '/events/by-slug/tokyo-session', {
        headers: { authorization: ADMIN_AUTHORIZATION },
      });
      expect(hidden.body.hide_from_listings).toBe(true);
    },
    SLOW,
  );

  it('refuses credentials the source does not accept, without showing them', async () => {
    const refused = importInto(target, { root: sourceRoot, user: 'admin', password: 'not-the-password-31' });
    await expect(refused).rejects.toThrow(
      /^the site refused the credentials \(GET \/wp-json\/calendar\/events\/v1\/events\?.*HTTP 401 incorrect_password/,
    );
    await expect(refused).rejects.not.toThrow(/not-the-password-31/);
  });

  it(
    'imports only published records without credentials',
    async () => {
      const anonymousTarget = await newTarget();
      try {
        const run = await importInto(anonymousTarget, { root: sourceRoot });
        expect(run.authenticated).toBe(false);
        const published = (await calendarOf(source)).events.filter((e) => e.status === 'publish');
        expect(run.counts.event.created).toBe(published.length);
        const copy = await calendarOf(await anonymousTarget.server());
        expect(copy.events.map((e) => e.slug)).toEqual(published.map((e) => e.slug));
      } finally {
        await anonymousTarget.close();
      }
    },
    SLOW,
  );
});

async function eventCount(config: Config): Promise<number> {
  await migrate(config);
  const db = createDb(config);
  try {
    return await db.event.count();
  } finally {
    await db.$disconnect();
  }
}

interface Proxy {
  url: string;
  /** Resolves when the first request is held. */
  held: Promise<void>;
  holding: boolean;
  close(): Promise<void>;
}

/** Forwards to `upstream`; while `holding`, requests matching `hold` get no answer. */
async function startProxy(upstream: string, hold: (url: URL) => boolean): Promise<Proxy> {
  let resolveHeld!: () => void;
  const held = new Promise<void>((resolve) => (resolveHeld = resolve));
  const proxy: Proxy = { url: '', held, holding: true, close: async () => {} };
  const server = createServer(async (request, response) => {
    const url = new URL(request.url!, upstream);
    if (proxy.holding && hold(url)) return resolveHeld();
    const answer = await fetch(url, {
      headers: {
        accept: 'application/json',
        ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
      },
    });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return proxy;
}

describe('import of recurring series from another instance', () => {
  let source: TestServer;
  let target: Target;
  const credentials = { user: 'admin', password: TEST_ADMIN_PASSWORD };
  const window = { start_date: '2030-01-01', end_date: '2030-12-31' };
  let master: any;

  beforeAll(async () => {
    source = await startServer();
    const created = await call(source, 'POST', '/events', {
      json: {
        title: 'Weekly choir',
        timezone: 'Europe/Berlin',
        start_date: '2030-03-18 19:00:00',
        end_date: '2030-03-18 21:00:00',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
      },
    });
    expect(created.status, created.text).toBe(201);
    const occurrences = await listAll(source, '/events', 'events', window);
    // An exception (moved and retitled) and a deleted occurrence (an EXDATE of the series).
    const moved = await call(source, 'POST', `/events/${occurrences[1].id}`, {
      json: { title: 'Choir: open rehearsal', start_date: '2030-03-26 18:00:00', end_date: '2030-03-26 20:00:00' },
    });
    expect(moved.status, moved.text).toBe(200);
    expect((await call(source, 'DELETE', `/events/${occurrences[3].id}`)).status).toBe(200);
    master = (await call(source, 'GET', `/events/${created.body.id}`)).body;
    target = await newTarget();
  }, SLOW);

  afterAll(async () => {
    await target?.close();
    await source?.close();
  });

  const shown = (events: any[]) =>
    events.map((event) => [event.title, event.start_date, event.end_date, event.original_start_date]);

  it(
    'imports the series as a series: its master with the same recurrence, its occurrences made here, the exception kept',
    async () => {
      const run = await importInto(target, { root: `${source.url}/wp-json/`, ...credentials });
      expect(run.failures.map((failure) => `${failure.what}: ${failure.reason}`)).toEqual([]);
      // The master and the five occurrences the source lists.
      expect(run.counts.event).toMatchObject({ created: 6, failed: 0 });
      const server = await target.server();
      const copied = await listAll(server, '/events', 'events', window);
      expect(shown(copied)).toEqual(shown(await listAll(source, '/events', 'events', window)));
      expect(shown(copied)[1]).toEqual([
        'Choir: open rehearsal',
        '2030-03-26 18:00:00',
        '2030-03-26 20:00:00',
        '2030-03-25 19:00:00',
      ]);
      const seriesIds = new Set(copied.map((event) => event.recurring_event_id));
      expect(seriesIds.size).toBe(1);
      const local = (await call(server, 'GET', `/events/${[...seriesIds][0]}`)).body;
      expect(local.recurrence).toEqual(master.recurrence);
      expect(local.recurrence).toContain('EXDATE;TZID=Europe/Berlin:20300408T190000');
    },
    SLOW,
  );

  it(
    'answers unchanged for the series and its occurrences on a second run',
    async () => {
      const run = await importInto(target, { root: `${source.url}/wp-json/`, ...credentials });
      expect(run.failures).toEqual([]);
      expect(run.counts.event).toMatchObject({ created: 0, updated: 0, unchanged: 6, failed: 0 });
    },
    SLOW,
  );
});

// ---------------------------------------------------------------------------------------------------------------
// (b) From recorded responses of the original plugin

const fixture = (name: string) => JSON.parse(readFileSync(`${FIXTURES}${name}.json`, 'utf8'));

function fixtureHeaders(name: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of readFileSync(`${FIXTURES}${name}.headers.txt`, 'utf8').split(/\r?\n/).slice(1)) {
    const at = line.indexOf(':');
    const header = line.slice(0, at).trim().toLowerCase();
    if (at > 0 && !['transfer-encoding', 'connection', 'date', 'server'].includes(header))
      headers[header] = line.slice(at + 1).trim();
  }
  return headers;
}

interface TecSite {
  url: string;
  requests: URL[];
  /** Statuses answered (in order, once each) before the recorded response of a route, keyed `events?page=2`. */
  failures: Map<string, number[]>;
  close(): Promise<void>;
}

const TRIBE = '/wp-json/tribe/events/v1';

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A The Events Calendar site made of recorded responses: the namespace index, the lists, nothing else. `events`, when
 * given, answers the events list instead of the recorded pages.
 */
async function startTecSite(events?: (url: URL, page: number) => Answer): Promise<TecSite> {
  const site: TecSite = { url: '', requests: [], failures: new Map(), close: async () => {} };
  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=UTF-8' });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request: IncomingMessage, response) => {
    const url = new URL(request.url!, 'http://site');
    site.requests.push(url);
    const route = url.pathname.slice(TRIBE.length).replace(/\/$/, '');
    if (!url.pathname.startsWith(TRIBE))
      return send(response, 404, {
        code: 'rest_no_route',
        message: 'No route was found matching the URL and request method.',
        data: { status: 404 },
      });
    const page = Number(url.searchParams.get('page') ?? '1');
    const key = `${route.slice(1)}?page=${page}`;
    const failure = site.failures.get(key)?.shift();
    // 0 stands for a network failure: the connection is dropped without an answer.
    if (failure === 0) return void response.socket?.destroy();
    if (failure)
      return send(
        response,
        failure,
        { code: 'failure', message: `Recorded failure ${failure}`, data: { status: failure } },
        { 'retry-after': '0' },
      );
    if (route === '') return send(response, 200, fixture('namespace-index'));
    if (route === '/events' && events) {
      const answer = events(url, page);
      return send(response, answer.status, answer.body, answer.headers);
    }
    if (route === '/events') {
      const pages = fixture('events-page-1').total_pages;
      if (page > pages) return send(response, 404, fixture('events-page-beyond-last'));
      return send(response, 200, fixture(`events-page-${page}`), fixtureHeaders(`events-page-${page}`));
    }
    const list = route.slice(1);
    if (['venues', 'organizers', 'categories', 'tags'].includes(list) && page === 1)
      return send(response, 200, fixture(list), fixtureHeaders(list));
    return send(response, 404, {
      code: 'rest_no_route',
      message: 'No route was found matching the URL and request method.',
      data: { status: 404 },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () => new Promise((resolve) => server.close(() => resolve()));
  return site;
}

const recordedEvents = () => [1, 2, 3, 4].flatMap((page) => fixture(`events-page-${page}`).events as any[]);

describe('import from The Events Calendar (recorded tribe/events/v1 responses)', () => {
  let site: TecSite;
  let target: Target;

  beforeAll(async () => {
    site = await startTecSite();
    target = await newTarget();
  });

  afterAll(async () => {
    await target?.close();
    await site?.close();
  });

  it(
    'imports the recorded site from the CLI, retrying a 503 and reporting the malformed record',
    async () => {
      site.failures.set('events?page=2', [503]);
      site.failures.set('venues?page=1', [0]);
      const run = await cli([`${site.url}/wp-json/`, '--retries', '2'], { DATABASE_URL: target.database.url });
      expect(run.code, run.stderr).toBe(2);
      // Plain lines, not a progress bar: stdout is not a terminal.
      expect(run.stdout).not.toMatch(/\u001b\[/);
      expect(run.stdout).toContain('categories: 6 of 6 done (created 6, updated 0, unchanged 0, failed 0)');
      expect(run.stdout).toContain('events: 31 of 31 done (created 30, updated 0, unchanged 0, failed 1)');
      expect(run.stdout).toContain(`Import from ${site.url}/wp-json (tribe/events/v1, anonymously) finished in`);
      expect(run.stdout).toMatch(/^ {2}events\s+30\s+0\s+0\s+1\s+0$/m);
      expect(run.stdout).toMatch(
        /^Failed, not imported \(1\):\n {2}event 53 "Event 8: Match": "start_date" is missing or empty$/m,
      );
      expect(run.stderr).toMatch(
        /GET \/wp-json\/tribe\/events\/v1\/events\?.*page=2: HTTP 503 failure: Recorded failure 503; retrying \(attempt 2 of 3\)/,
      );
      expect(
        site.requests.filter((url) => url.pathname.endsWith('/events') && url.searchParams.get('page') === '2'),
      ).toHaveLength(2);
      // A dropped connection is retried like a 5xx.
      expect(run.stderr).toMatch(/GET \/wp-json\/tribe\/events\/v1\/venues\?.*page=1: .*; retrying \(attempt 2 of 3\)/);
      expect(
        site.requests.filter((url) => url.pathname.endsWith('/venues') && url.searchParams.get('page') === '1'),
      ).toHaveLength(2);
      expect(run.stdout).toContain('venues: 3 of 3 done (created 3, updated 0, unchanged 0, failed 0)');
      // Our namespace was tried first; TEC lists only upcoming events unless given a window; no statuses anonymously.
      expect(site.requests[0]!.pathname).toBe('/wp-json/calendar/events/v1');
      const eventsRequest = site.requests.find((url) => url.pathname.endsWith('/events'))!;
      expect(Object.fromEntries(eventsRequest.searchParams)).toMatchObject({
        start_date: '1970-01-01 00:00:00',
        end_date: '2100-12-31 23:59:59',
      });
      expect(eventsRequest.searchParams.has('status')).toBe(false);
    },
    SLOW,
  );

  it(
    'keeps what the recorded records say: titles, dates in their zones, flags, images, links, hierarchy',
    async () => {
      const server = await target.server();
      const copy = await calendarOf(server);
      const categories = fixture('categories').categories as any[];
      const parentSlug = (id: number) => categories.find((c) => c.id === id)?.slug ?? null;
      expect(copy.categories.map(({ count: _count, ...c }) => c)).toEqual(
        bySlug(
          categories.map((c) => ({
            name: c.name,
            slug: c.slug,
            description: c.description,
            parent: parentSlug(c.parent),
          })),
        ),
      );
      expect(copy.tags.map((t) => t.slug)).toEqual(bySlug(fixture('tags').tags).map((t: any) => t.slug));
      const withCoordinates = fixture('venues').venues.find((v: any) => v.id === 40);
      expect(copy.venues.find((v) => v.slug === withCoordinates.slug)).toMatchObject({
        geo_lat: 43.6591,
        geo_lng: -70.2568,
      });
      for (const venue of fixture('venues').venues) {
        const { id, author, url, global_id, global_id_lineage, modified, modified_utc, date, ...kept } = venue;
        expect(copy.venues.find((v) => v.slug === venue.slug)).toEqual(kept);
      }
      for (const organizer of fixture('organizers').organizers) {
        const { id, author, url, global_id, global_id_lineage, modified, modified_utc, date, ...kept } = organizer;
        expect(copy.organizers.find((o) => o.slug === organizer.slug)).toEqual(kept);
      }
      const recorded = recordedEvents().filter((event) => event.id !== 53);
      expect(copy.events.map((e) => e.slug)).toEqual(bySlug(recorded).map((e) => e.slug));
      for (const event of recorded) {
        const expected = comparableEvent(event);
        const actual = copy.events.find((e) => e.slug === event.slug)!;
        // Compared whole, except what TEC lacks (ticketed) and what this service derives itself: the currency found in
        // the cost text, and the zone's abbreviation (ICU's `UTC+9` where PHP says `JST`; the zone itself is compared).
        const derived = { ticketed: undefined, cost_details: actual.cost_details, timezone_abbr: actual.timezone_abbr };
        expect({ ...actual, ticketed: undefined }, event.slug).toEqual({ ...expected, ...derived });
      }
      expect(copy.events.find((e) => e.slug === 'event-7-tasting')).toMatchObject({
        all_day: true,
        timezone: 'Asia/Tokyo',
        utc_start_date: '2026-12-03 15:00:00',
      });
      // Kept with what the source says of it (it cannot be fetched: nothing listens there).
      expect(copy.events.find((e) => e.slug === 'event-3-match')!.image).toEqual({
        url: 'http://127.0.0.1:8080/wp-content/uploads/2026/11/match-poster.jpg',
        extension: 'jpg',
        width: 1200,
        height: 800,
        filesize: 84211,
      });
    },
    SLOW,
  );

  it(
    'answers unchanged for every record on a second run, and the malformed one failed again',
    async () => {
      const run = await importInto(target, { root: `${site.url}/wp-json/` });
      expect(run.namespace).toBe('tribe/events/v1');
      expectCounts(run, {
        created: {},
        updated: {},
        unchanged: { category: 6, tag: 4, venue: 3, organizer: 3, event: 30 },
        failed: { event: 1 },
      });
    },
    SLOW,
  );

  it(
    'shows one progress bar per record type when stdout is a terminal',
    async () => {
      const other = await newTarget();
      try {
        // `script` gives the CLI a pseudo-terminal, as a person running it would.
        const command = [process.execPath, '--import', 'tsx', 'src/cli.ts', 'import', `${site.url}/wp-json/`].join(' ');
        const run = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
          const child = spawn('script', ['-qfec', command, '/dev/null'], {
            cwd: ROOT,
            env: { ...process.env, CALENDAR_ADMIN_PASSWORD: '', DATABASE_URL: other.database.url },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let output = '';
          child.stdout.on('data', (chunk) => (output += chunk));
          child.on('error', reject);
          child.on('close', (code) => resolve({ code, output }));
        });
        expect(run.code, run.output).toBe(2);
        expect(run.output).toMatch(/\u001b\[/);
        for (const [label, total] of [
          ['categories', 6],
          ['tags', 4],
          ['venues', 3],
          ['organizers', 3],
          ['events', 31],
        ] as const) {
          expect(run.output).toMatch(new RegExp(`${label}\\s+\u2588{20}\\s+${total}/${total}\\s`));
        }
        expect(run.output).not.toContain('events: 31 of 31 done');
      } finally {
        await other.close();
      }
    },
    SLOW,
  );

  it(
    'does not retry a 403, and imports the records that list held from the events that embed them',
    async () => {
      const other = await newTarget();
      try {
        site.failures.set('tags?page=1', [429, 403]);
        site.requests.length = 0;
        const run = await importInto(other, { root: `${site.url}/wp-json/` });
        expect(site.requests.filter((url) => url.pathname.endsWith('/tags'))).toHaveLength(2);
        expect(run.failures[0]).toMatchObject({ type: 'tag', what: 'tags page 1' });
        expect(run.failures[0]!.reason).toMatch(/HTTP 403/);
        expect(run.counts.tag.created).toBe(4);
        const copy = await calendarOf(await other.server());
        expect(copy.events.find((e) => e.slug === 'event-1-workshop')!.tags).toEqual(['family']);
      } finally {
        await other.close();
      }
    },
    SLOW,
  );
});

// ---------------------------------------------------------------------------------------------------------------
// (b') From a The Events Calendar Pro site (legacy Pro): each occurrence of a series is an event of its own, the
//      children pointing at the first (their parent); the REST API shows that only through `events?post_parent=`.

interface ProSite extends TecSite {
  /** The site's events in start order, as its events list answers them; changed between runs. */
  events: any[];
  /** Each child's parent (its `post_parent`). */
  parents: Map<number, number>;
  /** Statuses answered to `post_parent=<id>` instead of its children (404: as older TEC versions answer no children). */
  refusals: Map<number, number>;
}

/** The recorded site, with an events list of its own that filters on `post_parent` as TEC's does. */
async function startProSite(): Promise<ProSite> {
  const state = { events: [] as any[], parents: new Map<number, number>(), refusals: new Map<number, number>() };
  const site = await startTecSite((url, page) => {
    const parent = url.searchParams.get('post_parent');
    const refusal = state.refusals.get(Number(parent));
    if (refusal === 404) return { status: 404, body: fixture('events-page-beyond-last') };
    if (refusal)
      return {
        status: refusal,
        body: { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: refusal } },
      };
    const perPage = Number(url.searchParams.get('per_page') ?? '10');
    const matching = state.events.filter((event) => parent === null || state.parents.get(event.id) === Number(parent));
    const totalPages = Math.ceil(matching.length / perPage);
    if (page > 1 && page > totalPages) return { status: 404, body: fixture('events-page-beyond-last') };
    const headers = { 'x-tec-total': String(matching.length), 'x-tec-totalpages': String(totalPages) };
    return {
      status: 200,
      body: {
        events: matching.slice((page - 1) * perPage, page * perPage),
        total: matching.length,
        total_pages: totalPages,
      },
      headers,
    };
  });
  return Object.assign(site, state);
}

/** An event as TEC answers it, made from a recorded one (its venue, organizer and terms): its own ID, title and times. */
function proEvent(id: number, title: string, zone: string, start: string, end: string, allDay = false) {
  const {
    start_date_details,
    end_date_details,
    utc_start_date_details,
    utc_end_date_details,
    timezone_abbr,
    ...recorded
  } = recordedEvents().find((event) => event.id === 47);
  const utc = (local: string) => DateTime.fromSQL(local, { zone }).toUTC().toFormat('yyyy-MM-dd HH:mm:ss');
  const slug = `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${id}`;
  return {
    ...recorded,
    id,
    title,
    slug,
    url: `http://127.0.0.1:8080/event/${slug}/`,
    rest_url: `http://127.0.0.1:8080/wp-json/tribe/events/v1/events/${id}`,
    all_day: allDay,
    timezone: zone,
    start_date: start,
    end_date: end,
    utc_start_date: utc(start),
    utc_end_date: utc(end),
  };
}

describe('import of The Events Calendar Pro series (occurrences sharing a parent)', () => {
  let site: ProSite;
  let target: Target;
  const window = { start_date: '2030-01-01', end_date: '2030-12-31' };
  const yoga = (id: number, day: string, title = 'Yoga by the lake') =>
    proEvent(id, title, 'Europe/Berlin', `${day} 10:00:00`, `${day} 11:00:00`);
  const fair = (id: number, day: string) =>
    proEvent(id, 'Harvest fair', 'America/New_York', `${day} 00:00:00`, `${day} 23:59:59`, true);

  beforeAll(async () => {
    site = await startProSite();
    site.events.push(
      // A weekly series across the change to summer time, one occurrence retitled on the source (an exception), one
      // deleted there (9 April).
      yoga(100, '2030-03-19'),
      yoga(101, '2030-03-26'),
      yoga(102, '2030-04-02', 'Yoga by the lake: guest teacher'),
      yoga(104, '2030-04-16'),
      // Two events that share a title and are no series.
      proEvent(110, 'Open mic', 'Europe/Berlin', '2030-05-01 20:00:00', '2030-05-01 22:00:00'),
      proEvent(111, 'Open mic', 'Europe/Berlin', '2030-06-05 20:00:00', '2030-06-05 22:00:00'),
      // An all-day series on irregular days.
      fair(120, '2030-09-14'),
      fair(121, '2030-09-15'),
      fair(122, '2030-09-17'),
    );
    for (const child of [101, 102, 104]) site.parents.set(child, 100);
    for (const child of [121, 122]) site.parents.set(child, 120);
    target = await newTarget();
  });

  afterAll(async () => {
    await target?.close();
    await site?.close();
  });

  const root = () => `${site.url}/wp-json/`;
  const parentRequests = () =>
    site.requests.filter((url) => url.pathname.endsWith('/events') && url.searchParams.has('post_parent'));
  const shown = (events: any[]) => events.map((event) => [event.title, event.start_date, event.original_start_date]);
  const read = async (route: string) =>
    (await call(await target.server(), 'GET', route, { headers: { authorization: ADMIN_AUTHORIZATION } })).body;

  it(
    'imports each series as a series: the parent a master whose recurrence gives its children, each child its occurrence',
    async () => {
      const run = await importInto(target, { root: root() });
      expect(run.failures).toEqual([]);
      expect(run.counts.event).toMatchObject({ created: 9, updated: 0, unchanged: 0, failed: 0 });
      // One request a group of events sharing a title, with the list's own window; the lone "Open mic" left is not asked.
      expect(parentRequests().map((url) => url.searchParams.get('post_parent'))).toEqual(['100', '110', '120']);
      expect(Object.fromEntries(parentRequests()[0]!.searchParams)).toMatchObject({
        start_date: '1970-01-01 00:00:00',
        end_date: '2100-12-31 23:59:59',
      });
      expect(site.requests.filter((url) => /\/events\/\d+$/.test(url.pathname))).toEqual([]);

      const list = await read(`/events?start_date=${window.start_date}&end_date=${window.end_date}&per_page=50`);
      expect(list.total).toBe(site.events.length);
      const copied = list.events as any[];
      const series = copied.filter((event) => event.title.startsWith('Yoga'));
      expect(shown(series)).toEqual([
        ['Yoga by the lake', '2030-03-19 10:00:00', '2030-03-19 10:00:00'],
        ['Yoga by the lake', '2030-03-26 10:00:00', '2030-03-26 10:00:00'],
        ['Yoga by the lake: guest teacher', '2030-04-02 10:00:00', '2030-04-02 10:00:00'],
        ['Yoga by the lake', '2030-04-16 10:00:00', '2030-04-16 10:00:00'],
      ]);
      expect(series.map((event) => event.utc_start_date)).toEqual([
        '2030-03-19 09:00:00',
        '2030-03-26 09:00:00',
        '2030-04-02 08:00:00',
        '2030-04-16 08:00:00',
      ]);
      expect(new Set(series.map((event) => event.recurring_event_id)).size).toBe(1);
      const master = await read(`/events/${series[0].recurring_event_id}`);
      // Weekly from the parent's start, less the week without an occurrence (shorter than the three dates as RDATEs).
      expect(master.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE;TZID=Europe/Berlin:20300409T100000']);
      expect(master.title).toBe('Yoga by the lake');

      const fairs = copied.filter((event) => event.title === 'Harvest fair');
      expect(fairs.map((event) => [event.all_day, event.start_date, event.original_start_date])).toEqual([
        [true, '2030-09-14 00:00:00', '2030-09-14 00:00:00'],
        [true, '2030-09-15 00:00:00', '2030-09-15 00:00:00'],
        [true, '2030-09-17 00:00:00', '2030-09-17 00:00:00'],
      ]);
      expect(new Set(fairs.map((event) => event.recurring_event_id)).size).toBe(1);
      expect((await read(`/events/${fairs[0].recurring_event_id}`)).recurrence).toEqual([
        'RDATE;VALUE=DATE:20300915,20300917',
      ]);

      const single = copied.filter((event) => event.title === 'Open mic');
      expect(single.map((event) => [event.start_date, event.recurring_event_id, event.recurrence])).toEqual([
        ['2030-05-01 20:00:00', undefined, []],
        ['2030-06-05 20:00:00', undefined, []],
      ]);
    },
    SLOW,
  );

  it(
    'answers unchanged for every event on a second run, asking the same parents again',
    async () => {
      site.requests.length = 0;
      const run = await importInto(target, { root: root() });
      expect(run.failures).toEqual([]);
      expect(run.counts.event).toMatchObject({ created: 0, updated: 0, unchanged: 9, failed: 0 });
      expect(parentRequests()).toHaveLength(3);
    },
    SLOW,
  );

  it(
    'adds a child new on the source to its series, keeping the occurrences and the exception',
    async () => {
      const before = (await read(`/events?start_date=${window.start_date}&end_date=${window.end_date}&per_page=50`))
        .events as any[];
      site.events.splice(4, 0, yoga(105, '2030-04-23'));
      site.parents.set(105, 100);
      const run = await importInto(target, { root: root() });
      expect(run.failures).toEqual([]);
      // The master (its recurrence) updated, the new child created.
      expect(run.counts.event).toMatchObject({ created: 1, updated: 1, unchanged: 8, failed: 0 });
      const list = await read(`/events?start_date=${window.start_date}&end_date=${window.end_date}&per_page=50`);
      expect(list.total).toBe(site.events.length);
      const series = (list.events as any[]).filter((event) => event.title.startsWith('Yoga'));
      expect(shown(series).slice(-2)).toEqual([
        ['Yoga by the lake', '2030-04-16 10:00:00', '2030-04-16 10:00:00'],
        ['Yoga by the lake', '2030-04-23 10:00:00', '2030-04-23 10:00:00'],
      ]);
      expect(series[2].title).toBe('Yoga by the lake: guest teacher');
      const kept = before.filter((event) => event.title.startsWith('Yoga')).map((event) => event.id);
      expect(series.slice(0, 4).map((event) => event.id)).toEqual(kept);
      expect((await read(`/events/${series[0].recurring_event_id}`)).recurrence).toEqual([
        'RRULE:FREQ=WEEKLY;COUNT=6',
        'EXDATE;TZID=Europe/Berlin:20300409T100000',
      ]);
    },
    SLOW,
  );

  it(
    'follows a parent changed alone on the source: the series takes its title, its children keep theirs',
    async () => {
      const before = (await read(`/events?start_date=${window.start_date}&end_date=${window.end_date}&per_page=50`))
        .events as any[];
      const parent = site.events[0];
      site.events[0] = { ...parent, title: 'Opening class' };
      try {
        site.requests.length = 0;
        const run = await importInto(target, { root: root() });
        expect(run.failures).toEqual([]);
        // The master, and its four children compared with it again (exceptions now, as they differ from it).
        expect(run.counts.event).toMatchObject({ created: 0, updated: 5, unchanged: 5, failed: 0 });
        // Asked as a series imported before, though no other event has its title now.
        expect(parentRequests().map((url) => url.searchParams.get('post_parent'))).toEqual(['100', '120', '110']);
        const after = (await read(`/events?start_date=${window.start_date}&end_date=${window.end_date}&per_page=50`))
          .events as any[];
        const series = after.filter((event) => event.recurring_event_id === before[0].recurring_event_id);
        expect(series.map((event) => [event.id, event.title])).toEqual([
          [before[0].id, 'Opening class'],
          [before[1].id, 'Yoga by the lake'],
          [before[2].id, 'Yoga by the lake: guest teacher'],
          [before[3].id, 'Yoga by the lake'],
          [before[4].id, 'Yoga by the lake'],
        ]);
      } finally {
        site.events[0] = parent;
      }
    },
    SLOW,
  );

  it(
    'keeps a series whose recurrence would be too long as consecutive series, losing none',
    async () => {
      const other = await newTarget();
      const big = await startProSite();
      try {
        // 1,200 daily occurrences, one in ten at 07:00 (the parent's time), the others at 08:00: off any step, those
        // need an RDATE each, more than one series here may hold (MAX_RECURRENCE_DATES, 1,000).
        const starts = Array.from(
          { length: 1200 },
          (_, i) =>
            `${DateTime.fromISO('2031-01-01').plus({ days: i }).toISODate()} ${i % 10 === 0 ? '07' : '08'}:00:00`,
        );
        big.events.push(
          ...starts.map((start, i) =>
            proEvent(10_000 + i, 'Daily swim', 'UTC', start, `${start.slice(0, 11)}09:00:00`),
          ),
        );
        for (let i = 1; i < starts.length; i++) big.parents.set(10_000 + i, 10_000);
        const run = await importInto(other, { root: `${big.url}/wp-json/` });
        expect(run.failures).toEqual([]);
        expect(run.counts.event).toMatchObject({ created: 1200, failed: 0 });
        const copied = await listAll(await other.server(), '/events', 'events', {
          start_date: '2031-01-01',
          end_date: '2034-12-31',
        });
        expect(copied.map((event) => [event.start_date, event.original_start_date])).toEqual(
          starts.map((start) => [start, start]),
        );
        const seriesIds = [...new Set(copied.map((event) => event.recurring_event_id))];
        const masters = await Promise.all(
          seriesIds.map(async (id) => (await call(await other.server(), 'GET', `/events/${id}`)).body),
        );
        // Whole, it would need 1,080 RDATEs beside a rule of every tenth day: cut after its first 1 + 1,000 occurrences
        // (a rule and 900 RDATEs), the remaining 199 a series of their own.
        expect(masters.map((master) => master.start_date)).toEqual([starts[0], starts[1001]]);
        expect(masters[0].recurrence[0]).toBe('RRULE:FREQ=DAILY;INTERVAL=10;COUNT=101');
      } finally {
        await big.close();
        await other.close();
      }
    },
    SLOW,
  );

  it(
    'reports the events of a group whose parent could not be asked, and takes a 404 for no children',
    async () => {
      const other = await newTarget();
      try {
        site.refusals.set(100, 403);
        site.refusals.set(110, 404);
        const run = await importInto(other, { root: root() });
        const yogaIds = [100, 101, 104, 105];
        expect(run.failures.map((failure) => failure.what)).toEqual(
          yogaIds.map((id) => `event ${id} "Yoga by the lake"`),
        );
        for (const failure of run.failures)
          expect(failure.reason).toMatch(
            /^could not ask the source whether it belongs to a series \(GET \S+post_parent=100\S*: HTTP 403 rest_forbidden/,
          );
        expect(run.counts.event).toMatchObject({
          created: site.events.length - yogaIds.length,
          failed: yogaIds.length,
        });
        const list = await call(await other.server(), 'GET', '/events', {
          query: { ...window, per_page: 50 },
          headers: { authorization: ADMIN_AUTHORIZATION },
        });
        const single = (list.body.events as any[]).filter((event) => event.title === 'Open mic');
        expect(single.map((event) => [event.start_date, event.recurring_event_id])).toEqual([
          ['2030-05-01 20:00:00', undefined],
          ['2030-06-05 20:00:00', undefined],
        ]);
      } finally {
        site.refusals.clear();
        await other.close();
      }
    },
    SLOW,
  );
});

// ---------------------------------------------------------------------------------------------------------------
// (c) --keep-ids: the source's IDs kept, or the import refused before it writes anything

describe('import --keep-ids (recorded tribe/events/v1 responses)', () => {
  let site: TecSite;

  beforeAll(async () => {
    site = await startTecSite();
  });
  afterAll(() => site?.close());

  const venues = () => fixture('venues').venues as Array<{ id: number; slug: string }>;
  const organizers = () => fixture('organizers').organizers as Array<{ id: number; slug: string }>;

  it(
    'gives the copies of events, venues and organizers their source IDs, links included, and numbers new records above them',
    async () => {
      const target = await newTarget();
      try {
        const run = await importInto(target, { root: `${site.url}/wp-json/`, keepIds: true });
        expect(run.failures).toEqual([
          { type: 'event', what: 'event 53 "Event 8: Match"', reason: '"start_date" is missing or empty' },
        ]);
        const server = await target.server();
        const read = (route: string) => call(server, 'GET', route, { headers: { authorization: ADMIN_AUTHORIZATION } });
        for (const venue of venues()) expect((await read(`/venues/${venue.id}`)).body.slug).toBe(venue.slug);
        for (const organizer of organizers())
          expect((await read(`/organizers/${organizer.id}`)).body.slug).toBe(organizer.slug);
        const events = recordedEvents().filter((event) => event.id !== 53);
        for (const event of events) {
          const copy = (await read(`/events/${event.id}`)).body;
          expect(copy.slug, `event ${event.id}`).toBe(event.slug);
          // Links point at the source's venue and organizer IDs, which are the copies' IDs here.
          expect(copy.venue?.id ?? null).toBe(event.venue?.id ?? null);
          expect((copy.organizer ?? []).map((o: { id: number }) => o.id)).toEqual(
            (event.organizer ?? []).map((o: { id: number }) => o.id),
          );
        }
        expect(events.some((event) => event.venue?.id)).toBe(true);
        expect(run.counts.event.created).toBe(events.length);
        // The next record made here takes an ID above every kept one.
        const highest = Math.max(
          ...events.map((e) => e.id),
          ...venues().map((v) => v.id),
          ...organizers().map((o) => o.id),
        );
        expect((await createVenue(server)).id).toBeGreaterThan(highest);
        // A second run finds every copy by its origin: nothing to refuse, nothing created.
        const again = await importInto(target, { root: `${site.url}/wp-json/`, keepIds: true });
        expectCounts(again, { created: {} });
        expect(again.counts.event.unchanged).toBe(events.length);
      } finally {
        await target.close();
      }
    },
    SLOW,
  );

  it(
    "refuses from the CLI, writing nothing, when a source ID is already another record's here",
    async () => {
      const target = await newTarget();
      try {
        const server = await target.server();
        const local = await createOrganizer(server);
        const taken = recordedEvents()[0].id as number;
        await runSql(target.database.url, `UPDATE "Organizer" SET "id" = ${taken} WHERE "id" = ${local.id}`);
        const run = await cli([`${site.url}/wp-json/`, '--keep-ids'], { DATABASE_URL: target.database.url });
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(
          `--keep-ids: nothing was imported, the source's event ${taken} cannot keep its ID: organizer ${taken} here has it`,
        );
        const db = createDb(target.config);
        try {
          const counts = await Promise.all([
            db.event.count(),
            db.venue.count(),
            db.organizer.count(),
            db.term.count(),
            db.importOrigin.count(),
            db.user.count({ where: { login: 'importer' } }),
          ]);
          expect(counts).toEqual([0, 0, 1, 0, 0, 0]);
        } finally {
          await db.$disconnect();
        }
      } finally {
        await target.close();
      }
    },
    SLOW,
  );
});
