import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, createVenue } from './support/factories.js';
import { startServer, type TestServer } from './support/server.js';

// A list's total is remembered until a change touches a column its filter reads (RememberedCounts in
// src/cache/tags.ts): a retitled event leaves the totals of date and venue windows alone, and a change of what they
// filter by, made by this process or another one on the same database, is counted at once. The response cache is off:
// these are its misses.

let server: TestServer;
let other: TestServer;
let venue: number;
let otherVenue: number;

const WINDOW = 'start_date=2033-03-01&end_date=2033-03-31';

beforeAll(async () => {
  server = await startServer({ RESPONSE_CACHE_MB: '0' });
  other = await startServer({ RESPONSE_CACHE_MB: '0' }, { databaseOf: server });
  venue = Number((await createVenue(server)).id);
  otherVenue = Number((await createVenue(server)).id);
  for (const day of ['03', '10', '17'])
    await createEvent(server, {
      title: `Concert on the ${day}th`,
      startDate: `2033-03-${day} 19:00:00`,
      endDate: `2033-03-${day} 21:00:00`,
      venues: [{ id: venue }],
    });
});
afterAll(async () => {
  await other?.close();
  await server?.close();
});

const update = (on: TestServer, id: number, input: string) =>
  on.gqlOk(`mutation { updateEvent(id: ${id}, input: { ${input} }) { id } }`);

/** The list's total and whether answering it counted (a COUNT statement). */
async function total(query: string): Promise<{ total: number; counted: boolean; ids: number[] }> {
  let answer = { total: 0, ids: [] as number[] };
  const statements = await server.captureQueries(async () => {
    const response = await fetch(`${server.url}/wp-json/calendar/events/v1/events?${query}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { events: Array<{ id: number }> };
    answer = { total: Number(response.headers.get('x-tec-total')), ids: body.events.map((event) => event.id) };
  });
  return { ...answer, counted: statements.some(({ query: sql }) => /SELECT COUNT\(\*\)/i.test(sql)) };
}

describe('remembered list totals', () => {
  it('keep a window’s total across a retitle, and count again when an event moves in or out', async () => {
    const byVenue = `${WINDOW}&venue=${venue}`;
    const first = await total(byVenue);
    expect(first).toMatchObject({ total: 3, counted: true });
    expect((await total(byVenue)).counted).toBe(false);

    // A retitle changes no column the filter reads: the total holds, and the page is read again with the new title.
    await update(server, first.ids[0]!, 'title: "Concert, retitled"');
    expect(await total(byVenue)).toMatchObject({ total: 3, counted: false });
    expect((await total(WINDOW)).total).toBe(3);

    // An event moved to another venue leaves the list: its links changed.
    await update(server, first.ids[1]!, `venues: [{ id: ${otherVenue} }]`);
    expect(await total(byVenue)).toMatchObject({ total: 2, counted: true });

    // Moved out of the window by its dates.
    await update(server, first.ids[2]!, 'startDate: "2033-04-02 19:00:00", endDate: "2033-04-02 21:00:00"');
    expect(await total(byVenue)).toMatchObject({ total: 1, counted: true });
  });

  it('count a search again when a title changes, since the search reads titles', async () => {
    const search = `${WINDOW}&search=matinee`;
    expect(await total(search)).toMatchObject({ total: 0, counted: true });
    const { ids } = await total(WINDOW);
    await update(server, ids[0]!, 'title: "A matinee"');
    expect(await total(search)).toMatchObject({ total: 1, counted: true });
  });

  it('learn of another process’s writes through the change log', async () => {
    const byVenue = `${WINDOW}&venue=${otherVenue}`;
    const before = await total(byVenue);
    expect((await total(byVenue)).counted).toBe(false);
    const created = await createEvent(other, {
      startDate: '2033-03-20 10:00:00',
      endDate: '2033-03-20 11:00:00',
      venues: [{ id: otherVenue }],
    });
    expect(await total(byVenue)).toMatchObject({ total: before.total + 1, counted: true });
    // Trashed in the other process: its status is a column the list reads.
    await other.gqlOk(`mutation { deleteEvent(id: ${created.id}) { id } }`);
    expect(await total(byVenue)).toMatchObject({ total: before.total });
  });
});
