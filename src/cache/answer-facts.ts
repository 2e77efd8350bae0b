/**
 * What a computed answer depends on, gathered while it is computed, so that the response cache keeps it exactly as
 * long as it is right (docs/caching.md): the records and tables it read, whether it read anything the change log
 * does not report, and the moment the clock changes it.
 *
 * Tags name what the change log reports (src/db/changes-read.ts): `event:12` is one record, `event` is the whole
 * table (a list, a count, a filter over it). A change of event 12 makes both `event:12` and `event` stale.
 */
export class AnswerFacts {
  readonly tags = new Set<string>();
  /** It read what no change-log entry reports: it is right only at the data version it was computed at. */
  readsUnlogged = false;
  /** When the clock changes the answer (ms since the epoch); never, unless a reading of the clock said so. */
  validUntil = Number.POSITIVE_INFINITY;

  showsRecord(table: string, id: number): void {
    this.tags.add(`${table}:${id}`);
  }

  readsTable(table: string): void {
    this.tags.add(table);
  }

  readsUnloggedData(): void {
    this.readsUnlogged = true;
  }

  /** The answer is different from `moment` on (a window that starts today changes at midnight). */
  changesAt(moment: number): void {
    if (moment < this.validUntil) this.validUntil = moment;
  }
}

/** The tags a change of `table` record `id` makes stale. */
export const tagsOfChange = (table: string, id: number): [string, string] => [`${table}:${id}`, table];
