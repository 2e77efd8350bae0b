// The schema's ground: the request context every resolver gets (Context, createContext), the Pothos builder typed by
// it, and the scalars (DateTime, WallClock, DateInput, HTML, PlainText).
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import DataLoader from 'dataloader';
import { GraphQLError, Kind } from 'graphql';
import { DateTime } from 'luxon';
import { RememberedCounts, AnswerFacts } from '../cache/tags.js';
import type { Config } from '../config.js';
import { plainText, safeHtml } from '../content/sanitize.js';
import type { ChangeRecordType } from '../db/change-log.js';
import type { Db } from '../db/client.js';
import type { Role } from '../db/generated/prisma/enums.js';
import { readDataVersion } from '../db/data-version.js';
import type PrismaTypes from '../db/generated/pothos-types.js';
import { getDatamodel } from '../db/generated/pothos-types.js';
import { parseDateInput, readsTheClock } from '../time/dates.js';
import type { SeenChange } from './changes/seen-change.js';
import { RelationLoads } from './relation-loads.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './shared/page-size.js';

// ---------------------------------------------------------------------------------------------------------------
// The request context

/** The signed-in user a request acts for, or null for an anonymous reader. */
export interface ViewerUser {
  id: number;
  login: string;
  role: Role;
}

/** Who is asking: a signed-in user, or an anonymous reader (user null). */
export interface Viewer {
  user: ViewerUser | null;
  /** The credential the user signed in with: a long-lived `changed` stream checks it again (src/graphql/changes/credentials.ts). */
  credentialId?: number;
}

export const ANONYMOUS: Viewer = { user: null };

/** One request's guesses at protected records' passwords (PasswordGuesses in src/read/request-contexts.ts). */
export interface PasswordGuessing {
  /** Before a password is taken: seconds to wait when the client is past its limit, 0 when it may be checked. */
  offer(): number;
  /** A record's password was compared with the ones offered. */
  compared(matched: boolean): void;
}

/** What one request may open: one `changed` stream (src/graphql/changes/index.ts). */
export interface ChangeStreams {
  /** The changes of these kinds (every kind when empty) committed from now on (or after the cursor `after`), as `reader` sees them. */
  open(reader: Context, types: readonly ChangeRecordType[], after?: string): Promise<AsyncIterableIterator<SeenChange>>;
}

/** This process's extender of recurring series, as a request uses it (SeriesMaintainer, src/graphql/events/series-sync.ts). */
export interface SeriesExtender {
  /** Asks for the series to have rows up to `reach`; answers whether they got there while waiting up to `waitRows` rows. */
  extend(ids: number[], reach: Date, waitRows: number): Promise<boolean>;
  /** Takes over the sync of a write of `masterId` that a request began. */
  take(masterId: number): void;
  /** Takes over the series tasks a request queued. */
  takeTasks(): void;
}

/** Everything one request owns. Nothing request-scoped lives at module level. */
export interface Context {
  db: Db;
  config: Config;
  viewer: Viewer;
  /**
   * The request's time: every "now" in one request is the same instant. Asking for it makes the answer depend on the
   * clock (kept RESPONSE_CACHE_TTL_MS at most); a reader that knows when its answer changes reads `requestTime` and
   * says so to `facts`. (A method, not a getter: GraphQL Yoga copies the context's properties, reading getters once.)
   */
  now(): Date;
  /** The same instant, for a write, or for a reader that tells `facts` when its answer changes with the clock. */
  requestTime: Date;
  /** What the answer depends on, for the response cache (src/cache/tags.ts). */
  facts: AnswerFacts;
  /** A date the request sent, read in the site time zone at `now` (null when it is none); each text read once. */
  readDate(text: string): DateTime | null;
  /** Passwords the request offered for password-protected records (the `password` arguments). */
  offeredPasswords: string[];
  /** Counts those passwords as guesses of the client's (absent outside the server: seeding, importing). */
  passwordGuesses?: PasswordGuessing;
  /** The database's data version now (src/db/data-version.ts), for what is remembered across requests. */
  dataVersion: () => Promise<bigint>;
  /** The `changed` streams this request may open (absent outside /graphql). */
  changes?: ChangeStreams;
  /** This process's extender of recurring series (absent outside the server: lists then extend them themselves). */
  series?: SeriesExtender;
  /** List totals remembered across requests (src/cache/tags.ts, RememberedCounts). */
  counts: RememberedCounts;
  /** The request's DataLoaders by name (loaderOf): reads that Prisma's relation planning does not merge. */
  loaders: Map<string, DataLoader<never, unknown>>;
  /** The request's pending loads of linked records, which the images' DataLoader waits for. */
  relationLoads: RelationLoads;
}

