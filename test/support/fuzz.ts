import fc from 'fast-check';
import { afterAll, beforeAll } from 'vitest';
import { Prisma } from '../../src/db/generated/prisma/client.js';
import { ADMIN_AUTHORIZATION, type TestServer } from './server.js';

// Shared by the property-based tests (test/fuzz-*.test.ts): adversarial values, their wire encodings, and a snapshot
// of every record to prove that refused requests changed nothing.

/** The fixed seed of every property (FUZZ_SEED overrides it, to reproduce a run fast-check reported). */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_261_121);

const FUZZ_RUNS_FACTOR = Number(process.env.FUZZ_RUNS_FACTOR ?? 1);

/** fast-check's parameters for one property: the fixed seed and a bounded number of runs (FUZZ_RUNS_FACTOR=10: ten times as many). */
export const fuzzRuns = (numRuns: number) => ({ seed: FUZZ_SEED, numRuns: numRuns * FUZZ_RUNS_FACTOR });

/** A fuzz file's time per test: the suite's 30 s for its runs, as many times over as FUZZ_RUNS_FACTOR asks for. */
export const FUZZ_TEST_TIMEOUT_MS = 30_000 * Math.max(1, FUZZ_RUNS_FACTOR);

/** Values that have broken parsers somewhere: numbers at the edges, malformed dates, injections, odd characters. */
const NASTY_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '-0',
  '00',
  '1.5',
  '1e309',
  '-1e309',
  '9'.repeat(40),
  '0x1F',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  'false',
  '[]',
  '{}',
  '[1,2',
  '{"a":',
  '[{"id":1}]',
  "' OR '1'='1",
  '1; DROP TABLE Event; --',
  "'); SELECT pg_sleep(5); --",
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '</textarea>',
  '../../etc/passwd',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uD83D',
  '😀',
  '\u202Eevil',
  'é',
  '%',
  '%%',
  '%00',
  '%FF',
  '%E0%A4%A',
  '2024-02-30',
  '2024-13-01 25:61:61',
  '9999-12-31 23:59:59',
  '0000-00-00 00:00:00',
  '-271821-04-20',
  '+275760-09-13T00:00:00Z',
  '2024-01-01T10:00:00+99:00',
  'tomorrow 9am',
  'next wednesday 4pm',
  '+1000000 years',
  '-1000000 years',
  '@99999999999',
  '1700000000',
  '99999999999999',
  'Europe/Nowhere',
  'UTC+99',
  'any',
  'publish',
  'trash',
  'asc',
  'DESC',
  'a'.repeat(2_000),
];

/** Any UTF-16 code unit: NUL, controls, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 10_000, max: 200_000 }), fc.constantFrom('x', '<b>é</b> ', '%'))
      .map(([length, unit]) => unit.repeat(length).slice(0, length)),
  },
  { weight: 2, arbitrary: fc.string({ unit: codeUnit, maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
);

const edgeNumber = fc.oneof(
  fc.integer(),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, 0.5, -0),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const dateLike = fc.oneof(
  fc
    .date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
    .map((date) => date.toISOString()),
  fc
    .date({ min: new Date('1900-01-01'), max: new Date('2200-12-31'), noInvalidDate: true })
    .map((date) => date.toISOString().slice(0, 19).replace('T', ' ')),
  fc
    .tuple(fc.integer({ min: 0, max: 99999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }))
    .map(([y, m, d]) => `${y}-${m}-${d}`),
);

/** Scalars of every JSON type, the wrong ones for most parameters. */
const scalar = fc.oneof(nastyString, edgeNumber.map(String), edgeNumber, fc.boolean(), fc.constant(null));

/** A JSON value of any shape: scalars, arrays where scalars go, objects where lists go. */
export const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(
    fc.oneof(nastyString, fc.constantFrom('id', 'venue', 'organizer', 'name', '0', '1')),
    tie('value'),
    { maxKeys: 4 },
  ),
})).value;

/** A value nested `depth` levels deep in lists or objects, around `leaf`. */
const nested = (depth: number, shape: 'list' | 'object', leaf: unknown): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = shape === 'list' ? [value] : { a: value };
  return value;
};

