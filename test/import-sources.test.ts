import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILED_CLI } from '../bench/processes.js';
import { freshDatabase, querySql, TEST_ENGINE, type TestDatabase } from './support/database.js';
import { type Instance, runCommand, startInstance, stop } from './support/processes.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';
import { startReceiver } from './support/webhook-receiver.js';

// Importing an iCalendar feed as a source (issue 31): `sources add` imports it at once; `sources run` brings the
// events in line with the feed as it changes (updated, trashed); an unchanged feed (304, or the same bytes) writes
// nothing, not even a change-log entry; a private address needs OUTBOUND_ALLOW_PRIVATE; what is no feed is refused.

const dir = mkdtempSync(join(tmpdir(), 'calendar-sources-'));
let database: TestDatabase;
let reader: TestServer | undefined;
let feedServer: Server;
let feedUrl: string;
let feed = '';
let honourValidators = true;
/** The feed server waits a second before answering. */
let slowAnswers = false;
const asked: Array<{ ifNoneMatch: string | undefined }> = [];

const lines = (...content: string[]) => `${content.join('\r\n')}\r\n`;
const calendar = (...events: string[]) =>
  lines('BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//Feed//EN', ...events, 'END:VCALENDAR');

const PARIS_TALK = (title: string) =>
  lines(
    'BEGIN:VEVENT',
    'UID:talk@feed.test',
    'DTSTAMP:20261120T120000Z',
    'DTSTART;TZID=Europe/Paris:20270610T183000',
    'DTEND;TZID=Europe/Paris:20270610T200000',
    `SUMMARY:${title}`,
    'DESCRIPTION:First line.\\n\\nSecond paragraph & more.',
    'LOCATION:Salle Pleyel\\n252 Rue du Faubourg Saint-Honoré\\, Paris',
    'ORGANIZER;CN=Ana Lopez:mailto:ana@feed.test',
    'CATEGORIES:Talks',
    'END:VEVENT',
  ).trimEnd();
const WEEKLY = lines(
  'BEGIN:VEVENT',
  'UID:weekly@feed.test',
  'DTSTAMP:20261120T120000Z',
  'DTSTART;TZID=America/New_York:20270601T190000',
  'DTEND;TZID=America/New_York:20270601T200000',
  'RRULE:FREQ=WEEKLY;COUNT=4',
  'SUMMARY:Weekly practice',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:weekly@feed.test',
  'DTSTAMP:20261120T120000Z',
  'RECURRENCE-ID;TZID=America/New_York:20270615T190000',
  'DTSTART;TZID=America/New_York:20270615T190000',
  'DTEND;TZID=America/New_York:20270615T200000',
  'STATUS:CANCELLED',
  'SUMMARY:Weekly practice',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:weekly@feed.test',
  'DTSTAMP:20261120T120000Z',
  'RECURRENCE-ID;TZID=America/New_York:20270608T190000',
  'DTSTART;TZID=America/New_York:20270608T200000',
  'DTEND;TZID=America/New_York:20270608T210000',
  'SUMMARY:Weekly practice (late)',
  'END:VEVENT',
).trimEnd();
/** Weekly with no end: its occurrences are made as far as RECURRENCE_HORIZON_DAYS, and further when a list asks. */
const CLUB = (title: string) =>
  lines(
    'BEGIN:VEVENT',
    'UID:club@feed.test',
    'DTSTAMP:20261120T120000Z',
    'DTSTART;TZID=Europe/Berlin:20270602T180000',
    'DTEND;TZID=Europe/Berlin:20270602T190000',
    'RRULE:FREQ=WEEKLY',
    `SUMMARY:${title}`,
    'END:VEVENT',
  ).trimEnd();
const FAIR = lines(
  'BEGIN:VEVENT',
  'UID:fair@feed.test',
  'DTSTAMP:20261120T120000Z',
  'DTSTART;VALUE=DATE:20270620',
  'DTEND;VALUE=DATE:20270622',
  'SUMMARY:Summer fair',
  'END:VEVENT',
).trimEnd();

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCommand(process.execPath, [COMPILED_CLI, ...args], {
    DATABASE_URL: database.url,
    CALENDAR_ADMIN_PASSWORD: '',
    OUTBOUND_ALLOW_PRIVATE: '127.0.0.1',
    ...env,
  });