/** Outside the server (seeding, importing) totals are remembered at one data version, by database and filter. */
const COUNTS_OUTSIDE_THE_SERVER = new RememberedCounts(1000);

export function createContext(
  db: Db,
  config: Config,
  viewer: Viewer = ANONYMOUS,
  dataVersion: () => Promise<bigint> = () => readDataVersion(db),
  changes?: ChangeStreams,
  series?: SeriesExtender,
  passwordGuesses?: PasswordGuessing,
  facts: AnswerFacts = new AnswerFacts(),
  counts: RememberedCounts = COUNTS_OUTSIDE_THE_SERVER,
): Context {
  const now = new Date();
  const readClock = () => facts.changesAt(now.getTime() + config.responseCache.clockBoundMs);
  return {
    db,
    config,
    viewer,
    now: () => {
      readClock();
      return now;
    },
    requestTime: now,
    facts,
    readDate: datesReadOnce(config.siteTimezone, DateTime.fromJSDate(now), readClock),
    offeredPasswords: [],
    passwordGuesses,
    dataVersion,
    changes,
    series,
    counts,
    loaders: new Map(),
    relationLoads: new RelationLoads(),
  };
}

/**
 * The request's DataLoader named `name`, made on first use: the keys asked for while one wave of fields resolves go
 * to `batch` together, in one statement, whichever types asked (an image of an event, of its venue, of its
 * organizer). Per request, so that it never answers with another viewer's reads or an earlier data version.
 */
export function loaderOf<K, V>(
  ctx: Context,
  name: string,
  batch: (keys: readonly K[]) => Promise<ArrayLike<V | Error>>,
  options?: DataLoader.Options<K, V>,
): DataLoader<K, V> {
  let loader = ctx.loaders.get(name) as DataLoader<K, V> | undefined;
  if (!loader) {
    loader = new DataLoader(batch, options);
    ctx.loaders.set(name, loader as DataLoader<never, unknown>);
  }
  return loader;
}

/**
 * The request's reading of the dates it sent (`start_date`, a filter's `startDate`), in the site time zone at the
 * request's time. A text is parsed once per request: REST reads it where its parameter is declared, and GraphQL's
 * filter, given the same text in the same request, gets that reading back.
 */
function datesReadOnce(zone: string, now: DateTime, readClock: () => void): (text: string) => DateTime | null {
  const read = new Map<string, DateTime | null>();
  return (text) => {
    let moment = read.get(text);
    if (moment === undefined) {
      moment = parseDateInput(text, zone, now);
      read.set(text, moment);
      if (readsTheClock(text)) readClock();
    }
    return moment;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The builder

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Connection: { totalCount: () => Promise<number> };
  DefaultInputFieldRequiredness: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    DateInput: { Input: string; Output: string };
    WallClock: { Input: string; Output: string };
    HTML: { Input: string; Output: string };
    PlainText: { Input: string; Output: string };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    defaultConnectionSize: DEFAULT_PAGE_SIZE,
    maxConnectionSize: MAX_PAGE_SIZE,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'warn',
  },
  relay: {
    cursorType: 'String',
    clientMutationId: 'omit',
    edgesFieldOptions: {
      nullable: false,
      description: 'The records of this page, in the order of the list, each with its cursor.',
    },
    nodeFieldOptions: { nullable: false, description: 'The record.' },
    // WPGraphQL's shortcut: `events { nodes { title } }` when the cursors are not needed.
    nodesOnConnection: { description: 'The records of this page without their cursors (the `node` of each edge).' },
    cursorFieldOptions: {
      description: 'Where this record stands in the list (opaque): pass it as `after` or `before` to page from here.',
    },
    pageInfoFieldOptions: {
      description: 'Whether there are pages before and after this one, and the cursors to reach them.',
    },
    hasNextPageFieldOptions: {
      description: 'Whether more records follow this page: ask for them with `after: endCursor`.',
    },
    hasPreviousPageFieldOptions: {
      description: 'Whether records come before this page: ask for them with `before: startCursor` and `last`.',
    },
    startCursorFieldOptions: {
      description: 'The cursor of the first record of this page; null when the page is empty.',
    },
    endCursorFieldOptions: {
      description:
        'The cursor of the last record of this page; pass it as `after` for the next page. Null when the page is empty.',
    },
    firstArgOptions: {
      description: `At most this many records from the start of the list (or after \`after\`): 0 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when neither \`first\` nor \`last\` is given.`,
    },
    afterArgOptions: { description: 'Only records after this cursor (an `endCursor` or `cursor` of the same list).' },
    lastArgOptions: {
      description: `At most this many records from the end of the list (or before \`before\`): 0 to ${MAX_PAGE_SIZE}.`,
    },
    beforeArgOptions: {
      description: 'Only records before this cursor (a `startCursor` or `cursor` of the same list).',
    },
    idFieldOptions: { description: 'The global ID (opaque; use it with `node(id:)` and as a client cache key).' },
    // node and nodes are defined in shared/node.ts, so that they apply each type's visibility and error codes.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodeTypeOptions: { description: 'A record with a global ID (Relay’s object identification).' },
    pageInfoTypeOptions: { description: 'Where a page stands in its list (Relay cursor connections).' },
  },
});

