import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isRequiredArgument,
  GraphQLNonNull,
  type GraphQLField,
  type GraphQLList,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { schema } from '../src/graphql/schema.js';
import { createCategory, createEvent, createOrganizer, createTag, createVenue } from './support/factories.js';
import {
  FUZZ_TEST_TIMEOUT_MS,
  anyValue,
  databaseSnapshot,
  fuzzRuns,
  reportRequestsSent,
  hostileValue,
  longIdList,
  nastyString,
  snapshot,
  valueFor,
} from './support/fuzz.js';
import { ADMIN_AUTHORIZATION, startServer, type As, type TestServer } from './support/server.js';

vi.setConfig({ testTimeout: FUZZ_TEST_TIMEOUT_MS });

reportRequestsSent('fuzz-graphql');

// Bad input never yields a 5xx or an unexpected error over GraphQL. Every root field of the schema (src/graphql) is
// called with random and adversarial variables shaped after its argument types (EventsFilter, EventInput, …): queries
// anonymously and as the administrator, mutations as the administrator. Each answer is below 500 and every error in
// it is an expected one (a `code` other than INTERNAL_SERVER_ERROR). Queries change nothing; a refused mutation
// changes nothing either. Mutations on accounts (users, passwords, tokens) are left out: a random ID would revoke the
// administrator's own credential. A failure prints fast-check's seed and the shrunk call; FUZZ_SEED=<seed> replays it.

type RootField = { operation: 'query' | 'mutation'; field: GraphQLField<unknown, unknown> };

const ACCOUNT_TYPES = new Set(['User', 'IssuedCredential', 'Credential']);
const rootFields = (operation: 'query' | 'mutation'): RootField[] =>
  Object.values((operation === 'query' ? schema.getQueryType() : schema.getMutationType())!.getFields()).map(
    (field) => ({ operation, field }),
  );
const QUERIES = rootFields('query');
const MUTATIONS = rootFields('mutation').filter(({ field }) => !ACCOUNT_TYPES.has(getNamedType(field.type).name));

const smallId = fc.integer({ min: 1, max: 8 });
const int32 = fc.oneof(
  smallId,
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.constantFrom(0, -1, 2 ** 31 - 1, -(2 ** 31)),
);
const typedScalars: Record<string, fc.Arbitrary<unknown>> = {
  Int: int32,
  Float: fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(0, -90, 90.0001, 180, -180.5, 1e308),
  ),
  Boolean: fc.boolean(),
};

/**
 * A value the variable's type accepts (so that execution goes past coercion into the resolvers), with adversarial
 * content: edge numbers, odd strings and dates, long lists, records that do not exist.
 */
function typedValue(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return typedValue(type.ofType, depth);
  const orNull = (value: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 9, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) });
  if (isListType(type)) {
    const item = typedValue(type.ofType, depth);
    const long =
      getNamedType(type.ofType).name === 'Int' ? longIdList : fc.array(item, { minLength: 101, maxLength: 300 });
    return orNull(fc.oneof({ weight: 6, arbitrary: fc.array(item, { maxLength: 4 }) }, { weight: 1, arbitrary: long }));
  }
  const named = getNamedType(type);
  if (isInputObjectType(named)) {
    if (depth > 3) return fc.constant(null);
    const fields = Object.values(named.getFields());
    const required = fields
      .filter((field) => isNonNullType(field.type) && field.defaultValue === undefined)
      .map((field) => field.name);
    const fieldValues = Object.fromEntries(fields.map((field) => [field.name, typedValue(field.type, depth + 1)]));
    // Mostly a few fields: with many, one of them is nearly always refused and the others are never reached.
    const optional = fields.map((field) => field.name).filter((name) => !required.includes(name));
    const few = fc
      .subarray(optional, { maxLength: Math.min(3, optional.length) })
      .chain((names) =>
        fc.record(Object.fromEntries([...required, ...names].map((name) => [name, fieldValues[name]!]))),
      );
    return orNull(
      fc.oneof(
        { weight: 3, arbitrary: few },
        { weight: 1, arbitrary: fc.record(fieldValues, { requiredKeys: required }) },
      ),
    );
  }
  if (isEnumType(named)) return orNull(fc.constantFrom(...named.getValues().map((value) => value.name)));
  const scalar =
    typedScalars[named.name] ??
    (/date|time|clock/i.test(named.name) ? valueFor('date').filter((v) => typeof v === 'string') : nastyString);
  return orNull(scalar);
}

