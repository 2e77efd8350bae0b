import type { StaleTags } from './tags.js';

interface Remembered {
  /** The data version it was counted at, and the StaleTags generation then. */
  version: bigint;
  generation: number;
  total: number;
}

/**
 * List totals remembered across requests: counting a wide window is the costliest read of a list. A total is kept
 * while no change after it was counted touched a column its filter reads, as the change log tells (the response
 * cache learns changes the same way: src/cache/tags.ts); so an edited title recounts the searches, not the totals of
 * every date window. Without the log (`stale` absent), or for a filter whose columns are not known (null), a total
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
