/**
 * What a computed answer depends on, gathered while it is computed, so that the response cache keeps it exactly as
 * long as it is right (docs/caching.md): the records and tables it read, whether it read anything the change log
 * does not report, and the moment the clock changes it.
 *
 * Tags name what the change log reports (src/db/changes-read.ts): `event:12` is one record, `event` is the whole
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
 * One read of a table as the cache can repeat it (src/db/reads-recorded.ts): `repeat` asks it again now and answers
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
