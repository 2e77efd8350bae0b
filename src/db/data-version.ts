import type { Db, DbTransaction } from './client.js';

/**
 * The database's data version: a counter every write to a record readers can see increases in the writing
 * transaction (database triggers, see the `data_version` migration). Whatever a process remembers about the data is
 * current while the version it was computed at is still the version in the database, in whichever process the
 * writes happened. A server process learns of changes without asking each time: src/db/data-version-watch.ts.
 */
export async function readDataVersion(db: Db): Promise<bigint> {
  const row = await db.dataVersion.findUnique({ where: { id: 1 }, select: { version: true } });
  if (!row) throw new Error('DataVersion row 1 is missing: the database was not migrated by this service');
  return row.version;
}

/**
 * Takes the data-version row's write lock for the rest of the transaction, without changing it: writers on the same
 * database (in any process) then wait for this transaction to end. A check-then-write (is there a duplicate? is the
 * record already in the trash?) is then atomic. PostgreSQL locks the row; SQLite takes the database's write lock.
 */
export async function lockForWriting(tx: DbTransaction): Promise<void> {
  await tx.dataVersion.update({ where: { id: 1 }, data: { version: { increment: 0 } }, select: { id: true } });
}

/**
 * Values computed from the data, each remembered with the data version it was computed at and answered again only
 * while that version is current. Bounded: the least recently used key goes first.
 */
export class VersionedMemo<T> {
  private readonly entries = new Map<string, { version: bigint; value: T }>();

  constructor(private readonly capacity: number) {}

  async get(key: string, version: bigint, compute: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry && entry.version === version) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.value;
    }
    const value = await compute();
    this.entries.delete(key);
    this.entries.set(key, { version, value });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }
}
