import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory, createEvent, createOrganizer, createTag, createVenue } from './support/factories.js';
import { TEST_ENGINE } from './support/database.js';
import { startServer, type TestServer } from './support/server.js';
import { startImageServer, type ImageServer } from './support/image-server.js';
import { call } from './support/rest.js';

// Images given by URL are fetched: they come from a local image server.
let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
});
afterAll(() => images?.close());

// The cost of a page of events must not depend on its size: relations load in planned joins or batched loaders,
// never once per event (no N+1).

let server: TestServer;
let pageTag: string;
const EVENTS_ON_PAGE = 50;

beforeAll(async () => {
  // The statements of computing a page are counted: the response cache would answer repeated queries from memory.
  server = await startServer({ RESPONSE_CACHE_MB: '0' });
  const [v1, v2, v3] = await Promise.all([
    createVenue(server, { image: images.at('/venue.png') }),
    createVenue(server),
    createVenue(server),
  ]);
  const [o1, o2, o3] = await Promise.all([
    createOrganizer(server, { image: images.at('/organizer.png') }),
    createOrganizer(server),
    createOrganizer(server),
  ]);
  const parentCategory = await createCategory(server);
  const categories = await Promise.all([1, 2, 3, 4].map(() => createCategory(server, { parentId: parentCategory.id })));
  const tags = await Promise.all([1, 2, 3, 4].map(() => createTag(server)));
  const marker = await createTag(server);
  pageTag = marker.slug;
  const series = await createEvent(server, { title: 'Series' });
  for (let i = 0; i < EVENTS_ON_PAGE; i++) {
    const pick = <T>(list: T[], n: number) => Array.from({ length: n }, (_, k) => list[(i + k) % list.length]!);
    await createEvent(server, {
      startDate: `2032-01-01 10:${String(i).padStart(2, '0')}:00`,
      endDate: `2032-01-01 12:00:00`,
      image: images.at(`/event-${i % 3}.jpg`),
      parentId: i % 2 ? series.id : undefined,
      venues: pick([v1, v2, v3], 2).map((venue) => ({ id: venue.id })),
      organizers: pick([o1, o2, o3], 2).map((organizer) => ({ id: organizer.id })),
      categories: pick(categories, 3).map((category) => String(category.id)),
      tags: [...pick(tags, 3).map((tag) => String(tag.id)), String(marker.id)],
    });
  }
});
afterAll(() => server.close());

const PAGE = `query ($filter: EventsFilter, $first: Int) {
  events(filter: $filter, first: $first) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges {
      cursor
      node {
        id title slug startsAt endsAt startsAtLocal timezoneAbbreviation costDetails { values } hasPassword
        author { id }
        image { id url extension }
        parent { id title }
        venues { id name latitude image { url } }
        organizers { id name email image { url } }
        categories { id name slug count parent { id name count } children { edges { node { id } } } }
        tags { id name slug count }
      }
    }
  }
}`;

/** The first table a statement reads, as each engine quotes it (`main`.`Event` on SQLite, "public"."Event"). */
const tableOf = (query: string) => /FROM\s+(?:"[^"]+"\.|`[^`]+`\.)?["`](\w+)["`]/.exec(query)?.[1];

async function pageCost(first: number) {
  let data: any;
  const sent = await server.captureQueries(async () => {
    data = await server.gqlOk(PAGE, { filter: { tags: [pageTag] }, first });
  });
  return { statements: sent.length, tables: sent.map(({ query }) => tableOf(query)), data };
}

