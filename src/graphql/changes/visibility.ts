import type { ChangeEntry, ChangeRecordType } from '../../db/change-log.js';
import { listVisibility, unlockedWhere } from '../access.js';
import type { Context } from '../context.js';

/** `<type>:<id>`: one record of the change log. */
export const recordKey = (type: ChangeRecordType, id: number) => `${type}:${id}`;

/**
 * A post type's records in the reader's view: what its list shows the reader by default (the statuses it may list),
 * with their content readable (not locked by a password the reader lacks).
 */
function postsInView(ctx: Context, ids: number[]) {
  const { statuses, condition } = listVisibility(ctx, undefined, 'statuses');
  return { AND: [{ id: { in: ids } }, { status: { in: statuses } }, condition, unlockedWhere(ctx)] };
}

const IN_VIEW: Record<ChangeRecordType, (ctx: Context, ids: number[]) => Promise<{ id: number }[]>> = {
  // Lists leave out events hidden from listings, so a synchronised copy of the list does too.
  event: (ctx, ids) => ctx.db.event.findMany({ where: { AND: [postsInView(ctx, ids), { hideFromListings: false }] }, select: { id: true } }),
  venue: (ctx, ids) => ctx.db.venue.findMany({ where: postsInView(ctx, ids), select: { id: true } }),
  organizer: (ctx, ids) => ctx.db.organizer.findMany({ where: postsInView(ctx, ids), select: { id: true } }),
  category: (ctx, ids) => ctx.db.term.findMany({ where: { id: { in: ids }, taxonomy: 'category' }, select: { id: true } }),
  tag: (ctx, ids) => ctx.db.term.findMany({ where: { id: { in: ids }, taxonomy: 'tag' }, select: { id: true } }),
};

/** The records of `entries` that are in the reader's view now, as recordKey values. */
export async function recordsInView(ctx: Context, entries: readonly ChangeEntry[]): Promise<Set<string>> {
  const idsByType = new Map<ChangeRecordType, Set<number>>();
  for (const entry of entries) {
    const ids = idsByType.get(entry.recordType) ?? new Set();
    idsByType.set(entry.recordType, ids.add(entry.recordId));
  }
  const found = await Promise.all(
    [...idsByType].map(async ([type, ids]) => (await IN_VIEW[type](ctx, [...ids])).map((row) => recordKey(type, row.id))),
  );
  return new Set(found.flat());
}

/** A change as one reader is told of it. */
export interface SeenChange {
  type: ChangeRecordType;
  databaseId: number;
  action: 'created' | 'updated' | 'deleted';
  modifiedAt: Date;
}

/**
 * The entries as this reader sees them, one per record (at the place of its last entry): a record out of the
 * reader's view now is `deleted` for them, whatever happened to it (it left their view, or never was in it); one in
 * view was `created` when its first entry here is its creation, else `updated`.
 */
export async function asSeenBy(ctx: Context, entries: readonly ChangeEntry[]): Promise<SeenChange[]> {
  const inView = await recordsInView(ctx, entries);
  return collapsed(entries, inView);
}

/** Each entry as this reader sees it, one by one (live notifications tell of every change). */
export async function eachAsSeenBy(ctx: Context, entries: readonly ChangeEntry[]): Promise<SeenChange[]> {
  const inView = await recordsInView(ctx, entries);
  return entries.map((entry) => ({
    type: entry.recordType,
    databaseId: entry.recordId,
    action: inView.has(recordKey(entry.recordType, entry.recordId)) ? entry.action : 'deleted',
    modifiedAt: entry.changedAt,
  }));
}

function collapsed(entries: readonly ChangeEntry[], inView: Set<string>): SeenChange[] {
  const created = new Set<string>();
  const last = new Map<string, ChangeEntry>();
  for (const entry of entries) {
    const key = recordKey(entry.recordType, entry.recordId);
    if (!last.has(key) && entry.action === 'created') created.add(key);
    last.delete(key);
    last.set(key, entry);
  }
  return [...last].map(([key, entry]) => ({
    type: entry.recordType,
    databaseId: entry.recordId,
    action: !inView.has(key) ? 'deleted' : created.has(key) ? 'created' : 'updated',
    modifiedAt: entry.changedAt,
  }));
}
