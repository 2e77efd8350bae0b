import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../src/seed.js';
import { createEvent, createVenue } from './support/factories.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// Relay's object identification and the connections that bound every list, tried the way front ends use them: global
// IDs as cache keys, node(id:) refetches, nested connections over the demo data, and the Relay compiler itself.

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  // The demo data of `npm run seed`, a smaller run of it: venues with many events each, organizers, nested categories.
  const quiet = console.log;
  console.log = () => undefined;
  try {
    await seed(server.app.config, { force: true, events: 160 });
  } finally {
    console.log = quiet;
  }
}, 120_000);
afterAll(() => server?.close());

const decode = (id: string) => Buffer.from(id, 'base64').toString('utf8');

describe('global IDs and node(id:)', () => {
  it('gives every record type an opaque global ID, distinct across types, and its database ID', async () => {
    const event = await createEvent(server);
    const venue = await createVenue(server);
    const data = await server.gqlOk(
      `query ($e: ID!, $v: ID!) { event(id: $e) { id databaseId } venue(id: $v) { id databaseId } viewer { id databaseId } }`,
      { e: event.id, v: venue.id },
      ADMIN_AUTHORIZATION,
    );
    expect(decode(data.event.id)).toBe(`Event:${event.id}`);
    expect(decode(data.venue.id)).toBe(`Venue:${venue.id}`);
    expect(data.event.databaseId).toBe(event.id);
    expect(decode(data.viewer.id)).toBe(`User:${data.viewer.databaseId}`);
    // Event 1 and Venue 1 no longer share an ID: a normalising cache keyed by `id` keeps them apart.
    expect(new Set([data.event.id, data.venue.id, data.viewer.id]).size).toBe(3);
  });

  it('refetches any record with node(id:) and nodes(ids:), in order, null for one that does not exist', async () => {
    const event = await createEvent(server, { title: 'Refetched concert' });
    const venue = await createVenue(server, { name: 'Refetched hall' });
    const missing = Buffer.from('Event:2147483000').toString('base64');
    const data = await server.gqlOk(
      `query ($ids: [ID!]!, $one: ID!) {
         node(id: $one) { __typename id ... on Event { title } }
         nodes(ids: $ids) { __typename id ... on Event { title } ... on Venue { name } }
       }`,
      { one: event.globalId, ids: [venue.globalId, missing, event.globalId] },
    );
    expect(data.node).toEqual({ __typename: 'Event', id: event.globalId, title: 'Refetched concert' });
    expect(data.nodes).toEqual([
      { __typename: 'Venue', id: venue.globalId, name: 'Refetched hall' },
      null,
      { __typename: 'Event', id: event.globalId, title: 'Refetched concert' },
    ]);
  });

  it('nulls only the place of a malformed or refused ID in nodes(ids:), with its error there, and keeps the rest of data', async () => {
    const event = await createEvent(server, { title: 'Kept beside a bad ID' });
    const draft = await createEvent(server, { status: 'DRAFT' });
    const result = await server.gql(
      `query ($ids: [ID!]!, $one: ID!) { nodes(ids: $ids) { id ... on Event { title } } beside: node(id: $one) { id } }`,
      { ids: ['not an id', event.globalId, draft.globalId], one: event.globalId },
      null,
    );
    expect(result.data).toEqual({
      nodes: [null, { id: event.globalId, title: 'Kept beside a bad ID' }, null],
      beside: { id: event.globalId },
    });
    const places = result.errors!.filter((error) => error.path?.[0] === 'nodes');
    expect(places.map((error) => [error.path, error.extensions?.code])).toEqual([
      [['nodes', 0], 'BAD_USER_INPUT'],
      [['nodes', 2], 'FORBIDDEN'],
    ]);
  });

  it('applies the record type’s own visibility through node(id:): a draft is refused to anonymous readers', async () => {
    const draft = await createEvent(server, { status: 'DRAFT' });
    const result = await server.gql(`query ($id: ID!) { node(id: $id) { id } }`, { id: draft.globalId }, null);
    expect(result.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(result.data?.node).toBeNull();
  });

  it('takes a global or a database ID wherever an ID is asked for, and refuses one of another type naming the argument', async () => {
    const event = await createEvent(server);
    const venue = await createVenue(server);
    for (const id of [event.id, String(event.id), event.globalId]) {
      expect((await server.gqlOk(`query ($id: ID!) { event(id: $id) { databaseId } }`, { id })).event.databaseId).toBe(
        event.id,
      );
    }
    const wrongType = await server.gql(`query ($id: ID!) { event(id: $id) { id } }`, { id: venue.globalId });
    expect(wrongType.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { id: 'is the ID of a Venue, not of an Event' },
    });
    for (const garbage of ['not an id', 'RXZlbnQ6', '!!', Buffer.from('Event:abc').toString('base64')]) {
      const result = await server.gql(`query ($id: ID!) { node(id: $id) { id } }`, { id: garbage });
      expect(result.errors?.[0]?.extensions?.code, garbage).toBe('BAD_USER_INPUT');
    }
    const updated = await server.gqlOk(
      `mutation ($id: ID!) { updateVenue(id: $id, input: { city: "Kyoto" }) { city } }`,
      { id: venue.globalId },
    );
    expect(updated.updateVenue.city).toBe('Kyoto');
  });

  it('links an existing venue by global ID through a @oneOf input, and refuses both or neither of id and new', async () => {
    const venue = await createVenue(server);
    const created = await server.gqlOk(
      `mutation ($v: ID!) { createEvent(input: { title: "One of", startDate: "2031-01-01 10:00", endDate: "2031-01-01 11:00", venues: [{ id: $v }] }) { venues { id } } }`,
      { v: venue.globalId },
    );
    expect(created.createEvent.venues).toEqual([{ id: venue.globalId }]);
    const both = await server.gql(
      `mutation { createEvent(input: { title: "Both", startDate: "2031-01-01 10:00", endDate: "2031-01-01 11:00", venues: [{ id: ${venue.id}, new: { name: "x" } }] }) { id } }`,
    );
    expect(both.errors?.[0]?.message).toMatch(/exactly one key/i);
  });
});

