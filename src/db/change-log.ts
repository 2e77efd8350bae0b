import type { ChangeLogReader } from '../cache/tags.js';
import type { Db, DbTransaction } from './client.js';
import { lockForWriting, readDataVersion } from './data-version.js';

/**
 * The change log (the `Change` table): database triggers record every create, update and delete of an event,
 * venue, organizer or term, and an event's `updated` when its links change, in the writing transaction (see the
 * change_log migrations). Entries are read in commit order, after a position a reader remembers.
 */
export const CHANGE_RECORD_TYPES = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
export type ChangeRecordType = (typeof CHANGE_RECORD_TYPES)[number];
export const CHANGE_ACTIONS = ['created', 'updated', 'deleted'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/**
 * The log's position (`seq`) of a record's latest change, 0 when it has none (as after the log's retention): an
 * importer that remembers the position of its own write knows a later one for an edit made here.
 */
export async function lastChangeOf(db: Db, recordType: ChangeRecordType, recordId: number): Promise<number> {
  const { _max } = await db.change.aggregate({ where: { recordType, recordId }, _max: { seq: true } });
  return _max.seq ?? 0;
}

/** Columns the service keeps up by itself (a term's event count, a series' upkeep): a change of only these is no edit. */
const UPKEEP_COLUMNS = new Set(['eventCount', 'materializedUntil', 'syncedThrough']);

/**
 * Whether a record was edited after an importer wrote it (the write at `written.seq` in the log, made at
 * `written.at`): a later entry that changed more than upkeep columns. A series master's updates name no columns (the
 * change_columns migration), so for those the event's modification time tells: later than the write (whole seconds:
 * an edit within the second of the write is not seen). Entries past the log's retention are not seen either.
 */
export async function editedSince(
  db: Db,
  recordType: ChangeRecordType,
  recordId: number,
  written: { seq: number; at: Date },
): Promise<boolean> {
  const later = await db.change.findMany({
    where: { recordType, recordId, seq: { gt: written.seq } },
    select: { action: true, columns: true },
  });
  let unnamed = false;
  for (const { action, columns } of later) {
    if (action !== 'updated') return true;
    if (columns === null) unnamed = true;
    else if (columns.split(',').some((column) => !UPKEEP_COLUMNS.has(column))) return true;
  }
  if (!unnamed) return false;
  if (recordType !== 'event') return true;
  const event = await db.event.findUnique({ where: { id: recordId }, select: { modifiedAt: true } });
  return event !== null && event.modifiedAt.getTime() > written.at.getTime();
}

/**
 * A place in the log: everything committed up to it was read. `version` is the data version of the writing
 * transaction; writers queue on the DataVersion row, so (version, seq) orders entries as they were committed.
 */
export interface ChangePosition {
  version: bigint;
  seq: number;
}

export interface ChangeEntry extends ChangePosition {
  recordType: ChangeRecordType;
  recordId: number;
  action: ChangeAction;
  /** For an `updated`: the columns it changed, comma-separated, or the link relation (`venues`); null otherwise. */
  columns: string | null;
  changedAt: Date;
}

/** The Setting row holding the last position pruned: a reader whose position is before it missed entries. */
const PRUNED_THROUGH = 'change_log_pruned_through';

export function comparePositions(a: ChangePosition, b: ChangePosition): number {
  if (a.version !== b.version) return a.version < b.version ? -1 : 1;
  return a.seq - b.seq;
}

/** Up to `limit` entries committed after `after`, in commit order. */
export async function readChangesAfter(
  db: DbTransaction,
  after: ChangePosition,
  limit: number,
): Promise<ChangeEntry[]> {
  const rows = await db.change.findMany({
    // (version, seq) > after, written as a range on the index's first column less the entries at or before `after`
    // in its version: an OR of the two cases makes SQLite scan the whole log (70 ms at a million entries).
    where: { version: { gte: after.version }, NOT: { version: after.version, seq: { lte: after.seq } } },
    orderBy: [{ version: 'asc' }, { seq: 'asc' }],
    take: limit,
  });
  return rows as ChangeEntry[];
}

/** Which of these records have an entry committed after `after` (each named once). */
export async function recordsChangedAfter(
  db: DbTransaction,
  after: ChangePosition,
  records: Array<Pick<ChangeEntry, 'recordType' | 'recordId'>>,
): Promise<Array<Pick<ChangeEntry, 'recordType' | 'recordId'>>> {
  if (records.length === 0) return [];
  const rows = await db.change.findMany({
    where: {
      version: { gte: after.version },
      NOT: { version: after.version, seq: { lte: after.seq } },
      recordId: { in: [...new Set(records.map((record) => record.recordId))] },
    },
    distinct: ['recordType', 'recordId'],
    select: { recordType: true, recordId: true },
  });
  const asked = new Set(records.map((record) => `${record.recordType} ${record.recordId}`));
  return (rows as Array<Pick<ChangeEntry, 'recordType' | 'recordId'>>).filter((row) =>
    asked.has(`${row.recordType} ${row.recordId}`),
  );
}

/**
 * The position everything committed so far is at or before, and everything committed later after. The version is
 * read first: entries of versions up to it are committed and so seen by the second read; later ones have higher
 * versions (on SQLite a later transaction's entries may share the version, but then have higher seqs).
 */
export async function currentChangePosition(db: DbTransaction): Promise<ChangePosition> {
  const version = await readDataVersion(db as Db);
  // Not `aggregate({ _max })`, which Prisma wraps in a subquery that scans the whole log (100 ms at a million
  // entries); ordered with a limit, the primary key answers at once.
  const last = await db.change.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true } });
  // Sequence numbers only grow, even over pruned entries: an empty log is at the last one pruned.
  const pruned = await prunedThrough(db);
  return { version, seq: Math.max(last?.seq ?? 0, pruned?.seq ?? 0) };
}

