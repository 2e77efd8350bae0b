// The response cache's tags: what an answer depends on (AnswerFacts, gathered while it is computed), what writes made
// stale since (StaleTags, learnt from the change log), and list totals kept while their columns are unchanged
// (RememberedCounts).

/**
 * What a computed answer depends on, gathered while it is computed, so that the response cache keeps it exactly as
 * long as it is right (docs/caching.md): the records and tables it read, whether it read anything the change log
 * does not report, and the moment the clock changes it.
 *
 * Tags name what the change log reports (src/db/change-log.ts): `event:12` is one record, `event` is the whole
 * table (a list, a count, a filter over it). A change of event 12 makes both `event:12` and `event` stale.
 */
export class AnswerFacts {
  /** What makes it stale: records (`event:12`) and tables (`event`) read in ways the cache cannot check again. */
  readonly tags = new Set<string>();
  /**
   * Reads of a whole table whose result can be asked for again cheaply (a list's IDs, a count), by what they asked:
   * while such a read answers as it did, a change elsewhere in its table leaves the answer right.
   */
  readonly probes = new Map<string, TableProbe>();
  /** It read what no change-log entry reports: it is right only at the data version it was computed at. */
  readsUnlogged = false;
  /** It read what changes without moving the data version (the change log itself, settings): it is not kept. */
  readsUnversioned = false;
  /** When the clock changes the answer (ms since the epoch); never, unless a reading of the clock said so. */
  validUntil = Number.POSITIVE_INFINITY;

  showsRecord(table: string, id: number): void {
    this.tags.add(`${table}:${id}`);
  }

  readsTable(table: string): void {
    this.tags.add(table);
  }

  /** A read of `probe.table` that `probe` can repeat; its rows, if it lists any, are noted by `showsRecord`. */
  readsTableAs(probe: TableProbe): void {
    this.probes.set(probe.key, probe);
  }

  /** The probes an answer is checked by when their table changed: none for a table also read in another way. */
  checkableProbes(): TableProbe[] {
    return [...this.probes.values()].filter((probe) => !this.tags.has(probe.table));
  }

  /** Every tag, the tables of its probes included: what a shared cache in front purges it by. */
  allTags(): string[] {
    return [...new Set([...this.tags, ...[...this.probes.values()].map((probe) => probe.table)])];
  }

  readsUnloggedData(): void {
    this.readsUnlogged = true;
  }

  readsUnversionedData(): void {
    this.readsUnversioned = true;
  }

  /** The answer is different from `moment` on (a window that starts today changes at midnight). */
  changesAt(moment: number): void {
    if (moment < this.validUntil) this.validUntil = moment;
  }
}

/**
 * One read of a table as the cache can repeat it (src/db/request-client.ts): `repeat` asks it again now and answers
 * its digest (the IDs it listed in order, or the count), `digest` is what it answered when the answer was computed.
 */
export interface TableProbe {
  table: string;
  /** `findMany`, `findFirst` or `count`: counts scan all they count, the others stop at their page. */
  operation: string;
  /** What the read asked, as text: one probe per distinct read. */
  key: string;
  /**
   * The columns (and link relations: `venues`) its answer depends on: a change to none of them leaves it as it was.
   * Null when it depends on every column.
   */
  columns: readonly string[] | null;
  digest: string;
  repeat(): Promise<string>;
}

/** The tags a change of `table` record `id` makes stale (what a shared cache in front is purged by). */
export const tagsOfChange = (table: string, id: number): [string, string] => [`${table}:${id}`, table];

/**
 * The column tags a change makes stale, which probes are checked by (ResponseCache): `event.title` for each column
 * an update changed, `event.*` when every column may have (a record created or deleted, or a log that did not say).
 */
export const columnTagsOfChange = (table: string, columns: readonly string[] | null): string[] =>
  columns ? columns.map((column) => columnTag(table, column)) : [columnTag(table, '*')];

export const columnTag = (table: string, column: string) => `${table}.${column}`;

/** Longest Surrogate-Key header sent (Varnish's default limit on a header is 8 KB, Fastly's and Cloudflare's 16 KB). */
const MAX_KEYS_LENGTH = 4000;