builder.queryType({
  description:
    'Reads. Anyone may read published records; drafts, pending, private and trashed ones need a user who may see them.',
});
/** The description of every connection's `totalCount` (schema.ts gives it to the one plugin-prisma defines itself). */
export const TOTAL_COUNT_DESCRIPTION = 'How many records match, over all pages.';

builder.globalConnectionField('totalCount', (t) =>
  t.int({ description: TOTAL_COUNT_DESCRIPTION, resolve: (connection) => connection.totalCount() }),
);
builder.mutationType({
  description: 'Writes. Each needs a signed-in user whose role allows it (README, "Authentication and roles").',
});

// ---------------------------------------------------------------------------------------------------------------
// Scalars

builder.scalarType('DateTime', {
  description: 'An exact instant, ISO 8601 in UTC (`2025-03-01T17:00:00.000Z`).',
  // The GraphQL foundation's DateTime (RFC 3339 with an offset), which codegen's and clients' scalar maps know.
  specifiedByURL: 'https://scalars.graphql.org/andimarek/date-time',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => parseIsoInstant(value),
  parseLiteral: (ast) => parseIsoInstant(ast.kind === Kind.STRING ? ast.value : null),
});

builder.scalarType('WallClock', {
  description: 'A wall-clock date and time without offset, `YYYY-MM-DD HH:MM:SS`, read in the time zone next to it.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)) {
      throw new GraphQLError('WallClock must be a string like "2025-03-01 18:00:00"');
    }
    return value;
  },
});

builder.scalarType('DateInput', {
  description:
    'A date as integrations send it: `2025-03-01`, `2025-03-01 18:00:00`, ISO 8601 with or without offset, a Unix ' +
    'timestamp, or a relative form (`now`, `tomorrow 9am`, `next wednesday 4pm`, `+1 day`). Forms without an offset ' +
    "are read in the event's time zone (for events) or the site time zone.",
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value === 'number' && Number.isInteger(value)) return String(value);
    if (typeof value !== 'string' || value.trim() === '')
      throw new GraphQLError('DateInput must be a non-empty string');
    return value;
  },
  parseLiteral: (ast) => {
    if (ast.kind === Kind.STRING && ast.value.trim() !== '') return ast.value;
    if (ast.kind === Kind.INT) return ast.value;
    throw new GraphQLError('DateInput must be a non-empty string');
  },
});

builder.scalarType('HTML', {
  specifiedByURL: 'https://html.spec.whatwg.org/multipage/syntax.html',
  description:
    'HTML. On input it is reduced to the tags and attributes WordPress allows in post content: scripts, styles, ' +
    'frames, event handlers and URLs with other than web, mail and similar link schemes (javascript:, data:) are removed.',
  serialize: (value) => value,
  parseValue: (value) => safeHtml(textInput('HTML', value)),
});

builder.scalarType('PlainText', {
  description: 'Text without markup. On input, HTML tags are removed and character references decoded (`&amp;` → `&`).',
  serialize: (value) => value,
  parseValue: (value) => plainText(textInput('PlainText', value)),
});

function textInput(scalar: string, value: unknown): string {
  if (typeof value !== 'string') throw new GraphQLError(`${scalar} must be a string`);
  return value;
}

function parseIsoInstant(value: unknown): Date {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value)) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new GraphQLError('DateTime must be an ISO 8601 instant with offset, e.g. "2025-03-01T17:00:00Z"');
}