/** Variables for a root field: mostly of the right types, sometimes of any shape at all (graphql-js must refuse them). */
function variablesFor({ field }: RootField) {
  const typed = fc.record(Object.fromEntries(field.args.map((arg) => [arg.name, typedValue(arg.type)])), {
    requiredKeys: field.args.filter((arg) => isNonNullType(arg.type)).map((arg) => arg.name),
  });
  const wild = fc.record(
    Object.fromEntries(field.args.map((arg) => [arg.name, fc.oneof(typedValue(arg.type), anyValue, hostileValue)])),
    { requiredKeys: [] },
  );
  return fc.oneof({ weight: 4, arbitrary: typed }, { weight: 1, arbitrary: wild });
}

/** The smallest value a type accepts: what an argument not under test gets. */
function minimalValue(type: GraphQLInputType): unknown {
  if (!isNonNullType(type)) return undefined;
  const inner = type.ofType;
  if (isListType(inner)) return [];
  if (isInputObjectType(inner))
    return Object.fromEntries(
      Object.values(inner.getFields()).flatMap((field) =>
        isNonNullType(field.type) ? [[field.name, minimalValue(field.type)]] : [],
      ),
    );
  if (isEnumType(inner)) return inner.getValues()[0]!.value;
  return ({ Int: 1, Float: 1, Boolean: false } as Record<string, unknown>)[inner.name] ?? 'x';
}

/** A list of 1,000 items of the list's item type. */
function longList(itemType: GraphQLInputType): unknown[] {
  const named = getNamedType(itemType);
  const item = (i: number) =>
    named.name === 'Int'
      ? i + 1
      : isEnumType(named)
        ? named.getValues()[0]!.value
        : isInputObjectType(named)
          ? minimalValue(new GraphQLNonNull(named))
          : `item-${i}`;
  return Array.from({ length: 1_000 }, (_, i) => item(i));
}

/** Every list and every leaf in a root field's arguments, down to the fields of its input objects: `[arg, field]`. */
function inputPaths({ field }: RootField): { path: string[]; type: GraphQLInputType }[] {
  const inside = (type: GraphQLInputType, path: string[]): { path: string[]; type: GraphQLInputType }[] => {
    const nullable = isNonNullType(type) ? type.ofType : type;
    if (!isInputObjectType(nullable)) return [{ path, type: nullable }];
    if (path.length > 1) return [];
    return Object.values(nullable.getFields()).flatMap((inner) => inside(inner.type, [...path, inner.name]));
  };
  return field.args.flatMap((arg) => inside(arg.type, [arg.name]));
}

/** Variables for a root field with `value` at `path` and the smallest values elsewhere. */
function variablesWith(root: RootField, path: string[], value: unknown): Record<string, unknown> {
  const variables: Record<string, unknown> = Object.fromEntries(
    root.field.args.map((arg) => [arg.name, minimalValue(arg.type)]),
  );
  let target = variables;
  for (const key of path.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
  target[path.at(-1)!] = value;
  return variables;
}

const isText = (type: GraphQLInputType) => {
  const named = getNamedType(type);
  return !isEnumType(named) && !isInputObjectType(named) && !['Int', 'Float', 'Boolean'].includes(named.name);
};

/** The leaves of an object type, and one level of its objects (connections: their nodes), as a selection set. */
function selection(type: GraphQLOutputType, depth = 0): string {
  const named = getNamedType(type);
  if (isLeafType(named) || !isObjectType(named)) return isLeafType(named) ? '' : '{ __typename }';
  const fields = Object.values(named.getFields()).filter((field) => !field.args.some(isRequiredArgument));
  const leaves = fields.filter((field) => isLeafType(getNamedType(field.type))).map((field) => field.name);
  const objects =
    depth < 2
      ? fields
          .filter((field) => isObjectType(getNamedType(field.type)))
          .map((field) => `${field.name} ${selection(field.type, depth + 1)}`)
      : [];
  return `{ __typename ${[...leaves, ...objects].join(' ')} }`;
}

/** `query ($a: Int!, …) { field(a: $a, …) { … } }` for a root field. */
function operationFor({ operation, field }: RootField): string {
  const variables = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  return `${operation}${variables ? ` (${variables})` : ''} { ${field.name}${args ? `(${args})` : ''} ${selection(field.type)} }`;
}

interface Answer {
  status: number;
  body: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: { code?: string } }[] };
}