/**
 * The tags an answer is purged by, as shared caches are told them (Surrogate-Key, Cache-Tag): `event:12` is left
 * out when `event` is there (every change of event 12 makes `event` stale too). When they would be too long for a
 * header, each table's records are named by their table instead: purged more often, never less.
 */
export function surrogateKeys(tags: Iterable<string>): string[] {
  const all = new Set(tags);
  const keys = [...all].filter((tag) => !all.has(tag.split(':')[0]!) || !tag.includes(':'));
  if (keys.join(' ').length <= MAX_KEYS_LENGTH) return keys.sort();
  return [...new Set(keys.map((tag) => tag.split(':')[0]!))].sort();
}

/** A place in the change log (src/db/change-log.ts): the data version of the writing transaction, then the order. */
export interface LogPosition {
  version: bigint;
  seq: number;
}

/** One entry of the log, as the cache needs it. */
export interface LoggedChange extends LogPosition {
  table: string;
  id: number;
  seenFrom: bigint;
  /** The columns an update changed (or the link relation: `venues`); null when any may have (created, deleted). */
  columns: readonly string[] | null;
}

/** The change log as the cache reads it (src/db/change-log.ts, wired in src/server.ts). */
export interface ChangeLogReader {
  /** Where the log ends now. */
  end(): Promise<LogPosition>;
  /**
   * Up to `limit` entries after `position`, in commit order; `table` is `event`, `venue`, `organizer` or `term`, and
   * `seenFrom` the first data version whose readers see the change.
   */
  after(position: LogPosition, limit: number): Promise<LoggedChange[]>;
  /** The last position pruned (entries up to it are gone), or none. */
  prunedThrough(): Promise<LogPosition | undefined>;
}

/**
 * Entries read at most per catch-up; more (a series deleted, an import) and everything is forgotten instead: one
 * page of the log costs the event loop a few milliseconds, ten thousand entries would hold every request behind it.
 */
const PAGE = 1000;
/** Tags remembered at most; beyond it everything is forgotten (an import touching every record, say). */
const MAX_TAGS = 200_000;
/** A pause longer than this between catch-ups checks whether pruning removed entries not yet read. */
const PRUNE_CHECK_AFTER_MS = 60 * 60 * 1000;

/**
 * Which tags changes have made stale, learnt from the change log. For each tag, the first data version that sees its
 * latest change: an answer computed at an earlier version is stale for it. (An answer's version is read before it
 * is computed, so it may see more than its version says, never less.)
 */
export class StaleTags {
  private readonly staleAt = new Map<string, bigint>();
  /** Grows when the log could not tell what changed: answers looked up before then are all stale. */
  private generation = 0;
  private position: LogPosition | undefined;
  private seenVersion: bigint | undefined;
  private caughtUpAt = 0;
  private catchingUp: Promise<void> | undefined;

  constructor(private readonly log: ChangeLogReader) {}

  /** What an answer looked up now is computed in: pass it to `fresh` with the answer. */
  get current(): number {
    return this.generation;
  }

  /**
   * Reads the log up to data version `version` (a statement only when the version moved since the last time). An
   * answer computed after it reflects every entry read.
   */
  async catchUp(version: bigint): Promise<void> {
    // A version lower than one seen: the database was restored from a backup, and nothing remembered holds.
    if (this.seenVersion !== undefined && version < this.seenVersion) await this.forget(version);
    while (this.seenVersion === undefined || version > this.seenVersion) {
      this.catchingUp ??= this.read(version).finally(() => (this.catchingUp = undefined));
      await this.catchingUp;
    }
  }

  /** Whether an answer computed at data version `version` in `generation`, showing `tags`, is still right. */
  fresh(version: bigint, generation: number, tags: readonly string[]): boolean {
    return generation === this.generation && !tags.some((tag) => this.changedSince(tag, version));
  }

  /** Whether a change made `tag` stale after data version `version`. */
  changedSince(tag: string, version: bigint): boolean {
    const stale = this.staleAt.get(tag);
    return stale !== undefined && stale > version;
  }