describe('connections everywhere a list grows with the data', () => {
  it('pages a venue’s events, an organizer’s events and a category’s children with first/after and totalCount', async () => {
    const venues = await server.gqlOk(
      `{ venues(first: 50) { edges { node { databaseId events(first: 0) { totalCount } } } } }`,
    );
    const busiest = venues.venues.edges
      .map((edge: any) => edge.node)
      .sort((a: any, b: any) => b.events.totalCount - a.events.totalCount)[0];
    expect(busiest.events.totalCount).toBeGreaterThan(3);
    const page = (after: string | null) =>
      server.gqlOk(
        `query ($id: ID!, $after: String) { venue(id: $id) { events(first: 2, after: $after) { pageInfo { hasNextPage endCursor } edges { node { databaseId } } } } }`,
        {
          id: busiest.databaseId,
          after,
        },
      );
    const first = (await page(null)).venue.events;
    const second = (await page(first.pageInfo.endCursor)).venue.events;
    expect(first.edges).toHaveLength(2);
    expect(first.pageInfo.hasNextPage).toBe(true);
    expect(second.edges[0].node.databaseId).not.toBe(first.edges[0].node.databaseId);
    const organizers = await server.gqlOk(
      `{ organizers(first: 5) { edges { node { events { totalCount edges { node { title } } } } } } }`,
    );
    for (const edge of organizers.organizers.edges) expect(edge.node.events.edges.length).toBeLessThanOrEqual(20);
    const categories = await server.gqlOk(
      `{ eventCategories(first: 100, parent: 0, hideEmpty: false) { edges { node { name children(first: 2) { totalCount edges { node { name } } } } } } }`,
    );
    const parent = categories.eventCategories.edges.find((edge: any) => edge.node.children.totalCount > 0);
    expect(parent, 'the demo data has nested categories').toBeDefined();
  });

  it('orders the events, venues and organizers lists by orderBy and order, and offers the nodes shortcut', async () => {
    const data = await server.gqlOk(`{
      byTitle: events(first: 30, orderBy: TITLE, order: DESC) { nodes { title } edges { node { title } } }
      byStart: events(first: 30) { nodes { startsAt } }
      venues(first: 30, orderBy: NAME, order: ASC) { nodes { name } }
      organizers(first: 30, orderBy: NAME, order: DESC) { nodes { name } }
    }`);
    const titles = data.byTitle.nodes.map((node: any) => node.title);
    expect(titles).toEqual(data.byTitle.edges.map((edge: any) => edge.node.title));
    const sorted = (values: string[], direction: 1 | -1) =>
      [...values].sort((a, b) => direction * (a < b ? -1 : a > b ? 1 : 0));
    expect(titles).toEqual(sorted(titles, -1));
    const starts = data.byStart.nodes.map((node: any) => node.startsAt);
    expect(starts).toEqual(sorted(starts, 1));
    const venueNames = data.venues.nodes.map((node: any) => node.name);
    expect(venueNames.length).toBeGreaterThan(5);
    expect(venueNames).toEqual(sorted(venueNames, 1));
    const organizerNames = data.organizers.nodes.map((node: any) => node.name);
    expect(organizerNames).toEqual(sorted(organizerNames, -1));
  });

  it('refuses a page larger than the maximum with a code naming the argument', async () => {
    const result = await server.gql(`{ venues(first: 1) { edges { node { events(first: 101) { totalCount } } } } }`);
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('no query takes the process down', () => {
  const nested = (size: string) =>
    `query ${size === '$n' ? '($n: Int)' : ''} { venues(first: 3) { edges { node { events(first: ${size}) { edges { node { id title venues { events(first: ${size}) { edges { node { id title organizers { events(first: ${size}) { edges { node { id } } } } } } } } } } } } } } }`;

  it('refuses the nesting that exhausted memory, with the page size as a literal, a variable or the default', async () => {
    for (const [size, variables] of [
      ['100', {}],
      ['$n', { n: 100 }],
      ['20', {}],
    ] as const) {
      const result = await server.gql(nested(size).replace('events(first: 20)', 'events'), variables);
      expect(result.errors?.[0]?.extensions?.code, size).toBe('QUERY_TOO_COSTLY');
      expect(result.errors?.[0]?.message).toMatch(/cost/i);
      expect(result.data).toBeUndefined();
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers generated deeper and wider nestings with data or a coded refusal, and stays healthy', async () => {
    const link = ['venues', 'organizers'];
    for (let depth = 1; depth <= 6; depth++) {
      for (const size of [1, 5, 50, 100]) {
        let selection = 'id';
        for (let level = 0; level < depth; level++) {
          selection = `id title ${link[level % 2]} { id events(first: ${size}) { totalCount edges { node { ${selection} } } } }`;
        }
        const result = await server.gql(`{ events(first: ${size}) { edges { node { ${selection} } } } }`);
        if (result.errors) {
          for (const error of result.errors)
            expect(['QUERY_TOO_COSTLY', 'QUERY_TOO_DEEP', 'RESPONSE_TOO_LARGE']).toContain(error.extensions?.code);
        } else {
          expect(result.data.events.edges.length).toBeLessThanOrEqual(size);
        }
      }
    }
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
  }, 120_000);

  it('lets a month view of 100 events with venues, organizers and terms through, the page size written either way', async () => {
    const month = (first: string) =>
      `query ${first === '$n' ? '($n: Int)' : ''} { events(first: ${first}) { totalCount edges { node { id title startsAt venues { id name city } organizers { id name } categories { id name } tags { id name } } } } }`;
    for (const [first, variables] of [
      ['100', {}],
      ['$n', { n: 100 }],
    ] as const) {
      const result = await server.gql(month(first), variables);
      expect(result.errors, first).toBeUndefined();
      expect(result.data.events.edges.length).toBeGreaterThan(0);
    }
  });
});

describe('the Relay compiler', () => {
  it('accepts a @refetchable fragment against the committed schema.graphql', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-'));
    try {
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'schema.graphql'), readFileSync('schema.graphql'));
      writeFileSync(
        join(dir, 'src', 'EventCard.js'),
        [
          "import { graphql } from 'react-relay';",
          'export const fragment = graphql`',
          '  fragment EventCard_event on Event @refetchable(queryName: "EventCardRefetchQuery") {',
          '    title startsAt venues { id name events(first: 3) { edges { node { id title } } } }',
          '  }',
          '`;',
          'export const list = graphql`',
          '  fragment EventCard_list on Query @refetchable(queryName: "EventCardListQuery") @argumentDefinitions(count: { type: "Int", defaultValue: 10 }, cursor: { type: "String" }) {',
          '    events(first: $count, after: $cursor) @connection(key: "EventCard_events") { edges { node { id ...EventCard_event } } }',
          '  }',
          '`;',
        ].join('\n'),
      );
      writeFileSync(
        join(dir, 'relay.config.json'),
        JSON.stringify({ src: './src', schema: './schema.graphql', language: 'javascript' }),
      );
      const compiler = createRequire(import.meta.url).resolve('relay-compiler/cli.js');
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [compiler], { cwd: dir }).catch(
        (error) => {
          throw new Error(`relay-compiler refused the schema:\n${error.stdout}\n${error.stderr}`);
        },
      );
      expect(`${stdout}${stderr}`).not.toMatch(/\[ERROR\]/);
      const artifact = readFileSync(join(dir, 'src', '__generated__', 'EventCardRefetchQuery.graphql.js'), 'utf8');
      expect(artifact).toContain('node(id: $id)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
