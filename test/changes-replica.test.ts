import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory, createEvent, createOrganizer, createTag, createVenue } from './support/factories.js';
import { call } from './support/rest.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// A replica built as a sync client builds one (issue 29, point 5): a full read of the events list, then the change
// feed from a cursor taken before it, applying each page's records as they come (REST `include_data`, GraphQL
// `node`), with no other request. After creates, edits of the venues, organizers and terms events embed (a rename, a
// category whose event count moved, a trashed venue), trash, restore, deletion and series edits, the replica equals a
// fresh listing byte for byte. Before the feed told of the events embedding a changed record, the embedded copies
// stayed stale.

let server: TestServer;
const WINDOW = { start_date: '2000-01-01', end_date: '2100-12-31' };

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.close();
});

const admin = (query: string, variables: Record<string, unknown> = {}) =>
  server.gqlOk(query, variables, ADMIN_AUTHORIZATION);

/** Every event the REST list shows an anonymous reader, as the JSON it sends, by ID. */
async function restListing(): Promise<Map<number, string>> {
  const events = new Map<number, string>();
  for (let page = 1; ; page++) {
    const answer = await call(server, 'GET', '/events', { query: { ...WINDOW, per_page: 50, page } });
    expect(answer.status, answer.text).toBe(200);
    for (const event of answer.body.events) events.set(event.id, JSON.stringify(event));
    if (page >= answer.body.total_pages) return events;
  }
}

/** Applies the REST change feed from `since` to `replica`; answers the cursor to go on from. */
async function followRest(replica: Map<number, string>, since: string): Promise<string> {
  let cursor = since;
  for (let pages = 0; pages < 100; pages++) {
    const answer = await call(server, 'GET', '/changes', { query: { since: cursor, include_data: true, per_page: 5 } });
    expect(answer.status, answer.text).toBe(200);
    for (const change of answer.body.changes) {
      if (change.type !== 'event') continue;
      if (change.action === 'deleted') replica.delete(change.id);
      else replica.set(change.id, JSON.stringify(change.data));
    }
    cursor = answer.body.next;
    if (!answer.body.more) return cursor;
  }
  throw new Error('the feed never ended');
}

const EVENT_FIELDS = `databaseId title startsAt endsAt status
  venues { databaseId name city status }
  organizers { databaseId name }
  categories { databaseId name count }
  tags { databaseId name count }`;

