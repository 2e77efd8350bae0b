import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, createVenue } from './support/factories.js';
import { sqlitePlan } from './support/database.js';
import { startServer, type TestServer } from './support/server.js';

// A list of a window with an end (a week, a day) reads the window's part of the listing index: the end implies an
// upper bound on the start (src/graphql/events/filter.ts). Without it, a week's page and total walked the index from
// the week's start to the last event, 30 ms each at 100,000 events (bench/results.md, History 15).

let server: TestServer;
const inWindow: string[] = [];

beforeAll(async () => {
  server = await startServer({ RESPONSE_CACHE_MB: '0' });
  const event = async (startDate: string, endDate: string, timezone: string) =>
    (await createEvent(server, { startDate, endDate, timezone }, 'title')).title as string;
  // The window is 2031-05-05 to 2031-05-11 in the site time zone (UTC). The events in it end late on its last day
  // in the zones farthest from UTC on both sides: their instants lie up to 12 hours past the window's end.
  inWindow.push(await event('2031-05-11 22:00:00', '2031-05-11 23:59:59', 'Pacific/Pago_Pago'));
  inWindow.push(await event('2031-05-11 22:00:00', '2031-05-11 23:30:00', 'Pacific/Kiritimati'));
  inWindow.push(await event('2031-05-05 00:00:00', '2031-05-05 01:00:00', 'UTC'));
  // Outside: ends a second after the window, starts before it, and one in the weeks after.
  await event('2031-05-11 23:00:00', '2031-05-12 00:00:00', 'UTC');
  await event('2031-05-04 23:00:00', '2031-05-05 02:00:00', 'UTC');
  for (const day of ['2031-05-20', '2031-06-20', '2031-07-20'])
    await event(`${day} 10:00:00`, `${day} 11:00:00`, 'Pacific/Pago_Pago');
});
afterAll(() => server?.close());

describe('a list of a window with an end', () => {
  it('lists exactly the events in the window, reading only its part of the listing index', async () => {
    let body: Array<{ title: string }> = [];
    let total = '';
    const statements = await server.captureQueries(async () => {
      const response = await fetch(
        `${server.url}/wp-json/calendar/events/v1/events?start_date=2031-05-05&end_date=2031-05-11`,
      );
      expect(response.status).toBe(200);
      total = response.headers.get('x-tec-total') ?? '';
      body = ((await response.json()) as { events: Array<{ title: string }> }).events;
    });
    expect(body.map((event) => event.title).sort()).toEqual([...inWindow].sort());
    expect(total).toBe('3');

    const windowReads = statements.filter(({ query }) => /FROM `main`\.`Event` WHERE .*`endLocal` <=/.test(query));
    // The page and its total.
    expect(windowReads.length).toBeGreaterThanOrEqual(2);
    for (const read of windowReads)
      expect(await sqlitePlan(server.databaseUrl, read)).toMatch(
        /USING (COVERING )?INDEX Event_listing_idx \(startsAt>\? AND startsAt<\?\)/,
      );
  });

  it('does the same for exact instants (strictDates)', async () => {
    let titles: string[] = [];
    const statements = await server.captureQueries(async () => {
      const data = await server.gqlOk(
        `query ($filter: EventsFilter) { events(filter: $filter, first: 10) { totalCount edges { node { title } } } }`,
        { filter: { startDate: '2031-05-05 00:00:00', endDate: '2031-05-12 12:00:00', strictDates: true } },
      );
      expect(data.events.totalCount).toBe(4);
      titles = data.events.edges.map((edge: { node: { title: string } }) => edge.node.title);
    });
    // Pago Pago is UTC−11: its event ends at 2031-05-12 10:59:59 UTC, inside; the event ending at midnight UTC too.
    expect(titles).toHaveLength(4);
    expect(titles).toEqual(expect.arrayContaining(inWindow));
    const windowReads = statements.filter(({ query }) => /FROM `main`\.`Event` WHERE .*`endsAt` <=/.test(query));
    expect(windowReads.length).toBeGreaterThanOrEqual(2);
    for (const read of windowReads)
      expect(await sqlitePlan(server.databaseUrl, read)).toMatch(
        /USING (COVERING )?INDEX Event_listing_idx \(startsAt>\? AND startsAt<\?\)/,
      );
  });

  it('reads the events of a venue by their IDs, not by asking every event of the window for its links', async () => {
    const venue = Number((await createVenue(server)).id);
    const atVenue = await createEvent(
      server,
      { startDate: '2031-05-06 10:00:00', endDate: '2031-05-06 11:00:00', venues: [{ id: venue }] },
      'title',
    );
    let titles: string[] = [];
    const statements = await server.captureQueries(async () => {
      const response = await fetch(
        `${server.url}/wp-json/calendar/events/v1/events?start_date=2031-05-05&end_date=2031-05-11&venue=${venue}`,
      );
      titles = ((await response.json()) as { events: Array<{ title: string }> }).events.map((event) => event.title);
    });
    expect(titles).toEqual([atVenue.title]);
    const windowReads = statements.filter(({ query }) => /FROM `main`\.`Event` WHERE .*`endLocal` <=/.test(query));
    expect(windowReads.length).toBeGreaterThanOrEqual(2);
    for (const read of windowReads) {
      const plan = await sqlitePlan(server.databaseUrl, read);
      expect(plan).toMatch(/SEARCH main\.Event USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(plan).not.toMatch(/EventVenue/);
    }
  });
});
