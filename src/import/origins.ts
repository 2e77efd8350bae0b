/**
 * Where each imported record came from (`ImportOrigin`: source, record type, remote ID → local ID), and the hash
 * of what was last written for it, so that a second run updates instead of duplicating and leaves unchanged records
 * alone. Read once per run into memory; each record's origin is saved as soon as it is written, so a run stopped
 * half-way resumes where it stopped.
 */
import { createHash } from 'node:crypto';
import { lastChangeOf } from '../db/change-log.js';
import type { Db } from '../db/client.js';
import { rekeyStatement, type PostType } from './post-ids.js';
import type { RecordType } from './remote.js';

export interface KnownOrigin {
  localId: number;
  contentHash: string;
  /** The change log's position of the import's last write of the record (null: saved before it was kept). */
  writtenSeq: number | null;
  /** When it was written. */
  writtenAt: Date;
}

const key = (type: RecordType, remoteId: number) => `${type}:${remoteId}`;

/** JSON with keys sorted, so that equal inputs hash equal whatever order their fields were set in. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What was written for a record, as a hash: equal hashes mean nothing changed on the source. */
export function contentHash(input: Record<string, unknown>): string {
  return createHash('sha256').update(stableJson(input)).digest('hex');
}

/** The local IDs of each record type that still exist (an imported record may have been deleted here since). */
async function existingLocalIds(db: Db): Promise<Record<RecordType, Set<number>>> {
  const ids = (rows: Array<{ id: number }>) => new Set(rows.map((row) => row.id));
  const [events, venues, organizers, categories, tags] = await Promise.all([
    db.event.findMany({ select: { id: true } }),
    db.venue.findMany({ select: { id: true } }),
    db.organizer.findMany({ select: { id: true } }),
    db.term.findMany({ where: { taxonomy: 'category' }, select: { id: true } }),
    db.term.findMany({ where: { taxonomy: 'tag' }, select: { id: true } }),
  ]);
  return {
    event: ids(events),
    venue: ids(venues),
    organizer: ids(organizers),
    category: ids(categories),
    tag: ids(tags),
  };
}

export class OriginStore {
  private constructor(
    private readonly db: Db,
    readonly source: string,
    private readonly known: Map<string, KnownOrigin>,
    private readonly claimed: Map<RecordType, Set<number>>,
  ) {}

  static async load(db: Db, source: string): Promise<OriginStore> {
    const [rows, existing] = await Promise.all([
      db.importOrigin.findMany({
        select: {
          source: true,
          recordType: true,
          remoteId: true,
          localId: true,
          contentHash: true,
          writtenSeq: true,
          importedAt: true,
        },
      }),
      existingLocalIds(db),
    ]);
    const known = new Map<string, KnownOrigin>();
    const claimed = new Map<RecordType, Set<number>>();
    for (const row of rows) {
      const type = row.recordType as RecordType;
      if (!claimed.has(type)) claimed.set(type, new Set());
      claimed.get(type)!.add(row.localId);
      if (row.source === source && existing[type]?.has(row.localId))
        known.set(key(type, row.remoteId), {
          localId: row.localId,
          contentHash: row.contentHash,
          writtenSeq: row.writtenSeq,
          writtenAt: row.importedAt,
        });
    }
    return new OriginStore(db, source, known, claimed);
  }

  /** The local copy of a remote record, when it was imported before and still exists. */
  get(type: RecordType, remoteId: number): KnownOrigin | undefined {
    return this.known.get(key(type, remoteId));
  }

  /** Remote IDs imported before from this source (and still here), for finding those the source no longer lists. */
  remoteIds(type: RecordType): number[] {
    const prefix = `${type}:`;
    return [...this.known.keys()].filter((k) => k.startsWith(prefix)).map((k) => Number(k.slice(prefix.length)));
  }

  /** Whether a local record is the copy of some imported record (from any source). */
  isClaimed(type: RecordType, localId: number): boolean {
    return this.claimed.get(type)?.has(localId) ?? false;
  }

  /**
   * Saves where a record came from. `rekeyFrom`: the ID the record was written under, changed to `origin.localId` in
   * the same transaction (`--keep-ids`), so that a run stopped in between finds it as an unclaimed twin next time.
   */
  async save(
    type: RecordType,
    remoteId: number,
    written: Omit<KnownOrigin, 'writtenSeq' | 'writtenAt'>,
    remoteModified: string | null,
    rekeyFrom?: number,
  ): Promise<void> {
    const where = { source_recordType_remoteId: { source: this.source, recordType: type, remoteId } };
    const rekeyed = rekeyFrom !== undefined && rekeyFrom !== written.localId;
    // The write's own log position; a rekeyed record's is not known until the rekey commits (null: left unjudged).
    const writtenSeq = rekeyed ? null : await lastChangeOf(this.db, type, written.localId);
    const origin = { ...written, writtenSeq, writtenAt: new Date() };
    const data = {
      localId: origin.localId,
      contentHash: origin.contentHash,
      remoteModified,
      writtenSeq,
      importedAt: origin.writtenAt,
    };
    const upsert = this.db.importOrigin.upsert({
      where,
      create: { source: this.source, recordType: type, remoteId, ...data },
      update: data,
    });
    if (!rekeyed) await upsert;
    else await this.db.$transaction([rekeyStatement(this.db, type as PostType, rekeyFrom!, origin.localId), upsert]);
    this.known.set(key(type, remoteId), origin);
    if (!this.claimed.has(type)) this.claimed.set(type, new Set());
    this.claimed.get(type)!.add(origin.localId);
  }

  /** Forgets a record's origin (its copy was trashed because the source no longer has it). */
  async forget(type: RecordType, remoteId: number): Promise<void> {
    await this.db.importOrigin.deleteMany({ where: { source: this.source, recordType: type, remoteId } });
    this.known.delete(key(type, remoteId));
  }
}