async function sendTo(server: TestServer, query: string, variables: unknown, as: As): Promise<Answer> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(as ? { authorization: as } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  let body: Answer['body'];
  try {
    body = JSON.parse(text) as Answer['body'];
  } catch {
    body = { errors: [{ message: `not JSON: ${text.slice(0, 200)}` }] };
  }
  return { status: response.status, body };
}

/**
 * Below 500, and every error an expected one: it carries an `extensions.code`, and never the one of an error GraphQL
 * Yoga masked as unexpected (`Unexpected error.`, INTERNAL_SERVER_ERROR).
 */
function expectExpectedErrors(answer: Answer) {
  const context = JSON.stringify(answer.body).slice(0, 800);
  expect(answer.status, context).toBeLessThan(500);
  for (const error of answer.body.errors ?? []) {
    expect(error.message, context).toEqual(expect.any(String));
    expect(error.message, context).not.toBe('Unexpected error.');
    expect(error.extensions?.code, context).toEqual(expect.any(String));
    expect(error.extensions?.code, context).not.toBe('INTERNAL_SERVER_ERROR');
  }
}

describe('GraphQL fuzzing: bad variables never yield a 5xx or an unexpected error', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    const venue = await createVenue(server, { city: 'Berlin', latitude: 52.5, longitude: 13.4 });
    const organizer = await createOrganizer(server);
    const category = await createCategory(server);
    const tag = await createTag(server);
    await createEvent(server, {
      venues: [{ id: venue.id }],
      organizers: [{ id: organizer.id }],
      categories: [category.slug],
      tags: [tag.slug],
      cost: '5 - 10 €',
    });
    await createEvent(server, { status: 'DRAFT', password: 'secret' });
  });
  afterAll(() => server?.close());

  const send = (query: string, variables: unknown, as: As) => sendTo(server, query, variables, as);

  /**
   * Sends `value` at each of `cases`: each is refused as bad input (not as forbidden: the input is checked before
   * anything else, so anonymous requests do, and spare a password check each), and nothing changes.
   */
  async function expectEachRefused(
    cases: { root: RootField; path: string[]; type: GraphQLInputType }[],
    value: (type: GraphQLInputType) => unknown,
  ) {
    const tables = await databaseSnapshot(server);
    for (const { root, path, type } of cases) {
      const answer = await send(operationFor(root), variablesWith(root, path, value(type)), null);
      expectExpectedErrors(answer);
      expect(answer.body.errors?.[0]?.extensions?.code, `${root.field.name} ${path.join('.')}`).toBe('BAD_USER_INPUT');
    }
    expect(await databaseSnapshot(server)).toEqual(tables);
  }

  const ALL_PATHS = [...QUERIES, ...MUTATIONS].flatMap((root) => inputPaths(root).map((input) => ({ root, ...input })));

  it('refuses a list of more than 100 items in every list argument and input field, before it reaches the database', async () => {
    const lists = ALL_PATHS.filter(({ type }) => isListType(type));
    expect(lists.length).toBeGreaterThan(10);
    await expectEachRefused(lists, (type) => longList((type as GraphQLList<GraphQLInputType>).ofType));
  });

  it('refuses text with a NUL character in every text argument and input field (PostgreSQL cannot store it)', async () => {
    const texts = ALL_PATHS.filter(({ type }) => isText(type));
    expect(texts.length).toBeGreaterThan(20);
    await expectEachRefused(texts, () => 'a\u0000b');
  });

  // Inputs the fuzzing once turned into unexpected errors, kept as plain cases so that every run (and both engines)
  // tries them whatever the seed.
  const HUGE_ID = '99999999999999';
  const LONG_TEXT = 'x'.repeat(60_000);
  const EVENT = { title: 'Regression', startDate: '2030-01-01 10:00:00', endDate: '2030-01-01 11:00:00' };
  const EVENTS_QUERY = 'query ($filter: EventsFilter) { events(filter: $filter) { totalCount } }';
  const CREATE_EVENT = 'mutation ($input: EventInput!) { createEvent(input: $input) { id } }';
  it.each([
    [
      'a category ID too large for the database (PostgreSQL refused it in the query)',
      EVENTS_QUERY,
      { filter: { categories: [HUGE_ID] } },
      'BAD_USER_INPUT',
    ],
    ['a tag ID too large for the database', EVENTS_QUERY, { filter: { tags: [HUGE_ID] } }, 'BAD_USER_INPUT'],
    [
      'a category ID too large, on a write',
      CREATE_EVENT,
      { input: { ...EVENT, categories: [HUGE_ID] } },
      'BAD_USER_INPUT',
    ],
    ['an image ID too large', CREATE_EVENT, { input: { ...EVENT, image: HUGE_ID } }, 'BAD_USER_INPUT'],
    [
      'an events search of 60,000 characters (SQLite: LIKE pattern too complex)',
      EVENTS_QUERY,
      { filter: { search: LONG_TEXT } },
      null,
    ],
    [
      'a venues search of 60,000 characters',
      'query ($search: String) { venues(search: $search) { totalCount } }',
      { search: LONG_TEXT },
      null,
    ],
    [
      'a categories search of 60,000 characters',
      'query ($search: String) { eventCategories(search: $search) { totalCount } }',
      { search: LONG_TEXT },
      null,
    ],
  ] as const)('answers %s', async (_, query, variables, code) => {
    const answer = await send(query, variables, ADMIN_AUTHORIZATION);
    expectExpectedErrors(answer);
    expect(answer.body.errors?.[0]?.extensions?.code ?? null).toBe(code);
  });

  describe('queries', () => {
    let before: unknown;
    let tablesBefore: unknown;
    beforeAll(async () => {
      before = await snapshot(server);
      tablesBefore = await databaseSnapshot(server);
    });

    it.concurrent.each(QUERIES.map((root) => [root.field.name, root] as const))('%s', async (_, root) => {
      const query = operationFor(root);
      await fc.assert(
        fc.asyncProperty(
          variablesFor(root),
          fc.constantFrom(null, null, null, ADMIN_AUTHORIZATION),
          async (variables, as) => {
            expectExpectedErrors(await send(query, variables, as));
          },
        ),
        fuzzRuns(30),
      );
    });

    it('changed no record', async () => {
      expect(await snapshot(server)).toEqual(before);
      expect(await databaseSnapshot(server)).toEqual(tablesBefore);
    });
  });

  describe('mutations, as the administrator', () => {
    let current: unknown;
    beforeAll(async () => {
      current = await databaseSnapshot(server);
    });

    // Deletes last: they may remove the records the other mutations address.
    const ordered = [
      ...MUTATIONS.filter(({ field }) => !field.name.startsWith('delete')),
      ...MUTATIONS.filter(({ field }) => field.name.startsWith('delete')),
    ];
    it.each(ordered.map((root) => [root.field.name, root] as const))('%s', async (name, root) => {
      const query = operationFor(root);
      await fc.assert(
        fc.asyncProperty(variablesFor(root), async (variables) => {
          const answer = await send(query, variables, ADMIN_AUTHORIZATION);
          expectExpectedErrors(answer);
          const after = await databaseSnapshot(server);
          if (answer.body.data?.[name] == null) expect(after, `a refused ${name} changed records`).toEqual(current);
          current = after;
        }),
        fuzzRuns(15),
      );
    });
  });
});