/**
 * Values meant to break whatever reads them: nesting past any sane depth (and past the input limit), numbers beyond
 * every integer type, NUL and lone surrogates, lists where scalars go and the other way round.
 */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .tuple(fc.integer({ min: 2, max: 1_500 }), fc.constantFrom<'list' | 'object'>('list', 'object'), scalar)
    .map(([depth, shape, leaf]) => nested(depth, shape, leaf)),
  fc.constantFrom(
    2 ** 64,
    -(2 ** 63),
    1e308,
    -1e308,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    '1e400',
    '\u0000',
    'a\u0000',
    '\uD800',
    [[['a']]],
    [[1, [2]]],
    { '': null },
    [{}],
    {},
  ),
  fc.array(fc.constantFrom(null, '\u0000', 1e308, [[]], { id: [1] }), { minLength: 1, maxLength: 3 }),
  anyValue,
);

/** A very long list of distinct IDs (database drivers cap the parameters of one statement). */
export const longIdList = fc
  .integer({ min: 1_000, max: 40_000 })
  .map((length) => Array.from({ length }, (_, i) => i + 1));

/** Values aimed at a declared parameter type (as src/rest/params.ts names them), mixed with values of any shape. */
export function valueFor(type: string): fc.Arbitrary<unknown> {
  const aimed: Record<string, fc.Arbitrary<unknown>> = {
    integer: edgeNumber,
    number: fc.oneof(edgeNumber, fc.double()),
    boolean: fc.constantFrom(
      'true',
      'false',
      '1',
      '0',
      'yes',
      'no',
      'on',
      'off',
      'TRUE',
      ' true ',
      'maybe',
      2,
      true,
      false,
    ),
    date: fc.oneof(dateLike, fc.integer({ min: -1e12, max: 1e13 })),
    list: fc.oneof(fc.array(fc.oneof(edgeNumber, nastyString), { maxLength: 6 }), nastyString, longIdList),
    linked: fc.oneof(
      edgeNumber,
      fc.record({ id: scalar }),
      fc.dictionary(fc.constantFrom('venue', 'organizer', 'city', 'email', 'id', 'website'), scalar),
      fc.array(fc.oneof(edgeNumber, fc.record({ id: scalar })), { maxLength: 3 }),
    ),
    cost: fc.oneof(nastyString, fc.array(scalar, { maxLength: 4 })),
    string: nastyString,
  };
  return fc.oneof({ weight: 3, arbitrary: aimed[type] ?? anyValue }, { weight: 1, arbitrary: anyValue });
}

/** Parameter names nobody declared, WordPress's global ones among them (`_method` left out: it would change the method). */
export const unknownName = fc.oneof(
  fc.constantFrom('_fields', '_envelope', '_jsonp', 'rest_route', 'context', 'orderby', 'x'),
  fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !/^_method$|[[\]]/.test(name)),
);

