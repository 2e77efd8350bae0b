import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RestResponse } from './support/rest.js';
import { createCategory, createEvent, createVenue, unique } from './support/factories.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// Many clients update one event at once, over REST and GraphQL. Whatever order the server takes them in, the event
// ends up as exactly one of the submitted updates in full (last write wins): never the title of one with the venue,
// organizers or terms of another. The server keeps answering other requests during the burst.

const UPDATES = 30;
const RESPONSIVE_WITHIN_MS = 10_000;
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

interface EventState {
  title: string;
  description: string;
  startsAtLocal: string;
  endsAtLocal: string;
  timezone: string;
  cost: string;
  venues: number[];
  organizers: number[];
  categories: number[];
  tags: number[];
}

/** Creates `count` records of one kind in a single GraphQL request (aliases), answering their IDs in order. */
async function createMany(
  mutation: string,
  inputType: string,
  count: number,
  input: (n: number) => Record<string, unknown>,
): Promise<number[]> {
  const variables = Object.fromEntries(Array.from({ length: count }, (_, n) => [`i${n}`, input(n)]));
  const definitions = Object.keys(variables)
    .map((name) => `$${name}: ${inputType}!`)
    .join(', ');
  const fields = Object.keys(variables)
    .map((name) => `${name}: ${mutation}(input: $${name}) { databaseId }`)
    .join(' ');
  const data = await server.gqlOk(`mutation (${definitions}) { ${fields} }`, variables);
  return Object.keys(variables).map((name) => data[name].databaseId as number);
}

/** One coherent update per client: every field and every link distinct from the other clients'. */
async function plannedUpdates(token: string): Promise<EventState[]> {
  const venues = await createMany('createVenue', 'VenueInput', UPDATES, (n) => ({ name: `Burst venue ${n} ${token}` }));
  const organizers = await createMany('createOrganizer', 'OrganizerInput', UPDATES * 2, (n) => ({
    name: `Burst organizer ${n} ${token}`,
  }));
  const categories = await createMany('createEventCategory', 'TermInput', UPDATES, (n) => ({
    name: `Burst category ${n} ${token}`,
  }));
  const tags = await createMany('createEventTag', 'TermInput', UPDATES * 2, (n) => ({
    name: `Burst tag ${n} ${token}`,
  }));
  return Array.from({ length: UPDATES }, (_, n) => {
    const day = String(1 + n).padStart(2, '0');
    return {
      title: `Burst update ${n} ${token}`,
      description: `<p>Written by client ${n}</p>`,
      startsAtLocal: `2031-03-${day} ${String(8 + (n % 10)).padStart(2, '0')}:15:00`,
      endsAtLocal: `2031-03-${day} 20:45:00`,
      timezone: ZONES[n % ZONES.length]!,
      // With its symbol: REST shows a bare amount with the site's currency, and this compares what was sent.
      cost: `$${10 + n}`,
      venues: [venues[n]!],
      organizers: [organizers[2 * n]!, organizers[2 * n + 1]!].sort((a, b) => a - b),
      categories: [categories[n]!],
      tags: [tags[2 * n]!, tags[2 * n + 1]!].sort((a, b) => a - b),
    };
  });
}

const UPDATE_EVENT = `mutation ($id: ID!, $input: EventInput!) { updateEvent(id: $id, input: $input) { id } }`;

/** Sends one planned update: even clients over REST (POST, PUT and PATCH in turn), odd ones over GraphQL. */
async function sendUpdate(eventId: number, update: EventState, n: number): Promise<number> {
  if (n % 2 === 1) {
    const input = {
      title: update.title,
      description: update.description,
      startDate: update.startsAtLocal,
      endDate: update.endsAtLocal,
      timezone: update.timezone,
      cost: update.cost,
      venues: update.venues.map((id) => ({ id })),
      organizers: update.organizers.map((id) => ({ id })),
      categories: update.categories.map(String),
      tags: update.tags.map(String),
    };
    const result = await server.gql(UPDATE_EVENT, { id: eventId, input });
    return result.errors?.length ? 500 : 200;
  }
  const method = ['POST', 'PUT', 'PATCH'][(n / 2) % 3]!;
  const response = await call(server, method, `/events/${eventId}`, {
    json: {
      title: update.title,
      description: update.description,
      start_date: update.startsAtLocal,
      end_date: update.endsAtLocal,
      timezone: update.timezone,
      cost: update.cost,
      venue: update.venues[0],
      organizer: update.organizers,
      categories: update.categories,
      tags: update.tags,
    },
  });
  return response.status;
}

