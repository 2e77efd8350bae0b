/**
 * `--keep-ids`: imported events, venues and organizers keep the IDs they have on the source, so integrations that
 * stored them keep working after the move. Events, venues and organizers share one ID space here as on WordPress,
 * so an ID is free only when none of the three has it. Before anything is written, every listed record's ID is
 * checked; a record created by the import is then given its source ID in the transaction that saves its origin.
 */
import type { Db } from '../db/client.js';
import { EVERY_STATUS, type SourceClient } from './client.js';
import type { RecordKind } from './mapping/kind.js';
import type { OriginStore } from './origins.js';
import type { PostType } from './post-ids.js';
import { asRecord, remoteIdOf } from './remote.js';

/** Which local post has each of these IDs. */
async function localOwners(db: Db, ids: number[]): Promise<Map<number, PostType>> {
  const owners = new Map<number, PostType>();
  // In slices: both engines cap the number of bound values in one statement.
  for (let start = 0; start < ids.length; start += 1000) {
    const where = { where: { id: { in: ids.slice(start, start + 1000) } }, select: { id: true } };
    const [events, venues, organizers] = await Promise.all([
      db.event.findMany(where),
      db.venue.findMany(where),
      db.organizer.findMany(where),
    ]);
    for (const [type, rows] of [
      ['event', events],
      ['venue', venues],
      ['organizer', organizers],
    ] as const)
      for (const row of rows) owners.set(row.id, type);
  }
  return owners;
}

/** The IDs of every listed record of a kind, or the reason when a page could not be read. */
async function listedIds(source: SourceClient, kind: RecordKind, perPage: number): Promise<number[] | string> {
  const query = { ...kind.listQuery, ...(source.authenticated ? { status: EVERY_STATUS } : {}) };
  const ids: number[] = [];
  for await (const page of source.pages(kind.route, kind.listKey, query, perPage)) {
    if ('error' in page)
      return `${kind.route} page ${page.page} could not be read to check its IDs (${page.error.message})`;
    for (const item of page.items) {
      try {
        ids.push(remoteIdOf(asRecord(item)));
      } catch {
        // a record without a usable ID is reported when it is imported
      }
    }
  }
  return ids;
}

/**
 * Why the source's IDs cannot all be kept: an ID a local record already has (other than the copy of that same
 * record from an earlier import, which keeps its ID), or one the source itself gives to two records. Empty: go ahead.
 */
export async function keepIdConflicts(
  source: SourceClient,
  kinds: RecordKind[],
  origins: OriginStore,
  db: Db,
  perPage: number,
): Promise<string[]> {
  const conflicts: string[] = [];
  const wanted = new Map<number, PostType>();
  for (const kind of kinds) {
    const type = kind.type as PostType;
    const ids = await listedIds(source, kind, perPage);
    if (typeof ids === 'string') return [ids];
    for (const id of ids) {
      if (origins.get(type, id)) continue;
      const other = wanted.get(id);
      if (other && other !== type) conflicts.push(`the source has both a ${other} and a ${type} with ID ${id}`);
      wanted.set(id, type);
    }
  }
  const owners = await localOwners(db, [...wanted.keys()]);
  for (const [id, owner] of owners)
    conflicts.push(`the source's ${wanted.get(id)} ${id} cannot keep its ID: ${owner} ${id} here has it`);
  return conflicts;
}
