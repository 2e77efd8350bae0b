import type { GraphQLResult, TestServer } from './server.js';

// Small factories that create records through the public GraphQL mutations, so every test builds its own data the
// way a client would. Each takes the fields to set (anything left out gets a harmless default) and answers the
// created record with at least `id` (the database ID), `globalId` and `slug`; pass `select` to ask for more fields.

let sequence = 0;
/** A value unique within the test run, for titles and names that must not clash between tests. */
export const unique = (prefix = 'x') => `${prefix}-${++sequence}-${Math.random().toString(36).slice(2, 7)}`;

type Input = Record<string, unknown>;

async function create(server: TestServer, mutation: string, inputType: string, input: Input, select: string) {
  const data = await server.gqlOk(
    `mutation ($input: ${inputType}!) { result: ${mutation}(input: $input) { id: databaseId globalId: id slug ${select} } }`,
    { input },
  );
  return data.result;
}

export function createEvent(server: TestServer, input: Input = {}, select = '') {
  return create(
    server,
    'createEvent',
    'EventInput',
    {
      title: unique('Event'),
      startDate: '2030-01-15 10:00:00',
      endDate: '2030-01-15 12:00:00',
      timezone: 'UTC',
      ...input,
    },
    select,
  );
}

export function createVenue(server: TestServer, input: Input = {}, select = '') {
  return create(server, 'createVenue', 'VenueInput', { name: unique('Venue'), ...input }, select);
}

export function createOrganizer(server: TestServer, input: Input = {}, select = '') {
  return create(server, 'createOrganizer', 'OrganizerInput', { name: unique('Organizer'), ...input }, select);
}

export function createCategory(server: TestServer, input: Input = {}, select = '') {
  return create(server, 'createEventCategory', 'TermInput', { name: unique('Category'), ...input }, select);
}

export function createTag(server: TestServer, input: Input = {}, select = '') {
  return create(server, 'createEventTag', 'TermInput', { name: unique('Tag'), ...input }, select);
}

/** The `extensions` of the one error a refused operation answers, failing when it did not fail that way. */
export function onlyError(result: GraphQLResult): {
  message: string;
  code: string;
  fields?: Record<string, string>;
  [key: string]: unknown;
} {
  if (!result.errors?.length) throw new Error(`expected an error, got data: ${JSON.stringify(result.data)}`);
  if (result.errors.length !== 1) throw new Error(`expected one error, got ${JSON.stringify(result.errors)}`);
  const [error] = result.errors;
  return { message: error!.message, ...(error!.extensions as { code: string }) };
}

/** An ISO 8601 instant `days` from now (negative: in the past), for events relative to the present. */
export function daysFromNow(days: number): string {
  return new Date(Date.now() + days * 24 * 3600_000).toISOString();
}