/** Literals written into a document for an argument: mostly of its type, with edge values, sometimes of another. */
function literalFor(g: fc.GeneratorValue, type: GraphQLInputType, depth = 0): string {
  const nullable = isNonNullType(type) ? type.ofType : type;
  if (!isNonNullType(type) && g(fc.integer, { min: 0, max: 19 }) === 0) return 'null';
  if (g(fc.integer, { min: 0, max: 14 }) === 0)
    return g(
      fc.constantFrom,
      '"x"',
      '-1',
      '1e400',
      '[[["a"]]]',
      '{ a: 1 }',
      'true',
      '""',
      'WRONG',
      '99999999999',
      '"\\u0000"',
    );
  if (isListType(nullable))
    return `[${Array.from({ length: g(fc.integer, { min: 0, max: 3 }) }, () => literalFor(g, nullable.ofType, depth + 1)).join(', ')}]`;
  if (isInputObjectType(nullable)) {
    if (depth > 2) return '{}';
    const fields = Object.values(nullable.getFields());
    const chosen = fields.filter(
      (field) =>
        (isNonNullType(field.type) && field.defaultValue === undefined) || g(fc.integer, { min: 0, max: 5 }) === 0,
    );
    return `{ ${chosen.map((field) => `${field.name}: ${literalFor(g, field.type, depth + 1)}`).join(', ')} }`;
  }
  if (isEnumType(nullable)) return g(fc.constantFrom, ...nullable.getValues().map((value) => value.name));
  if (nullable.name === 'Int') return String(g(fc.constantFrom, 0, 1, 2, 5, 20, 100, 101, -1, 2 ** 31 - 1, -(2 ** 31)));
  if (nullable.name === 'Float') return String(g(fc.constantFrom, 0, 1.5, -90, 180.5, 1e300));
  if (nullable.name === 'Boolean') return String(g(fc.boolean));
  return JSON.stringify(
    g(
      fc.constantFrom,
      '',
      'a',
      'jazz',
      '2030-01-15',
      '2030-01-15 10:00:00',
      '2030-01-15T10:00:00Z',
      'x'.repeat(300),
      'b\u00e9',
      '%',
    ),
  );
}

