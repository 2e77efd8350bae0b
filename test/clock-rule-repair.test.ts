import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/db/migrate.js';
import { readMigrations } from '../src/db/schema-diff.js';
import { freshDatabase, querySql, runSql, TEST_ENGINE, type TestDatabase } from './support/database.js';
import { call } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

// Rows written before the clock rule (RFC 5545 §3.3.5) are repaired once, at the first start after the upgrade
// (src/db/clock-repair.ts): occurrences in a daylight-saving gap were stored at the nonexistent wall clock with their
// end before their start, and wall clocks the zone repeats at the instant luxon picked by the day the server ran
// (the second one, in winter). The rows below are written as that code wrote them.

/** An instant as each engine stores a DateTime column. */
const at = (iso: string) =>
  TEST_ENGINE === 'sqlite' ? `'${iso.replace('Z', '+00:00')}'` : `'${iso.replace('T', ' ').replace('Z', '')}'`;

interface OldRow {
  id: number;
  title?: string;
  zone: string;
  start: string;
  end: string;
  startsAt: string;
  endsAt: string;
  recurrence?: string;
  series?: number;
  original?: [string, string];
  detached?: boolean;
}

function insert(row: OldRow): string {
  const columns = {
    id: row.id,
    title: `'${row.title ?? `Event ${row.id}`}'`,
    slug: `'event-${row.id}'`,
    publishedLocal: "'2026-06-01 10:00:00'",
    publishedAt: at('2026-06-01T10:00:00.000Z'),
    modifiedLocal: "'2026-06-01 10:00:00'",
    modifiedAt: at('2026-06-01T10:00:00.000Z'),
    timezone: `'${row.zone}'`,
    startLocal: `'${row.start}'`,
    endLocal: `'${row.end}'`,
    startsAt: at(row.startsAt),
    endsAt: at(row.endsAt),
    recurrence: `'${row.recurrence ?? ''}'`,
    isSeriesMaster: row.recurrence ? 'true' : 'false',
    recurringEventId: row.series ?? 'NULL',
    originalStartLocal: row.original ? `'${row.original[0]}'` : 'NULL',
    originalStartsAt: row.original ? at(row.original[1]) : 'NULL',
    detached: row.detached ? 'true' : 'false',
  };
  return `INSERT INTO "Event" (${Object.keys(columns)
    .map((name) => `"${name}"`)
    .join(', ')}) VALUES (${Object.values(columns).join(', ')})`;
}

/** A daily occurrence as the old code wrote it: its times and original start read by luxon, its wall clocks the rule's. */
const occurrence = (
  id: number,
  series: number,
  zone: string,
  start: string,
  end: string,
  startsAt: string,
  endsAt: string,
  extra: Partial<OldRow> = {},
): OldRow => ({
  id,
  zone,
  start,
  end,
  startsAt,
  endsAt,
  series,
  original: [start, startsAt],
  title: `Series ${series}`,
  ...extra,
});

