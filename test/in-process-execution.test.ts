import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type DocumentNode, execute, type ExecutionResult, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RememberedCounts } from '../src/cache/tags.js';
import { createDb, type Db } from '../src/db/client.js';
import { ANONYMOUS, createContext, type Viewer } from '../src/graphql/builder.js';
import { schema } from '../src/graphql/schema.js';
import { inProcessRoot, pageVariables } from '../src/graphql/shared/connections.js';
import {
  RestCategoryListDocument,
  RestChangesWithDataDocument,
  RestEventByIdDocument,
  RestEventBySlugDocument,
  RestEventListDocument,
  RestEventsIcalDocument,
  RestOrganizerByIdDocument,
  RestOrganizerListDocument,
  RestTagListDocument,
  RestVenueByIdDocument,
  RestVenueListDocument,
} from '../src/read/operations/generated/graphql.js';
import { executeInProcess } from '../src/read/request-contexts.js';
import { createCategory, createEvent, createOrganizer, createTag, createVenue } from './support/factories.js';
import { startImageServer, type ImageServer } from './support/image-server.js';
import { startServer, type TestServer } from './support/server.js';

// REST and the public pages run their GraphQL documents compiled by graphql-jit (src/read/request-contexts.ts);
// GraphQL clients get graphql-js. The two must answer alike: the same data, the same errors at the same places, with
// the same codes, for every reader. Here each document runs both ways on the same database (written over HTTP by
// the test server), and the answers are compared whole.

let server: TestServer;
let images: ImageServer;
let db: Db;
const ids: Record<string, string> = {};
const slugs: Record<string, string> = {};
const ADMIN: Viewer = { user: { id: 1, login: 'admin', role: 'administrator' } };
const PASSWORD = 'open sesame';

beforeAll(async () => {
  images = await startImageServer();
  server = await startServer({ RESPONSE_CACHE_MB: '0' });
  db = createDb(server.app.config);
  const venue = await createVenue(server, { image: images.at('/venue.png'), city: 'Lyon' });
  const organizer = await createOrganizer(server, { email: 'someone@example.org' });
  const category = await createCategory(server);
  const tag = await createTag(server);
  const linked = {
    venues: [{ id: venue.id }],
    organizers: [{ id: organizer.id }],
    categories: [String(category.id)],
    tags: [String(tag.id)],
  };
  const published = await createEvent(server, { ...linked, image: images.at('/event.jpg'), cost: '10' });
  const draft = await createEvent(server, { ...linked, status: 'DRAFT' });
  const locked = await createEvent(server, { ...linked, password: PASSWORD });
  await createEvent(server, {
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    startDate: '2030-01-16 09:00:00',
    endDate: '2030-01-16 10:00:00',
  });
  Object.assign(ids, { published: published.id, draft: draft.id, locked: locked.id, venue: venue.id });
  Object.assign(ids, { organizer: organizer.id });
  Object.assign(slugs, { published: published.slug });
});
afterAll(async () => {
  await db?.$disconnect();
  await server?.close();
  await images?.close();
});

/** What a reader may compare of an answer: its data, and each error's message, path and extensions. */
function comparable(result: ExecutionResult<unknown>): unknown {
  return {
    data: result.data,
    errors: result.errors?.map((error) => ({
      message: error.message,
      path: error.path,
      extensions: error.extensions,
    })),
  };
}

/**
 * `document` run compiled, then by graphql-js, each with a context of its own (nothing remembered from the other run),
 * and what `taken` answers after each (the statements a counting client saw).
 */
async function bothWays(
  document: DocumentNode,
  variables: object,
  viewer: Viewer,
  through: Db = db,
  taken: () => string[] = () => [],
) {
  const context = () =>
    createContext(
      through,
      server.app.config,
      viewer,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      new RememberedCounts(10),
    );
  const compiled = await executeInProcess(document as TypedDocumentNode<unknown, object>, variables, context());
  const compiledStatements = taken();
  const interpreted = await execute({
    schema,
    document,
    variableValues: variables as Record<string, unknown>,
    contextValue: context(),
    rootValue: inProcessRoot(variables),
  });
  const interpretedStatements = taken();
  return {
    compiled: comparable(compiled),
    interpreted: comparable(interpreted),
    compiledStatements,
    interpretedStatements,
  };
}

type PathLink = { prev?: PathLink; key: string | number };

/** Shows `watch` the path of each call of `type.field`'s resolver; answers the function that stops it. */
function spyOnPaths(type: string, field: string, watch: (path: PathLink) => void): () => void {
  const definition = (schema.getType(type) as GraphQLObjectType).getFields()[field]!;
  const resolve = definition.resolve!;
  definition.resolve = (parent, args, context, info) => {
    const answer = resolve(parent, args, context, info);
    watch(info.path as PathLink);
    return answer;
  };
  return () => {
    definition.resolve = resolve;
  };
}