describe('SQL statements per page of events', () => {
  it('loads a page of 50 events with every relation in as many statements as a page of 5', async () => {
    // The list total is remembered per filter until the next write: a first read counts, later ones do not. After
    // this process's own writes (the fixtures) PostgreSQL reads the data version once; SQLite reads it on a connection
    // of its own, outside Prisma (src/db/data-version.ts).
    const first = await pageCost(5);
    const small = await pageCost(5);
    const large = await pageCost(EVENTS_ON_PAGE);
    // The first read at a data version also asks how far recurring series are materialised (src/graphql/events/series.ts).
    // PostgreSQL: after this process's writes the data version is read once more, by this request or by a background
    // task of the process (the webhook dispatcher asks for the version too), whichever asks first.
    const versionRead = TEST_ENGINE === 'postgres' ? [0, 1] : [0];
    // The process's first remembered total also finds where the change log ends, once (RememberedCounts in
    // src/cache/tags.ts: the data version, the last entry, the last pruned one).
    const logEnd = [0, 3];
    const expected = versionRead.flatMap((read) => logEnd.map((end) => small.statements + 2 + read + end));
    expect(expected).toContain(first.statements);

    // The page really holds what it claims, so the count measures real work.
    expect(large.data.events.totalCount).toBe(EVENTS_ON_PAGE);
    expect(large.data.events.edges).toHaveLength(EVENTS_ON_PAGE);
    for (const { node } of large.data.events.edges) {
      expect(node.venues).toHaveLength(2);
      expect(node.organizers).toHaveLength(2);
      expect(node.categories).toHaveLength(3);
      expect(node.tags).toHaveLength(4);
      expect(node.image).not.toBeNull();
      expect(node.categories[0].parent).not.toBeNull();
    }
    expect(large.data.events.edges[0].node.categories[0].count).toBeGreaterThanOrEqual(EVENTS_ON_PAGE / 4);

    expect(large.statements).toBe(small.statements);
    // One statement per kind of thing, whatever the page size: the tag lookup of the filter and the tag's links (the
    // filter names the events by ID: src/graphql/events/filter.ts), the page, author, parent, the links of the page's
    // events (one statement over the three link tables), venues, organizers, the categories (with their parents and
    // children, a statement each), the tags (asked with another selection), images. Term counts are a column;
    // whether the remembered total is current costs no statement.
    expect(large.statements).toBeLessThanOrEqual(13);
    // The images of the events, of their venues and of their organizers are one statement: Prisma's relation
    // planning reads each relation on its own, a request's DataLoader reads them together (imageOf,
    // src/graphql/media/index.ts).
    expect(large.tables.filter((table) => table === 'Media')).toHaveLength(1);
    const organizerImages = large.data.events.edges.flatMap(({ node }: any) =>
      node.organizers.map((o: any) => o.image),
    );
    expect(organizerImages.filter((image: any) => image?.url.endsWith('/organizer.png')).length).toBeGreaterThan(0);
    expect(large.data.events.edges.some(({ node }: any) => node.venues.some((v: any) => v.image))).toBe(true);
  });

  it('loads one event with every relation in a handful of statements', async () => {
    const { data } = await pageCost(1);
    const id = data.events.edges[0].node.id;
    const one = PAGE.replace(
      /query \([^)]*\) \{\s*events\([^)]*\) \{[\s\S]*?node \{/,
      'query ($id: ID!) { event(id: $id) {',
    ).replace(/\}\s*\}\s*\}\s*\}\s*$/, '}}');
    const statements = await server.countQueries(() => server.gqlOk(one, { id }));
    // The page's statements less the filter's two.
    expect(statements).toBeLessThanOrEqual(11);
  });

  it('answers a REST page of events in six statements, with 5 events or 50', async () => {
    const restPage = async (perPage: number) => {
      let body: any;
      const sent = await server.captureQueries(async () => {
        const response = await call(server, 'GET', '/events', {
          query: { per_page: perPage, start_date: '2032-01-01', end_date: '2032-01-02' },
        });
        expect(response.status).toBe(200);
        body = response.body;
      });
      return { statements: sent.length, tables: sent.map(({ query }) => tableOf(query)), body };
    };
    await restPage(5); // the first read of a list remembers its total, as every later read finds it
    const small = await restPage(5);
    const large = await restPage(EVENTS_ON_PAGE);
    expect(large.body.events).toHaveLength(EVENTS_ON_PAGE);
    for (const event of large.body.events) {
      expect(event.venue).toHaveLength(2);
      expect(event.organizer).toHaveLength(2);
      expect(event.categories).toHaveLength(3);
      expect(event.tags).toHaveLength(4);
    }
    // The events, the links of all of them (one statement over the three link tables: src/db/event-links.ts), the
    // venues, the organizers, the terms, and the images of events, venues and organizers together.
    expect(large.tables.sort()).toEqual(['Event', 'EventVenue', 'Media', 'Organizer', 'Term', 'Venue']);
    expect(small.statements).toBe(large.statements);
  });

  it('lists the events of venues and the children of categories without a statement per record', async () => {
    const query = `query ($first: Int) {
      eventCategories(first: $first, hideEmpty: false) { edges { node { id count parent { id } children { edges { node { id count } } } } } }
      venues(first: $first) { edges { node { id events { edges { node { id categories { id count } venues { id } } } } } } }
    }`;
    const few = await server.countQueries(() => server.gqlOk(query, { first: 1 }));
    const many = await server.countQueries(() => server.gqlOk(query, { first: 100 }));
    // A page of 100 never costs more statements than a page of 1 (the bound does not grow with the page).
    expect(many).toBeLessThanOrEqual(few);
    expect(few).toBeLessThan(20);
  });
});