const OLD_ROWS: OldRow[] = [
  // A daily 02:30–03:00 class in Berlin: on 28 March 2027 the clocks skip 02:00–03:00.
  {
    id: 101,
    title: 'Series 101',
    zone: 'Europe/Berlin',
    start: '2027-03-26 02:30:00',
    end: '2027-03-26 03:00:00',
    startsAt: '2027-03-26T01:30:00.000Z',
    endsAt: '2027-03-26T02:00:00.000Z',
    recurrence: 'RRULE:FREQ=DAILY;COUNT=4',
  },
  occurrence(
    102,
    101,
    'Europe/Berlin',
    '2027-03-26 02:30:00',
    '2027-03-26 03:00:00',
    '2027-03-26T01:30:00.000Z',
    '2027-03-26T02:00:00.000Z',
  ),
  occurrence(
    103,
    101,
    'Europe/Berlin',
    '2027-03-27 02:30:00',
    '2027-03-27 03:00:00',
    '2027-03-27T01:30:00.000Z',
    '2027-03-27T02:00:00.000Z',
  ),
  occurrence(
    104,
    101,
    'Europe/Berlin',
    '2027-03-28 02:30:00',
    '2027-03-28 03:00:00',
    '2027-03-28T01:30:00.000Z',
    '2027-03-28T01:00:00.000Z',
  ),
  occurrence(
    105,
    101,
    'Europe/Berlin',
    '2027-03-29 02:30:00',
    '2027-03-29 03:00:00',
    '2027-03-29T00:30:00.000Z',
    '2027-03-29T01:00:00.000Z',
  ),
  // A daily 01:30–02:00 meeting in New York, written in winter: on 7 November 2027 01:30 is read as EST, its second instant.
  {
    id: 111,
    title: 'Series 111',
    zone: 'America/New_York',
    start: '2027-11-05 01:30:00',
    end: '2027-11-05 02:00:00',
    startsAt: '2027-11-05T05:30:00.000Z',
    endsAt: '2027-11-05T06:00:00.000Z',
    recurrence: 'RRULE:FREQ=DAILY;COUNT=4',
  },
  occurrence(
    112,
    111,
    'America/New_York',
    '2027-11-05 01:30:00',
    '2027-11-05 02:00:00',
    '2027-11-05T05:30:00.000Z',
    '2027-11-05T06:00:00.000Z',
  ),
  occurrence(
    113,
    111,
    'America/New_York',
    '2027-11-06 01:30:00',
    '2027-11-06 02:00:00',
    '2027-11-06T05:30:00.000Z',
    '2027-11-06T06:00:00.000Z',
  ),
  occurrence(
    114,
    111,
    'America/New_York',
    '2027-11-07 01:30:00',
    '2027-11-07 02:00:00',
    '2027-11-07T06:30:00.000Z',
    '2027-11-07T07:00:00.000Z',
  ),
  occurrence(
    115,
    111,
    'America/New_York',
    '2027-11-08 01:30:00',
    '2027-11-08 02:00:00',
    '2027-11-08T06:30:00.000Z',
    '2027-11-08T07:00:00.000Z',
  ),
  // The same with an exception on the repeated day: its own times stay, its original start is the rule's.
  {
    id: 121,
    title: 'Series 121',
    zone: 'America/New_York',
    start: '2027-11-06 01:15:00',
    end: '2027-11-06 01:45:00',
    startsAt: '2027-11-06T05:15:00.000Z',
    endsAt: '2027-11-06T05:45:00.000Z',
    recurrence: 'RRULE:FREQ=DAILY;COUNT=3',
  },
  occurrence(
    122,
    121,
    'America/New_York',
    '2027-11-06 01:15:00',
    '2027-11-06 01:45:00',
    '2027-11-06T05:15:00.000Z',
    '2027-11-06T05:45:00.000Z',
  ),
  occurrence(
    123,
    121,
    'America/New_York',
    '2027-11-07 01:15:00',
    '2027-11-07 01:45:00',
    '2027-11-07T06:15:00.000Z',
    '2027-11-07T06:45:00.000Z',
    { detached: true, title: 'Exception' },
  ),
  occurrence(
    124,
    121,
    'America/New_York',
    '2027-11-08 01:15:00',
    '2027-11-08 01:45:00',
    '2027-11-08T06:15:00.000Z',
    '2027-11-08T06:45:00.000Z',
  ),
  // Single events: a repeated hour's second instant (perhaps sent with its offset) stays; wall clocks the zone skips
  // and an end before the start are read again.
  {
    id: 131,
    zone: 'America/New_York',
    start: '2027-11-07 01:30:00',
    end: '2027-11-07 02:30:00',
    startsAt: '2027-11-07T06:30:00.000Z',
    endsAt: '2027-11-07T07:30:00.000Z',
  },
  {
    id: 132,
    zone: 'Europe/Berlin',
    start: '2027-03-28 02:15:00',
    end: '2027-03-28 02:45:00',
    startsAt: '2027-03-28T01:15:00.000Z',
    endsAt: '2027-03-28T01:45:00.000Z',
  },
  {
    id: 133,
    zone: 'Europe/Berlin',
    start: '2027-10-31 02:40:00',
    end: '2027-10-31 02:50:00',
    startsAt: '2027-10-31T01:40:00.000Z',
    endsAt: '2027-10-31T00:50:00.000Z',
  },
  {
    id: 134,
    zone: 'UTC',
    start: '2027-03-28 02:30:00',
    end: '2027-03-28 03:00:00',
    startsAt: '2027-03-28T02:30:00.000Z',
    endsAt: '2027-03-28T03:00:00.000Z',
  },
];
const REPAIRED = [104, 114, 123, 132, 133];

