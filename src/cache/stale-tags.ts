import { columnTag, columnTagsOfChange, tagsOfChange } from './answer-facts.js';

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