/** Percent-encodes every code unit as UTF-8 bytes, a lone surrogate as the (invalid) bytes it would take. */
function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (char.length === 1 && code >= 0xd800 && code <= 0xdfff)
      out += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`;
    else out += encodeURIComponent(char);
  }
  return out;
}

/** How a string goes on the wire: properly encoded, or raw (stray `%` sequences, invalid UTF-8 and all). */
export type Wire = 'encoded' | 'raw';

function wireText(text: string, wire: Wire): string {
  return wire === 'encoded' ? percentEncode(text) : text.replace(/[&#=+\s]/g, (char) => percentEncode(char));
}

/** PHP-style query or form text for one parameter: `a=1`, `a[]=1&a[]=2`, `a[k]=v`. */
export function phpPairs(name: string, value: unknown, wire: Wire): string[] {
  if (Array.isArray(value))
    return value.length === 0
      ? [`${wireText(name, wire)}[]=`]
      : value.flatMap((item) => phpPairs(`${name}[]`, item, wire));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => phpPairs(`${name}[${key}]`, item, wire));
  return [
    `${wireText(name, wire).replace(/%5B/gi, '[').replace(/%5D/gi, ']')}=${wireText(value === null ? '' : String(value), wire)}`,
  ];
}

/** A whole query string or form body from parameter values. */
export function phpText(values: Record<string, unknown>, wire: Wire): string {
  return Object.entries(values)
    .flatMap(([name, value]) => phpPairs(name, value, wire))
    .join('&');
}

const STATUSES = '[DRAFT, FUTURE, PENDING, PRIVATE, PUBLISH, TRASH]';
const POST_FIELDS = 'id status slug modifiedAt publishedAt description excerpt hasPassword';

/** Each kind of record: its connection field, the arguments that show every record, the fields compared. */
const SNAPSHOT_KINDS = {
  events: [
    'events',
    `filter: { statuses: ${STATUSES} }`,
    `${POST_FIELDS} title startsAt endsAt timezone allDay cost featured sticky website venues { id } organizers { id } categories { id } tags { id }`,
  ],
  venues: ['venues', `statuses: ${STATUSES}`, `${POST_FIELDS} name city address latitude longitude`],
  organizers: ['organizers', `statuses: ${STATUSES}`, `${POST_FIELDS} name email phone website`],
  categories: ['eventCategories', 'hideEmpty: false', 'id name slug description parentId'],
  tags: ['eventTags', 'hideEmpty: false', 'id name slug description'],
} as const;

type Page = { pageInfo: { hasNextPage: boolean; endCursor: string }; edges: { node: unknown }[] };

const connection = (kind: keyof typeof SNAPSHOT_KINDS, after: string) => {
  const [field, args, selection] = SNAPSHOT_KINDS[kind];
  return `${kind}: ${field}(first: $first, ${args}${after}) { pageInfo { hasNextPage endCursor } edges { node { ${selection} } } }`;
};

/** Every record as an administrator reads it over GraphQL, every status included: equal snapshots, equal data. */
export async function snapshot(server: TestServer): Promise<Record<string, unknown[]>> {
  const kinds = Object.keys(SNAPSHOT_KINDS) as (keyof typeof SNAPSHOT_KINDS)[];
  const read = (selections: string) =>
    server.gqlOk(`query ($first: Int) { ${selections} }`, { first: 100 }, ADMIN_AUTHORIZATION);
  const first: Record<string, Page> = await read(kinds.map((kind) => connection(kind, '')).join(' '));
  const records: Record<string, unknown[]> = {};
  for (const kind of kinds) {
    let page = first[kind]!;
    records[kind] = page.edges.map((edge) => edge.node);
    while (page.pageInfo.hasNextPage) {
      page = (await read(connection(kind, `, after: ${JSON.stringify(page.pageInfo.endCursor)}`)))[kind];
      records[kind].push(...page.edges.map((edge) => edge.node));
    }
  }
  return records;
}

/**
 * Every row of every table but the bookkeeping of the process's background tasks, which moves on its own time
 * (Credential's `lastUsedAt` with each signed-in request, the webhook dispatcher's Lease with each renewal and its
 * position in the change log as it catches up with earlier writes, the change log's pruning mark), read straight from
 * the test server's database: a refused write must leave all of them as they were, media and links included.
 */
export async function databaseSnapshot(server: TestServer): Promise<Record<string, string[]>> {
  const db = server.app.db as unknown as Record<string, { findMany(): Promise<unknown[]> }>;
  const tables: Record<string, string[]> = {};
  for (const model of Object.values(Prisma.ModelName).filter((name) => name !== 'Credential' && name !== 'Lease')) {
    const rows = (await db[model[0]!.toLowerCase() + model.slice(1)]!.findMany()).filter(
      (row) => !isBackgroundBookkeeping(model, row),
    );
    tables[model] = rows
      .map((row) => JSON.stringify(row, (_, value: unknown) => (typeof value === 'bigint' ? String(value) : value)))
      .sort();
  }
  return tables;
}

const BACKGROUND_SETTINGS = new Set(['webhook_dispatch_position', 'change_log_pruned_through']);
const isBackgroundBookkeeping = (model: string, row: unknown) =>
  model === 'Setting' && BACKGROUND_SETTINGS.has((row as { name: string }).name);

/**
 * Counts the HTTP requests this test file sends (every fetch of the process) and prints the total and the seed when
 * the file ends, so a run can show how many cases it tried (FUZZ_RUNS_FACTOR, FUZZ_SEED).
 */
export function reportRequestsSent(file: string): void {
  let sent = 0;
  const original = globalThis.fetch;
  beforeAll(() => {
    globalThis.fetch = (...args: Parameters<typeof fetch>) => {
      sent += 1;
      return original(...args);
    };
  });
  afterAll(() => {
    globalThis.fetch = original;
    console.info(
      `${file}: ${sent} requests sent (seed ${FUZZ_SEED}, FUZZ_RUNS_FACTOR ${process.env.FUZZ_RUNS_FACTOR ?? 1})`,
    );
  });
}