const READS: Array<[name: string, document: DocumentNode, variables: () => object]> = [
  ['the events list', RestEventListDocument, () => ({ ...pageVariables(1, 50), filter: { startDate: '2030-01-01' } })],
  ['its second page', RestEventListDocument, () => ({ ...pageVariables(2, 2), filter: { startDate: '2030-01-01' } })],
  ['a published event', RestEventByIdDocument, () => ({ id: ids.published })],
  ['an event by slug', RestEventBySlugDocument, () => ({ slug: slugs.published })],
  ['a draft', RestEventByIdDocument, () => ({ id: ids.draft })],
  ['a locked event', RestEventByIdDocument, () => ({ id: ids.locked })],
  ['a locked event, unlocked', RestEventByIdDocument, () => ({ id: ids.locked, password: PASSWORD })],
  ['a locked event, a wrong password', RestEventByIdDocument, () => ({ id: ids.locked, password: 'no' })],
  ['an unknown event', RestEventByIdDocument, () => ({ id: '999999' })],
  ['a malformed ID', RestEventByIdDocument, () => ({ id: 'not an id' })],
  ['the venues', RestVenueListDocument, () => ({ first: 10, eventId: ids.published })],
  ['a venue', RestVenueByIdDocument, () => ({ id: ids.venue })],
  ['the organizers', RestOrganizerListDocument, () => ({ first: 10 })],
  ['an organizer', RestOrganizerByIdDocument, () => ({ id: ids.organizer })],
  ['the categories', RestCategoryListDocument, () => ({ first: 10 })],
  ['the tags', RestTagListDocument, () => ({ first: 10 })],
  ['the change feed with the records', RestChangesWithDataDocument, () => ({ first: 50 })],
  ['the iCalendar feed', RestEventsIcalDocument, () => ({ filter: { startDate: '2030-01-01' } })],
];

describe('compiled in-process documents', () => {
  // First: a compiled document keeps the resolvers it was compiled with, and the spies must be among them.
  it('hand resolvers one path link per place, the one the fields below it link to (plugin-prisma keys its plans by it)', async () => {
    const venuesPaths = new Set<unknown>();
    const imageParents: unknown[] = [];
    const restore = [
      spyOnPaths('Event', 'venues', (path) => venuesPaths.add(path)),
      spyOnPaths('Venue', 'image', (path) => imageParents.push(path.prev?.prev)),
    ];
    try {
      await executeInProcess(RestEventListDocument, { ...pageVariables(1, 50) }, createContext(db, server.app.config));
    } finally {
      for (const undo of restore) undo();
    }
    expect(venuesPaths.size).toBeGreaterThan(0);
    expect(imageParents.length).toBeGreaterThan(0);
    for (const parent of imageParents) expect(venuesPaths.has(parent)).toBe(true);
  });

  for (const [viewerName, viewer] of [
    ['an anonymous reader', ANONYMOUS],
    ['an administrator', ADMIN],
  ] as const) {
    it.each(READS)(`answer %s for ${viewerName} as graphql-js does`, async (_name, document, variables) => {
      const { compiled, interpreted } = await bothWays(document, variables(), viewer);
      expect(compiled).toEqual(interpreted);
    });
  }

  it('answer with data and with errors where expected (the comparison above compares something)', async () => {
    const list = await bothWays(RestEventListDocument, { ...pageVariables(1, 50) }, ANONYMOUS);
    const events = (list.compiled as { data: { events: { edges: Array<{ node: Record<string, unknown> }> } } }).data
      .events.edges;
    const published = events.find((edge) => String(edge.node.id) === String(ids.published))!.node;
    expect(published.venues).toEqual([expect.objectContaining({ city: 'Lyon', image: expect.anything() })]);
    expect(events.some((edge) => String(edge.node.id) === String(ids.draft))).toBe(false);
    const draft = await bothWays(RestEventByIdDocument, { id: ids.draft }, ANONYMOUS);
    expect((draft.compiled as { errors: unknown[] }).errors).toHaveLength(1);
  });

  it('plan the relations of a page as graphql-js does: the same statements, as many for 3 events as for 50', async () => {
    const statements: string[] = [];
    const counting = createDb(server.app.config, {
      counter: { count: 0, seen: ({ query }) => statements.push(query) },
    });
    const page = (size: number) => ({ ...pageVariables(1, size), filter: { startDate: '2030-01-01' } });
    try {
      const large = await bothWays(RestEventListDocument, page(50), ANONYMOUS, counting, () => statements.splice(0));
      const small = await bothWays(RestEventListDocument, page(3), ANONYMOUS, counting, () => statements.splice(0));
      // Sorted: on PostgreSQL the loads of one wave go out on several connections, in no fixed order.
      expect(large.compiledStatements.sort()).toEqual(large.interpretedStatements.sort());
      expect(small.compiledStatements.sort()).toEqual(small.interpretedStatements.sort());
      expect(large.compiledStatements.length).toBeGreaterThan(3);
      expect(large.compiledStatements.length).toBe(small.compiledStatements.length);
    } finally {
      await counting.$disconnect();
    }
  });
});