const EVENT_STATE = `query ($id: ID!) { event(id: $id) {
  title description startsAtLocal endsAtLocal timezone cost
  venues { databaseId } organizers { databaseId } categories { databaseId } tags { databaseId }
} }`;

const ids = (records: Array<{ id: number }>) => records.map((record) => Number(record.id)).sort((a, b) => a - b);
// GraphQL links are read by `databaseId` without an alias: aliases count against the limit per document (100).
const databaseIds = (records: Array<{ databaseId: number }>) =>
  records.map((record) => record.databaseId).sort((a, b) => a - b);

async function graphqlState(eventId: number): Promise<EventState> {
  const { event } = await server.gqlOk(EVENT_STATE, { id: eventId }, ADMIN_AUTHORIZATION);
  return {
    ...event,
    venues: databaseIds(event.venues),
    organizers: databaseIds(event.organizers),
    categories: databaseIds(event.categories),
    tags: databaseIds(event.tags),
  };
}

async function restState(eventId: number): Promise<EventState> {
  const { status, body } = await call(server, 'GET', `/events/${eventId}`);
  expect(status).toBe(200);
  return {
    title: body.title,
    description: body.description,
    startsAtLocal: body.start_date,
    endsAtLocal: body.end_date,
    timezone: body.timezone,
    cost: body.cost,
    venues: body.venue?.id ? [body.venue.id] : [],
    organizers: ids(body.organizer ?? []),
    categories: ids(body.categories ?? []),
    tags: ids(body.tags ?? []),
  };
}

/** Milliseconds a request takes, failing unless it answers 200. */
async function timed(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  expect(response.status, url).toBe(200);
  return performance.now() - started;
}

/** `n` milliseconds, to issue the probes once the updates are in flight. */
const pause = (n: number) => new Promise((resolve) => setTimeout(resolve, n));

/** Thrown to roll a transaction back, carrying the requests made while it was open. */
class RolledBack extends Error {
  constructor(readonly during: Promise<[RestResponse, RestResponse]>) {
    super('rolled back on purpose');
  }
}

describe('concurrent updates of one event', () => {
  it('leave the event equal to exactly one submitted update, links included, and the server answering meanwhile', async () => {
    const token = unique('burst');
    const updates = await plannedUpdates(token);
    const event = await createEvent(server, { title: `Burst target ${token}` });

    const statuses = Promise.all(updates.map((update, n) => sendUpdate(event.id, update, n)));
    await pause(20);
    const [health, list] = await Promise.all([
      timed(`${server.url}/healthz`),
      timed(`${server.url}/wp-json/calendar/events/v1/events?per_page=5`),
    ]);
    expect(await statuses).toEqual(Array(UPDATES).fill(200));
    expect(health).toBeLessThan(RESPONSIVE_WITHIN_MS);
    expect(list).toBeLessThan(RESPONSIVE_WITHIN_MS);

    const stored = await graphqlState(event.id);
    const winners = updates.filter((update) => JSON.stringify(update) === JSON.stringify(stored));
    expect(winners, `stored state ${JSON.stringify(stored)} is not one of the submitted updates`).toHaveLength(1);
    expect(await restState(event.id)).toEqual(stored);
  });
});

describe('requests made while another write is in its transaction', () => {
  // On SQLite all requests share one connection: a statement sent while another request's transaction is open there
  // used to become part of it. The held transaction stands for a concurrent write that fails (a slug clash, a check).
  it('stay out of it: their writes are kept when it rolls back, and their reads do not see its changes', async () => {
    const category = await createCategory(server, { name: unique('Category to rename') });
    const venue = await createVenue(server, { name: unique('Venue changed in a rolled-back transaction') }, 'name');
    const requestsMeanwhile = server.app.db
      .$transaction(
        async (tx) => {
          await tx.venue.update({ where: { id: venue.id }, data: { name: 'Never committed' } });
          const during = Promise.all([
            call(server, 'POST', `/categories/${category.id}`, { json: { name: `Renamed ${category.slug}` } }),
            call(server, 'GET', `/venues/${venue.id}`),
          ]);
          await Promise.race([during, pause(1000)]);
          throw new RolledBack(during);
        },
        { timeout: 15_000 },
      )
      .catch((error: unknown) => (error instanceof RolledBack ? error.during : Promise.reject(error)));
    const [rename, read] = await requestsMeanwhile;
    expect(rename.status).toBe(200);
    expect(read.status).toBe(200);
    const stored = await call(server, 'GET', `/categories/${category.id}`);
    expect(stored.body.name, 'the acknowledged rename was undone').toBe(`Renamed ${category.slug}`);
    expect(read.body.venue, 'a read made meanwhile saw the uncommitted change').toBe(venue.name);
  });
});
