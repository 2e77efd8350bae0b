import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILED_CLI } from '../bench/processes.js';
import { freshDatabase, TEST_ENGINE, type TestDatabase } from './support/database.js';
import { runCommand } from './support/processes.js';
import { startServer, type TestServer } from './support/server.js';

// This service's own feed as an import source (issue 31, point 6): the events of one calendar exported as
// iCalendar, imported into a fresh database and listed again give the same events, occurrences and instants, across
// a daylight-saving gap and a repeated hour, with a series' exception and an excluded date.

const API = '/wp-json/calendar/events/v1';
const WINDOW = 'start_date=2027-01-01&end_date=2028-01-01&per_page=50';
const dir = mkdtempSync(join(tmpdir(), 'calendar-round-trip-'));
let exporter: TestServer;
let importer: TestServer | undefined;
let target: TestDatabase;

interface Listed {
  title: string;
  utc_start_date: string;
  utc_end_date: string;
  all_day: boolean;
}

async function listing(server: TestServer): Promise<string[]> {
  const response = await fetch(`${server.url}${API}/events?${WINDOW}`);
  expect(response.status).toBe(200);
  const { events } = (await response.json()) as { events: Listed[] };
  return events.map(
    (event) => `${event.utc_start_date} → ${event.utc_end_date} ${event.all_day ? 'all day ' : ''}${event.title}`,
  );
}

const create = (input: Record<string, unknown>) =>
  exporter.gqlOk('mutation ($input: EventInput!) { createEvent(input: $input) { id: databaseId } }', { input });

beforeAll(async () => {
  exporter = await startServer();
  target = await freshDatabase(dir);
  await create({
    title: 'Across the spring gap',
    startDate: '2027-03-28 01:30:00',
    endDate: '2027-03-28 03:30:00',
    timezone: 'Europe/Paris',
  });
  await create({
    title: 'In the repeated hour',
    startDate: '2027-10-31 02:30:00',
    endDate: '2027-10-31 03:30:00',
    timezone: 'Europe/Berlin',
  });
  await create({
    title: 'May Day fair',
    allDay: true,
    startDate: '2027-05-01',
    endDate: '2027-05-02',
    timezone: 'UTC',
  });
  const weekly = await create({
    title: 'Weekly across the change',
    startDate: '2027-03-02 19:00:00',
    endDate: '2027-03-02 20:30:00',
    timezone: 'America/New_York',
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE;TZID=America/New_York:20270316T190000'],
  });
  await create({
    title: 'Nightly through the fall back',
    startDate: '2027-10-29 02:30:00',
    endDate: '2027-10-29 03:00:00',
    timezone: 'Europe/Berlin',
    recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
  });
  const occurrences = (await (
    await fetch(`${exporter.url}${API}/events?${WINDOW}&post_parent=${weekly.createEvent.id}`)
  ).json()) as { events: Array<{ id: number; start_date: string }> };
  const fourth = occurrences.events.find((event) => event.start_date === '2027-03-23 19:00:00')!;
  await exporter.gqlOk(
    'mutation ($id: ID!, $input: EventInput!) { updateEvent(id: $id, input: $input, scope: THIS) { id } }',
    {
      id: fourth.id,
      input: { title: 'Weekly, moved once', startDate: '2027-03-24 18:00:00', endDate: '2027-03-24 19:30:00' },
    },
  );
}, 120_000);

afterAll(async () => {
  await importer?.close();
  await exporter?.close();
  await target?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe(`the service's own feed, imported into a fresh database (${TEST_ENGINE})`, () => {
  it('lists the same events, occurrences and instants there, DST transitions included', async () => {
    const exported = await listing(exporter);
    expect(exported).toContain('2027-03-24 22:00:00 → 2027-03-24 23:30:00 Weekly, moved once');
    const feedUrl = `${exporter.url}${API}/events.ics?start_date=2027-01-01&end_date=2028-01-01`;
    const run = await runCommand(process.execPath, [COMPILED_CLI, 'sources', 'add', feedUrl], {
      DATABASE_URL: target.url,
      CALENDAR_ADMIN_PASSWORD: '',
      OUTBOUND_ALLOW_PRIVATE: '127.0.0.1',
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/created 5, updated 2, trashed 0, unchanged 0, skipped 0, failed 0/);
    importer = await startServer({}, { databaseOf: { databaseUrl: target.url } });
    // Sorted: events starting at the same instant are listed by ID, which the import renumbers.
    expect((await listing(importer)).sort()).toEqual(exported.sort());
  }, 120_000);
});