describe(`repairing a ${TEST_ENGINE} database with rows written before the clock rule`, () => {
  let dir: string;
  let database: TestDatabase;
  let server: TestServer | undefined;
  let beforeStart: number;

  const lastSeq = async () =>
    Number((await querySql(database.url, 'SELECT COALESCE(MAX("seq"), 0) AS seq FROM "Change"'))[0]!.seq);
  const rows = async () =>
    (
      await querySql(
        database.url,
        'SELECT "id", "title", "startLocal", "endLocal", "startsAt", "endsAt", "originalStartsAt", "recurringEventId" FROM "Event" ORDER BY "id"',
      )
    ).map((row) => JSON.stringify(row));
  const restart = async () => {
    await server?.close();
    server = await startServer({}, { databaseOf: { databaseUrl: database.url } });
    return server;
  };
  const gql = async (id: number) =>
    (
      await server!.gqlOk(
        `{ event(id: "${id}") { startsAt endsAt startsAtLocal endsAtLocal originalStart originalStartLocal } }`,
        {},
        null,
      )
    ).event;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-clock-repair-'));
    database = await freshDatabase(dir);
    // The schema of today, written as before: the repair is a data step, run at the server's start.
    const sqlMigrations = readMigrations(TEST_ENGINE);
    await migrate(loadConfig({ DATABASE_URL: database.url }), { until: sqlMigrations.at(-1)!.name });
    for (const row of OLD_ROWS) await runSql(database.url, insert(row));
    beforeStart = await lastSeq();
    await restart();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('moves an occurrence in a gap forward with its length, through REST and GraphQL, keeping its ID and rule start', async () => {
    const answer = await call(server!, 'GET', '/events/104');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({
      id: 104,
      start_date: '2027-03-28 03:30:00',
      end_date: '2027-03-28 04:00:00',
      utc_start_date: '2027-03-28 01:30:00',
      utc_end_date: '2027-03-28 02:00:00',
      original_start_date: '2027-03-28 02:30:00',
      recurring_event_id: 101,
    });
    expect(await gql(104)).toEqual({
      startsAt: '2027-03-28T01:30:00.000Z',
      endsAt: '2027-03-28T02:00:00.000Z',
      startsAtLocal: '2027-03-28 03:30:00',
      endsAtLocal: '2027-03-28 04:00:00',
      originalStart: '2027-03-28T01:30:00.000Z',
      originalStartLocal: '2027-03-28 02:30:00',
    });
    const day = await call(server!, 'GET', '/events', {
      query: { start_date: '2027-03-28', end_date: '2027-03-28', search: 'Series 101' },
    });
    expect(day.body.events.map((event: { id: number; start_date: string }) => [event.id, event.start_date])).toEqual([
      [104, '2027-03-28 03:30:00'],
    ]);
  });

  it('reads a repeated hour of an occurrence as its first instant, original start included', async () => {
    expect((await call(server!, 'GET', '/events/114')).body).toMatchObject({
      start_date: '2027-11-07 01:30:00',
      end_date: '2027-11-07 02:00:00',
      utc_start_date: '2027-11-07 05:30:00',
      utc_end_date: '2027-11-07 07:00:00',
    });
    expect(await gql(114)).toMatchObject({
      startsAt: '2027-11-07T05:30:00.000Z',
      originalStart: '2027-11-07T05:30:00.000Z',
    });
    // An exception keeps its own times; only its original start, by which its series finds it, is the rule's.
    expect(await gql(123)).toMatchObject({
      startsAt: '2027-11-07T06:15:00.000Z',
      endsAt: '2027-11-07T06:45:00.000Z',
      originalStart: '2027-11-07T05:15:00.000Z',
    });
  });

  it("repairs single events only where their wall clocks don't exist or their end is before their start", async () => {
    expect((await call(server!, 'GET', '/events/131')).body).toMatchObject({
      start_date: '2027-11-07 01:30:00',
      utc_start_date: '2027-11-07 06:30:00',
      utc_end_date: '2027-11-07 07:30:00',
    });
    expect((await call(server!, 'GET', '/events/132')).body).toMatchObject({
      start_date: '2027-03-28 03:15:00',
      end_date: '2027-03-28 03:45:00',
      utc_start_date: '2027-03-28 01:15:00',
      utc_end_date: '2027-03-28 01:45:00',
    });
    expect((await call(server!, 'GET', '/events/133')).body).toMatchObject({
      start_date: '2027-10-31 02:40:00',
      end_date: '2027-10-31 02:50:00',
      utc_start_date: '2027-10-31 00:40:00',
      utc_end_date: '2027-10-31 00:50:00',
    });
    expect((await call(server!, 'GET', '/events/134')).body).toMatchObject({
      start_date: '2027-03-28 02:30:00',
      utc_start_date: '2027-03-28 02:30:00',
    });
  });

  it('logs each repaired row once as updated, and no other', async () => {
    const logged = await querySql(
      database.url,
      `SELECT "recordId", "action" FROM "Change" WHERE "seq" > ${beforeStart} AND "recordType" = 'event' ORDER BY "recordId"`,
    );
    expect(logged.map((row) => [Number(row.recordId), row.action])).toEqual(REPAIRED.map((id) => [id, 'updated']));
  });

  it('keeps every occurrence, exceptions included, with its ID when the series are edited afterwards', async () => {
    for (const id of [101, 111, 121]) {
      const edited = await call(server!, 'POST', `/events/${id}`, { json: { title: `Series ${id} renamed` } });
      expect(edited.status, edited.text).toBe(200);
    }
    const occurrences = await querySql(
      database.url,
      'SELECT "id", "title", "recurringEventId" FROM "Event" WHERE "recurringEventId" IS NOT NULL ORDER BY "id"',
    );
    expect(occurrences.map((row) => [Number(row.id), row.title])).toEqual([
      [102, 'Series 101 renamed'],
      [103, 'Series 101 renamed'],
      [104, 'Series 101 renamed'],
      [105, 'Series 101 renamed'],
      [112, 'Series 111 renamed'],
      [113, 'Series 111 renamed'],
      [114, 'Series 111 renamed'],
      [115, 'Series 111 renamed'],
      [122, 'Series 121 renamed'],
      [123, 'Exception'],
      [124, 'Series 121 renamed'],
    ]);
  });

  it('changes nothing at a second start, nor when the repair runs again', async () => {
    const [before, seq] = [await rows(), await lastSeq()];
    await restart();
    expect(await rows()).toEqual(before);
    await runSql(database.url, `DELETE FROM "Setting" WHERE "name" = 'data_step:clock_rule_repair'`);
    await restart();
    expect(
      await querySql(database.url, `SELECT "name" FROM "Setting" WHERE "name" = 'data_step:clock_rule_repair'`),
    ).toHaveLength(1);
    expect(await rows()).toEqual(before);
    expect(await lastSeq()).toBe(seq);
  });
});