const changes = async () => Number((await querySql(database.url, 'SELECT count(*) AS n FROM "Change"'))[0]!.n);

async function listed(): Promise<Array<{ title: string; start_date: string; timezone: string; all_day: boolean }>> {
  const answer = await fetch(
    `${reader!.url}/wp-json/calendar/events/v1/events?start_date=2027-05-01&end_date=2027-08-01&per_page=50`,
  );
  return ((await answer.json()) as { events: never[] }).events;
}

beforeAll(async () => {
  database = await freshDatabase(dir);
  feedServer = createServer((req, res) => {
    const etag = `"${createHash('sha256').update(feed).digest('hex').slice(0, 16)}"`;
    asked.push({ ifNoneMatch: req.headers['if-none-match'] });
    if (req.url?.startsWith('/not-a-feed'))
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    if (honourValidators && req.headers['if-none-match'] === etag) return void res.writeHead(304).end();
    const answer = () => {
      res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8', ...(honourValidators ? { etag } : {}) });
      res.end(feed);
    };
    if (slowAnswers) setTimeout(answer, 1000);
    else answer();
  });
  await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/calendar.ics`;
  // The database is migrated by the first command; the reader serves it.
  feed = calendar(PARIS_TALK('Opening talk'), WEEKLY, FAIR);
}, 60_000);

afterAll(async () => {
  await reader?.close();
  feedServer?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe(`an iCalendar feed as an import source (${TEST_ENGINE})`, () => {
  it('imports at once, then follows the feed: unchanged writes nothing, an edit updates, a removal trashes', async () => {
    const added = await cli(['sources', 'add', feedUrl, '--category', 'Imported', '--every', '1h']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(`Added source 1: ${feedUrl}, every 3600 s.`);
    expect(added.stdout).toContain('Source 1: created 3, updated 1, trashed 0, unchanged 0, skipped 0, failed 0.');
    reader = await startServer({}, { databaseOf: { databaseUrl: database.url } });

    const events = await listed();
    const talk = events.find((event) => event.title === 'Opening talk')! as Record<string, any>;
    expect(talk).toMatchObject({
      start_date: '2027-06-10 18:30:00',
      end_date: '2027-06-10 20:00:00',
      timezone: 'Europe/Paris',
    });
    expect(talk.description).toBe('<p>First line.</p>\n<p>Second paragraph &amp; more.</p>');
    expect(talk.venue).toMatchObject({ venue: 'Salle Pleyel', address: '252 Rue du Faubourg Saint-Honoré, Paris' });
    expect(talk.organizer.map((organizer: { organizer: string }) => organizer.organizer)).toEqual(['Ana Lopez']);
    expect(talk.categories.map((category: { name: string }) => category.name).sort()).toEqual(['Imported', 'Talks']);
    // Four weeks: the second moved an hour later and renamed, the third cancelled in the feed.
    expect(
      events
        .filter((event) => event.title.startsWith('Weekly practice'))
        .map((event) => `${event.start_date} ${event.title}`),
    ).toEqual([
      '2027-06-01 19:00:00 Weekly practice',
      '2027-06-08 20:00:00 Weekly practice (late)',
      '2027-06-22 19:00:00 Weekly practice',
    ]);
    expect(events.find((event) => event.title === 'Summer fair')).toMatchObject({
      all_day: true,
      start_date: '2027-06-20 00:00:00',
      end_date: '2027-06-21 23:59:59',
    });

    const before = await changes();
    const notModified = await cli(['sources', 'run', '1']);
    expect(notModified.stdout).toBe('Source 1: the feed has not changed since the last run.\n');
    expect(asked.at(-1)!.ifNoneMatch).toMatch(/^"[0-9a-f]{16}"$/);
    honourValidators = false;
    const sameBytes = await cli(['sources', 'run', '1']);
    expect(sameBytes.stdout).toContain('created 0, updated 0, trashed 0, unchanged 4');
    expect(await changes()).toBe(before);

    feed = calendar(PARIS_TALK('Opening talk (new room)'), WEEKLY);
    const edited = await cli(['sources', 'run', '1']);
    expect(edited.stdout).toContain('created 0, updated 1, trashed 1, unchanged 2, skipped 0, failed 0');
    const after = await listed();
    expect(after.map((event) => event.title)).toContain('Opening talk (new room)');
    expect(after.map((event) => event.title)).not.toContain('Opening talk');
    expect(after.map((event) => event.title)).not.toContain('Summer fair');

    const list = await cli(['sources', 'list']);
    expect(list.stdout).toMatch(/^id +kind +url +every +last run +next run +last counts +last error$/m);
    expect(list.stdout).toMatch(/\+0 ~1 -1 =2 skipped 0 failed 0/);
    expect(list.stdout).toContain(feedUrl);
    expect(list.stdout).toMatch(/^1 +ical +http/m);

    // One feed is one source, however its URL is written: a second would import every event twice.
    for (const twin of [feedUrl, feedUrl.replace('http://', 'webcal://'), feedUrl.replace('http://', 'https://')]) {
      const again = await cli(['sources', 'add', twin]);
      expect(again.code).toBe(1);
      expect(again.stderr.trim()).toBe(`Error: source 1 imports ${feedUrl} already`);
    }
  }, 120_000);

  it('runs a due source on its schedule in one of two server processes, once', async () => {
    // The reader is a server too: closed, it gives up the lease its scheduler took at start.
    await reader?.close();
    reader = undefined;
    const added = await cli(['sources', 'add', `${feedUrl}?scheduled`, '--every', '5m']);
    expect(added.code).toBe(0);
    const id = Number(/Added source (\d+)/.exec(added.stdout)![1]);
    const env = { FEED_CHECK_MS: '200', OUTBOUND_ALLOW_PRIVATE: '127.0.0.1' };
    const servers: Instance[] = await Promise.all([startInstance(database.url, env), startInstance(database.url, env)]);
    try {
      const lastRun = async () =>
        String((await querySql(database.url, `SELECT "lastRunAt" AS at FROM "ImportSource" WHERE id = ${id}`))[0]!.at);
      const before = await lastRun();
      const requests = asked.length;
      // An edit at the source, then due now: its next run set back to when it was made.
      feed = calendar(PARIS_TALK('Talk, rescheduled run'), WEEKLY);
      await querySql(database.url, `UPDATE "ImportSource" SET "nextRunAt" = "createdAt" WHERE id = ${id}`);
      for (let wait = 0; wait < 300 && (await lastRun()) === before; wait++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await lastRun(), servers.flatMap((server) => server.output).join('')).not.toBe(before);
      // Both processes look five times a second: had both run it, the feed would have been asked twice.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(asked.length - requests).toBe(1);
      const [row] = await querySql(
        database.url,
        `SELECT "nextRunAt" AS next, "lastError" AS error FROM "ImportSource" WHERE id = ${id}`,
      );
      expect(row!.error).toBeNull();
      const titles = await querySql(database.url, `SELECT title FROM "Event" WHERE title LIKE 'Talk, rescheduled%'`);
      expect(titles).toHaveLength(1);
      expect(new Date(row!.next as string | number).getTime()).toBeGreaterThan(Date.now() + 200_000);
    } finally {
      await Promise.all(servers.map(stop));
    }
  }, 120_000);

  it('stops a feed past FEED_MAX_BYTES or FEED_FETCH_TIMEOUT_MS, and tries again later and later', async () => {
    feed = calendar(PARIS_TALK('x'.repeat(3000)));
    const large = await cli(['sources', 'add', `${feedUrl}?large`, '--every', '1h'], { FEED_MAX_BYTES: '1000' });
    expect(large.code).toBe(1);
    expect(large.stderr.trim()).toMatch(/^Error: source (\d+): the URL is larger than 1000 bytes$/);
    const id = /source (\d+)/.exec(large.stderr)![1];
    const next = async () =>
      (await querySql(database.url, `SELECT "nextRunAt" AS at, failures FROM "ImportSource" WHERE id = ${id}`))[0]!;
    const first = await next();
    expect(first.failures).toBe(1);
    const waited = (row: Record<string, unknown>) => new Date(row.at as string | number).getTime() - Date.now();
    expect(waited(first)).toBeGreaterThan(30_000);
    expect(waited(first)).toBeLessThanOrEqual(60_000);
    await cli(['sources', 'run', id!], { FEED_MAX_BYTES: '1000' });
    const second = await next();
    expect(second.failures).toBe(2);
    expect(waited(second)).toBeGreaterThan(90_000);
    expect(waited(second)).toBeLessThanOrEqual(120_000);
    slowAnswers = true;
    const slow = await cli(['sources', 'run', id!], { FEED_FETCH_TIMEOUT_MS: '500' });
    slowAnswers = false;
    expect(slow.stderr.trim()).toBe(`Error: source ${id}: the URL could not be fetched within 500 ms`);
    // Once the feed reads, the failures are forgotten and the schedule is the source's again.
    feed = calendar(PARIS_TALK('Talk after the failures'));
    expect((await cli(['sources', 'run', id!])).code).toBe(0);
    const recovered = await next();
    expect(recovered.failures).toBe(0);
    expect(waited(recovered)).toBeGreaterThan(3_500_000);
  }, 60_000);

  it('imports the feeds Google, Outlook, Apple, Nextcloud and Meetup export, reporting what it cannot', async () => {
    const expected: Record<string, string> = {
      'google.ics': 'created 2, updated 1, trashed 0, unchanged 0, skipped 1, failed 0',
      'outlook.ics': 'created 3, updated 0, trashed 0, unchanged 0, skipped 0, failed 0',
      'apple.ics': 'created 2, updated 0, trashed 0, unchanged 0, skipped 0, failed 0',
      'nextcloud.ics': 'created 1, updated 0, trashed 0, unchanged 0, skipped 0, failed 0',
      'meetup.ics': 'created 1, updated 0, trashed 0, unchanged 0, skipped 0, failed 0',
    };
    for (const [name, counts] of Object.entries(expected)) {
      feed = readFileSync(join(import.meta.dirname, 'fixtures', 'ical', name), 'utf8');
      const run = await cli(['sources', 'add', feedUrl.replace('calendar.ics', name)]);
      expect(run.code, `${name}: ${run.stderr}`).toBe(0);
      expect(run.stdout, name).toContain(counts);
      // Apple's event names an image on a host this machine cannot reach: the event comes in without it, said so.
      if (name === 'apple.ics') expect(run.stdout).toMatch(/imported without its image: could not be fetched/);
    }
  }, 60_000);

  it('keeps an event edited here, and one gone from the feed, when the source says so', async () => {
    honourValidators = false;
    feed = calendar(PARIS_TALK('Keeper talk'), FAIR, WEEKLY, CLUB('Chess club'));
    const added = await cli(['sources', 'add', `${feedUrl}?keep`, '--local-edits', 'keep', '--missing', 'keep']);
    expect(added.stdout).toContain('created 4,');
    const id = /Added source (\d+)/.exec(added.stdout)![1]!;
    const [talk] = await querySql(
      database.url,
      `SELECT e.id FROM "Event" e JOIN "ImportedItem" i ON i."eventId" = e.id WHERE i."sourceId" = ${id} AND i.key = 'talk@feed.test'`,
    );
    const server = await startServer({}, { databaseOf: { databaseUrl: database.url } });
    try {
      await server.gqlOk('mutation ($id: ID!) { updateEvent(id: $id, input: { title: "Renamed here" }) { id } }', {
        id: talk!.id,
      });
      // A visitor looking past the horizon: the club's occurrences are made that far (an upkeep write of its master).
      const farAhead = `${server.url}/wp-json/calendar/events/v1/events?start_date=2029-06-01&end_date=2029-06-30`;
      expect(((await (await fetch(farAhead)).json()) as { events: unknown[] }).events).toHaveLength(4);
      // The series, not edited here, follows the feed: the upkeep of its occurrences is no edit.
      const renamedSeries = WEEKLY.replace('SUMMARY:Weekly practice\r\n', 'SUMMARY:Weekly practice (new season)\r\n');
      feed = calendar(PARIS_TALK('Keeper talk, renamed at the source'), renamedSeries, CLUB('Chess and go club'));
      const run = await cli(['sources', 'run', id]);
      expect(run.stdout).toContain('created 0, updated 2, trashed 0, unchanged 1, skipped 1, failed 0');
      expect(run.stdout).toContain('event talk@feed.test: edited here since it was imported: kept as it is');
      const titles = await querySql(
        database.url,
        `SELECT e.title, e.status FROM "Event" e JOIN "ImportedItem" i ON i."eventId" = e.id WHERE i."sourceId" = ${id} ORDER BY e.title`,
      );
      expect(titles).toEqual([
        { title: 'Chess and go club', status: 'publish' },
        { title: 'Renamed here', status: 'publish' },
        { title: 'Summer fair', status: 'publish' },
        { title: 'Weekly practice (late)', status: 'publish' },
        { title: 'Weekly practice (new season)', status: 'publish' },
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('refuses a private address without OUTBOUND_ALLOW_PRIVATE, and what is not a feed, on one line', async () => {
    const privateAddress = await cli(['sources', 'add', `${feedUrl}?private`], { OUTBOUND_ALLOW_PRIVATE: '' });
    expect(privateAddress.code).toBe(1);
    expect(privateAddress.stderr.trim()).toMatch(
      /^Error: source \d+: the URL may not be fetched: its host is a private or local network address$/,
    );
    const html = await cli(['sources', 'add', feedUrl.replace('/calendar.ics', '/not-a-feed')]);
    expect(html.code).toBe(1);
    expect(html.stderr.trim()).toMatch(
      /^Error: source \d+: http:\/\/127\.0\.0\.1:\d+\/not-a-feed is neither an iCalendar feed nor the REST root of a site running The Events Calendar \(/,
    );
    // Said to be a feed, it is read as one.
    const told = await cli(['sources', 'add', feedUrl.replace('/calendar.ics', '/not-a-feed?told'), '--kind', 'ical']);
    expect(told.stderr.trim()).toMatch(/^Error: source \d+: the feed is not an iCalendar feed/);
    const unknown = await cli(['sources', 'run', '999']);
    expect(unknown.stderr.trim()).toBe('Error: source 999: there is no such source (see: sources list)');
    const bad = await cli(['sources', 'add', 'ftp://example.com/feed.ics']);
    expect(bad.stderr.trim()).toBe('Error: the URL "ftp://example.com/feed.ics" must use http, https or webcal');
    const shown = await cli(['sources', 'list']);
    expect(shown.stdout).toContain('may not be fetched: its host is a private or local network address');
  }, 60_000);
});

describe(`import sources over GraphQL (${TEST_ENGINE})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ FEED_CHECK_MS: '100', OUTBOUND_ALLOW_PRIVATE: '127.0.0.1' });
  });
  afterAll(() => server?.close());

  const SOURCE = `id databaseId kind url everySeconds eventStatus categories onMissing localEdits lastRunAt nextRunAt
    lastError failures lastRun { notModified created updated trashed unchanged skipped failed problems { where reason } }`;
  const sources = async () =>
    (await server.gqlOk(`{ importSources { ${SOURCE} } }`, {}, ADMIN_AUTHORIZATION)).importSources;

  async function ranAfter(id: string, after: string | null) {
    for (let wait = 0; wait < 200; wait++) {
      const source = (
        await server.gqlOk(
          `query ($id: ID!) { node(id: $id) { ... on ImportSource { ${SOURCE} } } }`,
          { id },
          ADMIN_AUTHORIZATION,
        )
      ).node;
      if (source.lastRunAt !== after) return source;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the source never ran');
  }

  it('adds a source the server runs at once, shows its status, runs it again when asked, and removes it', async () => {
    honourValidators = true;
    feed = calendar(PARIS_TALK('Talk over GraphQL'), FAIR);
    const added = await server.gqlOk(
      `mutation ($input: ImportSourceInput!) { addImportSource(input: $input) { ${SOURCE} } }`,
      { input: { url: feedUrl, eventStatus: 'DRAFT', categories: ['From GraphQL'], onMissing: 'KEEP' } },
    );
    expect(added.addImportSource).toMatchObject({
      url: feedUrl,
      everySeconds: null,
      eventStatus: 'DRAFT',
      categories: ['From GraphQL'],
      onMissing: 'KEEP',
      localEdits: 'OVERWRITE',
      lastRunAt: null,
      lastRun: null,
      kind: null,
    });
    const ran = await ranAfter(added.addImportSource.id, null);
    expect(ran).toMatchObject({
      kind: 'ICAL',
      lastError: null,
      failures: 0,
      nextRunAt: null,
      lastRun: { notModified: false, created: 2, updated: 0, trashed: 0, unchanged: 0, skipped: 0, failed: 0 },
    });
    const drafts = await server.gqlOk(
      '{ events(filter: { statuses: [DRAFT] }, first: 10) { nodes { title } } }',
      {},
      ADMIN_AUTHORIZATION,
    );
    expect(drafts.events.nodes.map((event: { title: string }) => event.title).sort()).toEqual([
      'Summer fair',
      'Talk over GraphQL',
    ]);

    const again = await server.gqlOk(`mutation ($id: ID!) { runImportSource(id: $id) { nextRunAt } }`, {
      id: added.addImportSource.databaseId,
    });
    expect(again.runImportSource.nextRunAt).not.toBeNull();
    expect((await ranAfter(added.addImportSource.id, ran.lastRunAt)).lastRun.notModified).toBe(true);
    expect((await sources()).map((source: { url: string }) => source.url)).toEqual([feedUrl]);
    expect(
      (await server.gqlOk('mutation ($id: ID!) { removeImportSource(id: $id) }', { id: added.addImportSource.id }))
        .removeImportSource,
    ).toBe(true);
    expect(await sources()).toEqual([]);
  });

  it('announces what a run changed in the change feed and to webhooks, and nothing for an unchanged feed', async () => {
    const receiver = await startReceiver();
    try {
      await server.gqlOk(
        'mutation ($url: String!) { createWebhook(input: { url: $url, types: [EVENT] }) { webhook { id } } }',
        { url: `${receiver.url}/hook` },
        ADMIN_AUTHORIZATION,
      );
      const cursor = (await server.gqlOk('{ changes { next } }', {}, ADMIN_AUTHORIZATION)).changes.next;
      honourValidators = false;
      feed = calendar(
        lines(
          'BEGIN:VEVENT',
          'UID:announced@feed.test',
          'DTSTAMP:20261120T120000Z',
          'DTSTART:20270701T170000Z',
          'DTEND:20270701T180000Z',
          'SUMMARY:Announced meetup',
          'END:VEVENT',
        ).trimEnd(),
      );
      const added = await server.gqlOk(
        'mutation ($input: ImportSourceInput!) { addImportSource(input: $input) { id } }',
        { input: { url: `${feedUrl}?announced` } },
        ADMIN_AUTHORIZATION,
      );
      const ran = await ranAfter(added.addImportSource.id, null);
      expect(ran.lastRun.created).toBe(1);
      const changed = await server.gqlOk(
        'query ($since: String) { changes(since: $since, first: 20) { nodes { type databaseId action } next } }',
        { since: cursor },
        ADMIN_AUTHORIZATION,
      );
      const events = changed.changes.nodes.filter((node: { type: string }) => node.type === 'EVENT');
      expect(events).toHaveLength(1);
      expect(events[0].action).toBe('CREATED');
      await receiver.waitFor(() =>
        receiver.accepted().some((body) => body.record_id === events[0].databaseId && body.action === 'created'),
      );
      // The same feed again: no change, no delivery.
      await server.gqlOk(
        'mutation ($id: ID!) { runImportSource(id: $id) { id } }',
        { id: ran.id },
        ADMIN_AUTHORIZATION,
      );
      expect((await ranAfter(ran.id, ran.lastRunAt)).lastRun).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
      const after = await server.gqlOk(
        'query ($since: String) { changes(since: $since, first: 20) { nodes { type } } }',
        { since: changed.changes.next },
        ADMIN_AUTHORIZATION,
      );
      expect(after.changes.nodes).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(receiver.accepted()).toHaveLength(1);
    } finally {
      honourValidators = true;
      await receiver.close();
    }
  });

  it('is for administrators only, and refuses a bad URL naming it', async () => {
    const anonymous = await server.gql('{ importSources { id } }', {}, null);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const bad = await server.gql('mutation { addImportSource(input: { url: "ftp://example.com/feed.ics" }) { id } }');
    expect(bad.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { input: 'the URL "ftp://example.com/feed.ics" must use http, https or webcal' },
    });
  });
});