interface DocumentParts {
  fragments: string[];
  aliases: number;
}

/**
 * A random selection on `type`: some of its fields (aliased or not, with random argument literals), objects and
 * connections below them down to `depth`, inline fragments and named fragments.
 */
function randomSelection(g: fc.GeneratorValue, type: GraphQLOutputType, depth: number, parts: DocumentParts): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (!isObjectType(named) || depth <= 0) return '{ __typename }';
  const fields = Object.values(named.getFields());
  const count = g(fc.integer, { min: 1, max: Math.min(4, fields.length) });
  const picked = Array.from({ length: count }, () => fields[g(fc.integer, { min: 0, max: fields.length - 1 })]!);
  const selections = picked.map((field) => {
    const args = field.args.filter((arg) => isRequiredArgument(arg) || g(fc.integer, { min: 0, max: 3 }) === 0);
    const argText = args.length ? `(${args.map((arg) => `${arg.name}: ${literalFor(g, arg.type)}`).join(', ')})` : '';
    const alias = parts.aliases < 20 && g(fc.integer, { min: 0, max: 4 }) === 0 ? `a${parts.aliases++}: ` : '';
    return `${alias}${field.name}${argText} ${randomSelection(g, field.type, depth - 1, parts)}`;
  });
  const wrap = g(fc.integer, { min: 0, max: 5 });
  if (wrap === 0) return `{ ... on ${named.name} { ${selections.join(' ')} } }`;
  if (wrap === 1) {
    const name = `F${parts.fragments.length}`;
    parts.fragments.push(`fragment ${name} on ${named.name} { ${selections.join(' ')} }`);
    return `{ __typename ...${name} }`;
  }
  return `{ ${selections.join(' ')} }`;
}

/** A whole query document: a few root fields with random selections, and the fragments they spread. */
const randomQuery = fc.gen().map((g) => {
  const parts: DocumentParts = { fragments: [], aliases: 0 };
  const query = randomSelection(g, schema.getQueryType()!, g(fc.integer, { min: 2, max: 7 }), parts);
  return [`query ${query}`, ...parts.fragments].join('\n');
});