  /** Whether a change after data version `version` touched `columns` of `table` (any column, when null). */
  changedColumns(table: string, columns: readonly string[] | null, version: bigint): boolean {
    if (!columns) return this.changedSince(table, version);
    if (this.changedSince(columnTag(table, '*'), version)) return true;
    return columns.some((column) => this.changedSince(columnTag(table, column), version));
  }

  /**
   * Whether no change after data version `since` (looked up in `generation`) touched `columns` of `table`, as far as
   * the log tells up to data version `now`.
   */
  async unchangedColumns(
    table: string,
    columns: readonly string[],
    since: bigint,
    generation: number,
    now: bigint,
  ): Promise<boolean> {
    await this.catchUp(now);
    return generation === this.generation && !this.changedColumns(table, columns, since);
  }

  private async read(version: bigint): Promise<void> {
    // The first time, the log is followed from its end: nothing was remembered before.
    if (this.position === undefined) {
      this.position = await this.log.end();
      return this.seen(version);
    }
    if (Date.now() - this.caughtUpAt > PRUNE_CHECK_AFTER_MS && (await this.prunedPast(this.position)))
      return this.forget(version);
    const entries = await this.log.after(this.position, PAGE);
    if (entries.length === PAGE) return this.forget(version);
    for (const entry of entries) {
      for (const tag of [...tagsOfChange(entry.table, entry.id), ...columnTagsOfChange(entry.table, entry.columns)]) {
        const known = this.staleAt.get(tag);
        if (known === undefined || entry.seenFrom > known) this.staleAt.set(tag, entry.seenFrom);
      }
      this.position = { version: entry.version, seq: entry.seq };
    }
    if (this.staleAt.size > MAX_TAGS) return this.forget(version);
    this.seen(version);
  }

  private async prunedPast(position: LogPosition): Promise<boolean> {
    const pruned = await this.log.prunedThrough();
    if (pruned === undefined) return false;
    return pruned.version > position.version || (pruned.version === position.version && pruned.seq > position.seq);
  }

  /** Everything looked up so far is stale; the log is followed from its end. */
  private async forget(version: bigint): Promise<void> {
    this.position = await this.log.end();
    this.staleAt.clear();
    this.generation++;
    this.seenVersion = version;
    this.caughtUpAt = Date.now();
  }

  private seen(version: bigint) {
    if (this.seenVersion === undefined || version > this.seenVersion) this.seenVersion = version;
    this.caughtUpAt = Date.now();
  }
}

interface Remembered {
  /** The data version it was counted at, and the StaleTags generation then. */
  version: bigint;
  generation: number;
  total: number;
}

/**
 * List totals remembered across requests: counting a wide window is the costliest read of a list. A total is kept
 * while no change after it was counted touched a column its filter reads, as the change log tells (through
 * StaleTags, as the response cache learns them); so an edited title recounts the searches, not the totals of every
 * date window. Without the log (`stale` absent), or for a filter whose columns are not known (null), a total
 * holds only at the data version it was counted at.
 */
export class RememberedCounts {
  private readonly entries = new Map<string, Remembered>();

  constructor(
    private readonly capacity: number,
    private readonly stale?: StaleTags,
  ) {}

  async get(
    key: string,
    table: string,
    columns: readonly string[] | null,
    version: bigint,
    count: () => Promise<number>,
  ): Promise<number> {
    const entry = this.entries.get(key);
    if (entry && (await this.holds(entry, table, columns, version))) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.total;
    }
    if (this.stale) await this.stale.catchUp(version);
    const remembered = { version, generation: this.stale?.current ?? 0, total: await count() };
    this.entries.delete(key);
    this.entries.set(key, remembered);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return remembered.total;
  }

  private async holds(entry: Remembered, table: string, columns: readonly string[] | null, version: bigint) {
    if (entry.version === version) return true;
    // A request at an older version than the count's (one that began before a write) counts for itself.
    if (!this.stale || !columns || version < entry.version) return false;
    return this.stale.unchangedColumns(table, columns, entry.version, entry.generation, version);
  }
}
