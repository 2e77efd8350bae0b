import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createDb, type Db } from '../src/db/client.js';
import { createEvent, createVenue } from './support/factories.js';
import { startServer, type TestServer } from './support/server.js';

// A venue, organizer or term filter names a few linked events by ID and filters through the links when there are
// more (src/graphql/events/filter.ts, LINKED_EVENTS_BY_ID = 500): both ways list the same events.

const MANY = 520;
let server: TestServer;
let db: Db;
let busyVenue: number;
let quietVenue: number;

beforeAll(async () => {
  server = await startServer({ RESPONSE_CACHE_MB: '0' });
  db = createDb(loadConfig({ DATABASE_URL: server.databaseUrl }));
  busyVenue = Number((await createVenue(server)).id);
  quietVenue = Number((await createVenue(server)).id);
  const template = await createEvent(server, {
    startDate: '2034-02-01 09:00:00',
    endDate: '2034-02-01 10:00:00',
    venues: [{ id: busyVenue }],
  });
  for (const day of ['02', '03', '04'])
    await createEvent(server, {
      startDate: `2034-02-${day} 09:00:00`,
      endDate: `2034-02-${day} 10:00:00`,
      venues: [{ id: quietVenue }],
    });
  // Copies of one event straight into the database, the API would take minutes for this many.
  const { id: _id, ...row } = await db.event.findUniqueOrThrow({ where: { id: Number(template.id) } });
  await db.event.createMany({
    data: Array.from({ length: MANY - 1 }, (_, n) => ({ ...row, slug: `copy-${n}`, title: `Copy ${n}` })),
  });
  const copies = await db.event.findMany({ where: { slug: { startsWith: 'copy-' } }, select: { id: true } });
  await db.eventVenue.createMany({ data: copies.map(({ id }) => ({ eventId: id, venueId: busyVenue })) });
}, 60_000);
afterAll(async () => {
  await db?.$disconnect();
  await server?.close();
});

async function list(query: string) {
  const response = await fetch(`${server.url}/wp-json/calendar/events/v1/events?${query}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { events: Array<{ id: number; venue: { id: number } }> };
  return { total: Number(response.headers.get('x-tec-total')), events: body.events };
}

describe('events of a venue', () => {
  const window = 'start_date=2034-02-01&end_date=2034-02-28&per_page=50';

  it('lists a venue with more linked events than are named by ID through its links', async () => {
    const { total, events } = await list(`${window}&venue=${busyVenue}`);
    expect(total).toBe(MANY);
    expect(events).toHaveLength(50);
    for (const event of events) expect(event.venue.id).toBe(busyVenue);
  });

  it('lists a venue with few events by their IDs, and both venues together', async () => {
    expect((await list(`${window}&venue=${quietVenue}`)).total).toBe(3);
    // REST takes one venue; GraphQL takes several.
    const data = await server.gqlOk(
      `query ($venues: [Int!]) { events(first: 1, filter: { venues: $venues, startDate: "2034-02-01", endDate: "2034-02-28" }) { totalCount } }`,
      { venues: [busyVenue, quietVenue] },
    );
    expect(data.events.totalCount).toBe(MANY + 3);
  });
});