/** The last position pruned from the log (nothing before it can be read any more), or none. */
export async function prunedThrough(db: DbTransaction): Promise<ChangePosition | undefined> {
  const row = await db.setting.findUnique({ where: { name: PRUNED_THROUGH } });
  return row ? decodePosition(row.value) : undefined;
}

/** Deletes the entries recorded before `before` and remembers the last position deleted; answers how many went. */
export async function pruneChanges(db: Db, before: Date): Promise<number> {
  return db.$transaction(async (tx) => {
    // Serialised with writers and with other processes pruning, so the remembered position only moves forward.
    await lockForWriting(tx);
    const last = await tx.change.findFirst({
      where: { changedAt: { lt: before } },
      orderBy: [{ version: 'desc' }, { seq: 'desc' }],
      select: { version: true, seq: true },
    });
    if (!last) return 0;
    const { count } = await tx.change.deleteMany({
      // (version, seq) <= last, as a range on the index (see readChangesAfter).
      where: { version: { lte: last.version }, NOT: { version: last.version, seq: { gt: last.seq } } },
    });
    const previous = await prunedThrough(tx);
    if (!previous || comparePositions(previous, last) < 0) {
      const value = encodePosition(last);
      await tx.setting.upsert({
        where: { name: PRUNED_THROUGH },
        create: { name: PRUNED_THROUGH, value },
        update: { value },
      });
    }
    return count;
  });
}

/** `<version>.<seq>`: the stored form of a position; cursors wrap it (src/graphql/changes). */
export function encodePosition(position: ChangePosition): string {
  return `${position.version}.${position.seq}`;
}

/** A position from its stored form, or undefined when `text` is not exactly one (no sign, no leading zero). */
export function decodePosition(text: string): ChangePosition | undefined {
  const match = /^(0|[1-9]\d{0,17})\.(0|[1-9]\d{0,9})$/.exec(text);
  if (!match) return undefined;
  const seq = Number(match[2]);
  if (seq > 2 ** 31 - 1) return undefined;
  return { version: BigInt(match[1]!), seq };
}

/**
 * The log as the response cache follows it (src/cache/tags.ts): entries name the table whose record changed,
 * categories and tags both being terms, and the first data version that sees the change. PostgreSQL logs the
 * version the writing statement made (seen from it on); SQLite's row triggers log the version before the row's own
 * increase (seen from the next one).
 */
export function changeLogReader(db: Db, engine: 'sqlite' | 'postgres'): ChangeLogReader {
  const seenAfter = engine === 'sqlite' ? 1n : 0n;
  return {
    end: () => currentChangePosition(db),
    prunedThrough: () => prunedThrough(db),
    after: async (position, limit) =>
      (await readChangesAfter(db, position, limit)).map(({ version, seq, recordType, recordId, columns }) => ({
        version,
        seq,
        table: recordType === 'category' || recordType === 'tag' ? 'term' : recordType,
        id: recordId,
        seenFrom: version + seenAfter,
        columns: columns === null ? null : columns.split(',').filter(Boolean),
      })),
  };
}