async function graphqlListing(): Promise<Map<number, string>> {
  const events = new Map<number, string>();
  let after: string | null = null;
  for (;;) {
    const data: any = await server.gqlOk(
      `query ($after: String) { events(filter: { startDate: "2000-01-01", endDate: "2100-12-31" }, first: 100, after: $after) {
        nodes { ${EVENT_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
      { after },
    );
    for (const event of data.events.nodes) events.set(event.databaseId, JSON.stringify(event));
    if (!data.events.pageInfo.hasNextPage) return events;
    after = data.events.pageInfo.endCursor;
  }
}

async function followGraphql(replica: Map<number, string>, since: string): Promise<string> {
  let cursor = since;
  for (let pages = 0; pages < 100; pages++) {
    const data: any = await server.gqlOk(
      `query ($since: String) { changes(since: $since, first: 5) {
        nodes { type databaseId action node { ... on Event { ${EVENT_FIELDS} } } } next more } }`,
      { since: cursor },
    );
    for (const change of data.changes.nodes) {
      if (change.type !== 'EVENT') continue;
      if (change.action === 'DELETED') replica.delete(change.databaseId);
      else replica.set(change.databaseId, JSON.stringify(change.node));
    }
    cursor = data.changes.next;
    if (!data.changes.more) return cursor;
  }
  throw new Error('the feed never ended');
}

const cursorNow = async () => (await call(server, 'GET', '/changes')).body.next as string;

describe('a replica that follows the change feed', () => {
  it('equals a fresh listing byte for byte after edits of what events embed, over REST and GraphQL', async () => {
    const hall = await createVenue(server, { name: 'Town hall', city: 'Graz' });
    const park = await createVenue(server, { name: 'City park', city: 'Graz' });
    const ana = await createOrganizer(server, { name: 'Ana Events' });
    const music = await createCategory(server, { name: 'Music' });
    const jazz = await createCategory(server, { name: 'Jazz', parentId: music.id });
    const free = await createTag(server, { name: 'Free entry' });
    const event = (title: string, day: string, input: Record<string, unknown> = {}) =>
      createEvent(server, { title, startDate: `${day} 19:00:00`, endDate: `${day} 21:00:00`, ...input });
    const concert = await event('Concert', '2031-03-01', {
      venues: [{ id: hall.id }],
      organizers: [{ id: ana.id }],
      categories: [String(jazz.id)],
      tags: [String(free.id)],
    });
    await event('Recital', '2031-03-02', { venues: [{ id: hall.id }], categories: [String(jazz.id)] });
    const picnic = await event('Picnic', '2031-03-03', { venues: [{ id: park.id }], tags: [String(free.id)] });
    const series = await event('Weekly jam', '2031-03-04', {
      venues: [{ id: park.id }],
      organizers: [{ id: ana.id }],
      categories: [String(music.id)],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    });
    const doomed = await event('Cancelled talk', '2031-03-05', { categories: [String(music.id)] });

    const restCursor = await cursorNow();
    const restReplica = await restListing();
    const graphqlCursor = await cursorNow();
    const graphqlReplica = await graphqlListing();
    expect(restReplica.size).toBe(8);

    await admin(
      'mutation ($id: ID!) { updateVenue(id: $id, input: { name: "Old town hall", city: "Leoben" }) { id } }',
      {
        id: hall.id,
      },
    );
    await admin('mutation ($id: ID!) { updateOrganizer(id: $id, input: { name: "Ana & Bo Events" }) { id } }', {
      id: ana.id,
    });
    await admin('mutation ($id: ID!) { updateEventCategory(id: $id, input: { name: "Jazz & blues" }) { id } }', {
      id: jazz.id,
    });
    // A new Jazz event: the category's count moves in every event that embeds it.
    await event('Late set', '2031-03-06', { categories: [String(jazz.id)], tags: [String(free.id)] });
    await admin('mutation ($id: ID!) { updateEventTag(id: $id, input: { name: "Free" }) { id } }', { id: free.id });
    await admin('mutation ($id: ID!) { deleteVenue(id: $id) { id } }', { id: park.id });
    await admin('mutation ($id: ID!) { deleteEvent(id: $id) { id } }', { id: picnic.id });
    await admin('mutation ($id: ID!) { updateEvent(id: $id, input: { status: PUBLISH }) { id } }', { id: picnic.id });
    await admin('mutation ($id: ID!) { deleteEvent(id: $id) { id } }', { id: doomed.id });
    await admin('mutation ($id: ID!) { deleteEvent(id: $id, force: true) { id } }', { id: doomed.id });
    await admin('mutation ($id: ID!) { updateEvent(id: $id, input: { title: "Weekly jam session" }) { id } }', {
      id: series.id,
    });
    await admin('mutation ($id: ID!) { updateEvent(id: $id, input: { categories: [] }) { id } }', { id: concert.id });

    await followRest(restReplica, restCursor);
    const restFresh = await restListing();
    expect([...restReplica.keys()].sort()).toEqual([...restFresh.keys()].sort());
    for (const [id, json] of restFresh) expect(restReplica.get(id), `REST event ${id}`).toBe(json);

    await followGraphql(graphqlReplica, graphqlCursor);
    const graphqlFresh = await graphqlListing();
    expect([...graphqlReplica.keys()].sort()).toEqual([...graphqlFresh.keys()].sort());
    for (const [id, json] of graphqlFresh) expect(graphqlReplica.get(id), `GraphQL event ${id}`).toBe(json);
  });
});