/** A parameter's text in a URL or form: JSON of any type, broken JSON, or any text. */
const paramText = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    '[',
    '}',
    'null',
    '',
    'undefined',
    'NaN',
    '{"a":1}',
    '[]',
    '1',
    '"x"',
    'true',
    '{"persistedQuery":{"version":1}}',
    '\u0000',
  ),
  fc.json({ maxDepth: 2 }),
  fc.string({ maxLength: 20 }),
);
/** A parameter's value in a JSON body: of any type. */
const paramValue = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);
const GRAPHQL_PARAMS = ['variables', 'extensions', 'operationName'] as const;
const SMALL_QUERIES = ['{ __typename }', 'query Q($n: Int) { events(first: $n) { totalCount } }', '{ __typename', ''];

/** A request to /graphql with some of its parameters malformed: by GET, by a form-encoded POST or by a JSON POST. */
const malformedRequest = fc.record({
  method: fc.constantFrom('GET', 'form', 'json'),
  query: fc.constantFrom(...SMALL_QUERIES),
  text: fc.record(Object.fromEntries(GRAPHQL_PARAMS.map((name) => [name, paramText])), { requiredKeys: [] }),
  values: fc.record(Object.fromEntries(GRAPHQL_PARAMS.map((name) => [name, paramValue])), { requiredKeys: [] }),
});

type MalformedRequest = typeof malformedRequest extends fc.Arbitrary<infer T> ? T : never;

async function sendMalformed(server: TestServer, request: MalformedRequest): Promise<Answer> {
  const headers = { accept: 'application/json' };
  const form = new URLSearchParams({ query: request.query, ...(request.text as Record<string, string>) });
  const response =
    request.method === 'GET'
      ? await fetch(`${server.url}/graphql?${form}`, { headers })
      : await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: {
            ...headers,
            'content-type': request.method === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
          },
          body:
            request.method === 'form' ? form.toString() : JSON.stringify({ query: request.query, ...request.values }),
        });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Answer['body'] };
  } catch {
    return { status: response.status, body: { errors: [{ message: `not JSON: ${text.slice(0, 200)}` }] } };
  }
}

describe('GraphQL fuzzing: random documents never yield a 5xx, and every error has a code', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    const venue = await createVenue(server, { city: 'Berlin' });
    const category = await createCategory(server);
    const child = await createCategory(server, { parentId: category.id });
    await createEvent(server, {
      venues: [{ id: venue.id }],
      categories: [category.slug, child.slug],
      tags: ['fuzzed'],
    });
  });
  afterAll(() => server?.close());

  it('answers documents of nested selections, fragments, aliases and random argument literals', async () => {
    await fc.assert(
      // Mostly anonymous: the administrator's password check costs more than most of these queries.
      fc.asyncProperty(randomQuery, fc.constantFrom(null, null, null, ADMIN_AUTHORIZATION), async (query, as) => {
        expectExpectedErrors(await sendTo(server, query, {}, as));
      }),
      fuzzRuns(150),
    );
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers malformed request parameters by GET and POST (JSON that does not parse, values of the wrong type) with 4xx and a code', async () => {
    await fc.assert(
      fc.asyncProperty(malformedRequest, async (request) => {
        expectExpectedErrors(await sendMalformed(server, request));
      }),
      fuzzRuns(150),
    );
    const broken = await sendMalformed(server, {
      method: 'GET',
      query: '{ __typename }',
      text: { variables: '{' },
      values: {},
    });
    expect([broken.status, broken.body.errors?.[0]?.extensions?.code]).toEqual([400, 'BAD_REQUEST']);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers hostile variables for every argument of every root field, then still answers /healthz', async () => {
    const cases = fc
      .constantFrom(...QUERIES, ...MUTATIONS)
      .chain((root) =>
        fc.tuple(
          fc.constant(root),
          fc.record(Object.fromEntries(root.field.args.map((arg) => [arg.name, hostileValue])), { requiredKeys: [] }),
        ),
      );
    await fc.assert(
      // Mutations as the administrator (whose writes run furthest), queries anonymously.
      fc.asyncProperty(cases, async ([root, variables]) => {
        expectExpectedErrors(
          await sendTo(
            server,
            operationFor(root),
            variables,
            root.operation === 'mutation' ? ADMIN_AUTHORIZATION : null,
          ),
        );
      }),
      fuzzRuns(150),
    );
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
