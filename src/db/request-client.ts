// The database client as one request sees it: it refuses statements past the request's deadline
// (REQUEST_TIMEOUT_MS), and it notes every read, which the response cache keeps an answer by.
import { GraphQLError } from 'graphql';
import type { AnswerFacts, TableProbe } from '../cache/tags.js';
import type { Db } from './client.js';
import { getDatamodel } from './generated/pothos-types.js';

export const TIMEOUT_CODE = 'REQUEST_TIMEOUT';
const EXPIRED = Symbol('expired');

/**
 * Thrown when a request's work would start a database statement after its deadline. Its HTTP status (GraphQL Yoga
 * answers with it) keeps a late answer out of the response cache, which keeps 200s only.
 */
export class DeadlineExceededError extends GraphQLError {
  constructor(timeoutMs: number) {
    super(`The request took longer than ${timeoutMs} ms and was stopped.`, {
      extensions: { code: TIMEOUT_CODE, http: { status: 503 } },
    });
  }
}

/**
 * The moment a request must be answered by (REQUEST_TIMEOUT_MS after it arrived; never when the limit is 0).
 *
 * Node cannot interrupt a statement a database driver is running (better-sqlite3 runs it on the event loop's own
 * thread), so the deadline acts at two places: the request is answered with the timeout error as soon as the
 * deadline passes, or, if the event loop was busy then, as soon as the work returns; and the request's database
 * client (guardedDb) refuses to start any further statement, so a timed-out request stops at its next query.
 */
export class Deadline {
  private readonly at: number;

  constructor(readonly timeoutMs: number) {
    this.at = timeoutMs > 0 ? Date.now() + timeoutMs : Number.POSITIVE_INFINITY;
  }

  get passed(): boolean {
    return Date.now() > this.at;
  }

  /** `work`'s answer, or `late()` when the deadline passes before it (or passed while it ran). */
  async answer<T>(work: Promise<T>, late: () => T): Promise<T> {
    if (this.at === Number.POSITIVE_INFINITY) return work;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<typeof EXPIRED>((resolve) => {
      timer = setTimeout(() => resolve(EXPIRED), this.at - Date.now());
    });
    // The work goes on after an expiry until its next statement; its outcome is no longer anyone's.
    work.catch(() => undefined);
    try {
      const outcome = await Promise.race([work, expired]);
      return outcome === EXPIRED || this.passed ? late() : outcome;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The database client as one request sees it: every model, raw query and transaction it starts after the deadline
 * throws DeadlineExceededError instead. A transaction already started runs to its end (commit or rollback), so a
 * write is never left half done.
 */
export function guardedDb(db: Db, deadline: Deadline): Db {
  if (deadline.timeoutMs === 0) return db;
  return new Proxy(db, {
    get(target, property) {
      if (deadline.passed) throw new DeadlineExceededError(deadline.timeoutMs);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

// The tables the change log reports, by the table its entries name (the change_log migration's triggers). A link
// row's change is logged as an update of its event.
const LOGGED_AS: Record<string, string> = {
  Event: 'event',
  Venue: 'venue',
  Organizer: 'organizer',
  Term: 'term',
  EventVenue: 'event',
  EventOrganizer: 'event',
  EventTerm: 'event',
};

/** Never changed once written (an image's facts are kept by URL, src/graphql/media): reading them adds no tag. */
const UNCHANGING = new Set(['Media']);

/**
 * Tables whose writes move the data version without a change-log entry (the data_version migration's triggers):
 * an answer reading them is right while the version stays. Every other table (the change log itself, which pruning
 * empties; settings; webhooks; leases) changes without moving it, so an answer reading one is not kept.
 */
const VERSIONED = new Set(['User']);

const READS = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'count',
  'aggregate',
  'groupBy',
]);
const ONE_BY_KEY = new Set(['findUnique', 'findUniqueOrThrow']);

interface Relation {
  model: string;
}

/** Each model's relation fields and the model they lead to, from Prisma's data model. */
const relations = new Map<string, Map<string, Relation>>(
  Object.entries(getDatamodel().datamodel.models).map(([model, { fields }]) => [
    model,
    new Map(fields.filter((field) => field.kind === 'object').map((field) => [field.name, { model: field.type }])),
  ]),
);

/** Each model's own columns, from Prisma's data model. */
const scalars = new Map<string, Set<string>>(
  Object.entries(getDatamodel().datamodel.models).map(([model, { fields }]) => [
    model,
    new Set(fields.filter((field) => field.kind !== 'object').map((field) => field.name)),
  ]),
);

/** Relations whose changes the log names by the relation (the change_columns migration): an event's links. */
const LOGGED_RELATIONS: Record<string, Set<string>> = { Event: new Set(['venues', 'organizers', 'terms']) };

/** Model names by the client's property for them (`event` → Event). */
const modelsByDelegate = new Map(
  [...relations.keys()].map((model) => [model[0]!.toLowerCase() + model.slice(1), model]),
);

/**
 * The database client as one cacheable request sees it: every read it makes is noted in `facts` (what the answer
 * will depend on) before it runs. A read of one record by its ID notes that record; any other read of a table (a
 * list, a count, a record by another key, a relation or a filter through one) notes the whole table. A read of a
 * table whose writes move the data version but are not logged (users) makes the answer depend on the data version
 * itself; any other read (the change log, settings, raw SQL, an interactive transaction) keeps it from being kept.
 *
 * A list of records (`findMany`) or a count is noted as a probe instead of the whole table, with the records it
 * listed: when its table changes, the cache asks it again through `plain` (a client with no deadline of its own)
 * and keeps the answer if it lists the same records in the same order (or counts the same), none of them changed.
 * It is asked again only when a change touched a column it reads (columnsRead): retitling an event leaves a list by
 * date alone.
 */
export function readsRecorded(db: Db, facts: AnswerFacts, plain: Db = db): Db {
  const recorded = new Proxy(db, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      const model = typeof property === 'string' ? modelsByDelegate.get(property) : undefined;
      if (model)
        return delegateRecorded(model, value as object, facts, Reflect.get(plain, property, plain) as Delegate);
      if (typeof value !== 'function') return value;
      if (property === '$queryRaw' || property === '$queryRawUnsafe' || property === '$transaction') {
        // A batch `$transaction([...])` holds queries already noted when they were made; the rest is unknown.
        return (...args: unknown[]) => {
          if (!Array.isArray(args[0])) facts.readsUnversionedData();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
  recorders.set(recorded, { facts, plain, client: db });
  return recorded;
}

/** What readsRecorded made: the facts it notes, a client without a deadline, and the client it records. */
const recorders = new WeakMap<Db, { facts: AnswerFacts; plain: Db; client: Db }>();

/**
 * A raw read of rows that events own (their links to venues, organizers and terms: src/db/event-links.ts), noted as
 * showing those events: the change log reports a change of an event's links as a change of the event. `read` gets the
 * client without the recording, on which a raw statement would keep the answer from being kept.
 */
export function readOfEventRows<T>(db: Db, eventIds: readonly number[], read: (client: Db) => Promise<T>): Promise<T> {
  const recorder = recorders.get(db);
  if (!recorder) return read(db);
  for (const id of eventIds) recorder.facts.showsRecord('event', id);
  return read(recorder.client);
}

/**
 * Notes a read whose result was remembered (a VersionedMemo) rather than read again: the answer depends on it all
 * the same. Nothing to do on a client that records nothing.
 */
export function noteRememberedRead(
  db: Db,
  model: string,
  operation: 'count' | 'findFirst',
  args: Record<string, unknown>,
  result: unknown,
): void {
  const recorder = recorders.get(db);
  if (!recorder) return;
  const delegate = Reflect.get(recorder.plain, model[0]!.toLowerCase() + model.slice(1)) as Delegate;
  const probe = probeOf(model, operation, args, delegate);
  if (probe) probe.noteResult(result, recorder.facts);
  else noteTable(model, recorder.facts);
}

type Delegate = Record<string, (args?: unknown) => Promise<unknown>>;

function delegateRecorded(model: string, delegate: object, facts: AnswerFacts, plain: Delegate): object {
  return new Proxy(delegate, {
    get(target, operation) {
      const value: unknown = Reflect.get(target, operation, target);
      if (typeof value !== 'function' || typeof operation !== 'string') return value;
      return (args?: Record<string, unknown>) => {
        const probe = probeOf(model, operation, args ?? {}, plain);
        if (probe) {
          noteRelations(model, args, facts);
          const result = (value as (a?: unknown) => Promise<unknown>).call(target, args);
          // Prisma runs a query once however often its promise is awaited; a failed read fails its caller. (Awaited
          // here, the read starts at once: not for a batch `$transaction([...])`, which no read of this service uses.)
          result.then((rows) => probe.noteResult(rows, facts), ignore);
          return operation in PLAIN_PROMISE ? result : fluentRecorded(model, result, facts, false);
        }
        const byResult = READS.has(operation) ? noteRead(model, operation, args ?? {}, facts) : noteTable(model, facts);
        const result = (value as (a?: unknown) => object).call(target, args);
        return operation in PLAIN_PROMISE ? result : fluentRecorded(model, result, facts, byResult === FOUND_BY_KEY);
      };
    },
  });
}

const ignore = () => undefined;

/** Operations whose promise is a plain one (no relation to follow from it). */
const PLAIN_PROMISE = { findMany: true, count: true, aggregate: true, groupBy: true };

/** A record read by another unique key (a slug): which record it is shows once it is read. */
const FOUND_BY_KEY = Symbol('found by key');

/**
 * `findUnique(...).venues()`: following a relation from the found record reads the related table. A record found by
 * another unique key is noted by the ID it turns out to have (its table, when there is none or it is not read).
 */
function fluentRecorded(model: string, promise: object, facts: AnswerFacts, foundByKey: boolean): object {
  const table = LOGGED_AS[model]!;
  return new Proxy(promise, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (foundByKey && property === 'then') {
        return (onFulfilled?: (record: unknown) => unknown, onRejected?: (error: unknown) => unknown) =>
          (target as Promise<unknown>)
            .then((record) => {
              const id = (record as { id?: unknown } | null)?.id;
              if (typeof id === 'number') facts.showsRecord(table, id);
              else facts.readsTable(table);
              return record;
            })
            .then(onFulfilled, onRejected);
      }
      const related = typeof property === 'string' ? relations.get(model)?.get(property) : undefined;
      if (related) {
        if (foundByKey) facts.readsTable(table);
        noteTable(related.model, facts);
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Notes a read before it runs; answers FOUND_BY_KEY when the record it reads is known only once read. */
function noteRead(model: string, operation: string, args: Record<string, unknown>, facts: AnswerFacts) {
  for (const key of ['where', 'select', 'include', 'orderBy', 'distinct', 'cursor'])
    noteRelations(model, args[key], facts);
  const where = args.where as Record<string, unknown> | undefined;
  const table = LOGGED_AS[model];
  // A link table's rows have no ID of their own: only a record table is noted record by record.
  if (!ONE_BY_KEY.has(operation) || table !== model.toLowerCase()) return noteTable(model, facts);
  if (typeof where?.id === 'number' && Object.keys(where).length === 1) return facts.showsRecord(table, where.id);
  return FOUND_BY_KEY;
}

/** The link tables, by the relation of Event each is: the change log names a change of links by the relation. */
const LINKS_OF_EVENT: Record<string, string> = {
  EventVenue: 'venues',
  EventOrganizer: 'organizers',
  EventTerm: 'terms',
};

/**
 * A list of records, a count or a first record of a logged record table, as a probe the cache can repeat: the list
 * asked for the IDs alone, the others as they were; a list of an event link table's rows, asked again when links
 * change. Null for any other read (one record by key, `distinct`, an aggregate).
 */
function probeOf(model: string, operation: string, args: Record<string, unknown>, plain: Delegate) {
  const links = LINKS_OF_EVENT[model];
  if (links)
    return operation === 'findMany' && args.distinct === undefined && args.include === undefined
      ? tableProbe('event', 'links', args, [links], () => plain.findMany!(args), digestOfLinks)
      : null;
  const table = LOGGED_AS[model];
  if (!table || table !== model.toLowerCase() || args.distinct !== undefined) return null;
  const columns = columnsRead(model, operation, args);
  if (operation === 'count')
    return tableProbe(table, operation, args, columns, () => plain.count!(args), digestOfValue);
  if (operation === 'findFirst' && !args.include)
    return tableProbe(table, operation, args, columns, () => plain.findFirst!(args), digestOfValue);
  if (operation !== 'findMany') return null;
  const { where, orderBy, cursor, skip, take } = args;
  const ids = { where, orderBy, cursor, skip, take, select: { id: true } };
  return tableProbe(table, operation, args, columns, () => plain.findMany!(ids), digestOfRows);
}

/**
 * The columns a probe's digest depends on: those its filter, order and cursor read (which records, in which order),
 * and a first record's or a count's selection. Null (every column) when it reads what the log does not name by
 * column: a relation other than an event's links, a selection of everything, an operator not known here.
 */
function columnsRead(model: string, operation: string, args: Record<string, unknown>): string[] | null {
  const read = new Set<string>();
  const parts = [args.where, args.orderBy, args.cursor];
  if (operation !== 'findMany') {
    if (operation === 'findFirst' && !args.select) return null;
    parts.push(args.select);
  }
  return parts.every((part) => collectColumns(model, part, read)) ? [...read] : null;
}

/**
 * Adds the columns `tree` (a filter, an order, a selection of `model`) reads to `read`; false if it cannot tell. A
 * logged link relation counts as a column when `linkReadable` accepts what is asked of it (anything, by default).
 */
function collectColumns(
  model: string,
  tree: unknown,
  read: Set<string>,
  linkReadable: (link: string, asked: unknown) => boolean = () => true,
): boolean {
  if (Array.isArray(tree)) return tree.every((item) => collectColumns(model, item, read, linkReadable));
  if (tree === null || typeof tree !== 'object') return true;
  for (const [key, value] of Object.entries(tree)) {
    if (value === undefined) continue;
    if (scalars.get(model)?.has(key)) read.add(key);
    else if (LOGGED_RELATIONS[model]?.has(key) && linkReadable(relations.get(model)!.get(key)!.model, value))
      read.add(key);
    else if (key === 'AND' || key === 'OR' || key === 'NOT') {
      if (!collectColumns(model, value, read, linkReadable)) return false;
    } else return false;
  }
  return true;
}

/**
 * The columns of `model` a filter reads, for a total remembered while none of them changes (RememberedCounts): its
 * own columns, and its logged links (an event's venues, organizers, terms) matched by the linked IDs only. Null when
 * it reads more: a linked record's own columns change as that record, which the log does not report as the event's.
 */
export function filterColumns(model: string, where: unknown): string[] | null {
  const read = new Set<string>();
  return collectColumns(model, where, read, linkedIdsOnly) ? [...read] : null;
}

/** A link-table filter (`{ some: { venueId: { in: [3] } } }`) that reads the link's own columns only. */
function linkedIdsOnly(link: string, filter: unknown): boolean {
  if (filter === null || typeof filter !== 'object') return false;
  return Object.entries(filter).every(
    ([quantifier, tree]) =>
      ['some', 'every', 'none'].includes(quantifier) && collectColumns(link, tree, new Set<string>(), linkedIdsOnly),
  );
}

function tableProbe(
  table: string,
  operation: string,
  args: Record<string, unknown>,
  columns: string[] | null,
  ask: () => Promise<unknown>,
  digestOf: (result: unknown) => string | null,
) {
  return {
    noteResult(result: unknown, facts: AnswerFacts) {
      const digest = digestOf(result);
      if (digest === null) return facts.readsTable(table);
      if (operation === 'findMany') for (const id of digest.split(',')) if (id) facts.showsRecord(table, Number(id));
      const repeat = async () => digestOf(await ask()) ?? '';
      const key = `${table} ${operation} ${probeKey(args)}`;
      const probe: TableProbe = { table, operation, key, columns, digest, repeat };
      facts.readsTableAs(probe);
    },
  };
}

/** The IDs of the rows, in order; null when a row has none (then the whole table is noted). */
function digestOfRows(rows: unknown): string | null {
  const ids = (rows as { id?: unknown }[]).map((row) => row.id);
  return ids.every((id) => typeof id === 'number') ? ids.join(',') : null;
}

/** The linked events of link rows, in order (the events are not shown for that: no record is noted). */
function digestOfLinks(rows: unknown): string | null {
  const ids = (rows as { eventId?: unknown }[]).map((row) => row.eventId);
  return ids.every((id) => typeof id === 'number') ? `links ${ids.join(',')}` : null;
}

/** A count, or one record's selected columns (its relations are noted as tables). */
const digestOfValue = (value: unknown) => JSON.stringify(value) ?? 'undefined';

/** A read's arguments as text (dates as their ISO text), to tell one read from another. */
const probeKey = (args: Record<string, unknown>) =>
  JSON.stringify(args, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));

function noteTable(model: string, facts: AnswerFacts) {
  const table = LOGGED_AS[model];
  if (table) facts.readsTable(table);
  else if (VERSIONED.has(model)) facts.readsUnloggedData();
  else if (!UNCHANGING.has(model)) facts.readsUnversionedData();
}

/** Notes every relation an argument tree goes through (`include: { venues: { include: { venue: true } } }`). */
function noteRelations(model: string, tree: unknown, facts: AnswerFacts) {
  if (Array.isArray(tree)) return tree.forEach((item) => noteRelations(model, item, facts));
  if (tree === null || typeof tree !== 'object') return;
  const fields = relations.get(model);
  for (const [key, value] of Object.entries(tree)) {
    if (value === undefined || value === false) continue;
    const related = fields?.get(key);
    if (related) {
      // The links of one event are logged as changes of that event: its own tag already covers them.
      if (!(model === 'Event' && LOGGED_AS[related.model] === 'event' && related.model !== 'Event'))
        noteTable(related.model, facts);
      noteRelations(related.model, value, facts);
    } else {
      // `select`, `include`, `where`, `_count`, `some`, `AND`…: the same model's fields below.
      noteRelations(model, value, facts);
    }
  }
}
