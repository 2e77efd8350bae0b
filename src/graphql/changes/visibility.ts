import { type ChangeEntry, type ChangeRecordType, decodePosition, encodePosition } from '../../db/change-log.js';
import type { Db } from '../../db/client.js';
import { listVisibility, unlockedWhere } from '../access.js';
import type { Context } from '../builder.js';
import type { PostStatusValue } from '../shared/posts.js';
import { encodeCursor } from './cursor.js';
import type { SeenChange } from './seen-change.js';

/** `<type>:<id>`: one record of the change log. */
export const recordKey = (type: ChangeRecordType, id: number) => `${type}:${id}`;

/**
 * What decides which records a reader sees: the statuses its lists show by default, the condition that keeps others'
 * unpublished records out, and which password-protected records it may read. Readers with equal views see the same
 * records, whoever they are: anonymous readers and subscribers share one, editors and administrators another, each
 * author and contributor has their own.
 */
export interface ReaderView {
  statuses: readonly PostStatusValue[];
  condition: object;
  unlocked: object;
}

export function readerViewOf(ctx: Context): ReaderView {
  const { statuses, condition } = listVisibility(ctx, undefined, 'statuses');
  return { statuses, condition, unlocked: unlockedWhere(ctx) };
}

/** A key equal for readers with equal views (their visibility class): the view's conditions themselves. */
export const visibilityClassOf = (view: ReaderView): string => JSON.stringify(view);

/** What the events list shows of the events in a view. */
const LISTED_EVENTS = { hideFromListings: false, isSeriesMaster: false };

/** A post type's records in the view: what its list shows by default, with their content readable (not locked). */
function postsInView(view: ReaderView, ids: number[]) {
  return { AND: [{ id: { in: ids } }, { status: { in: [...view.statuses] } }, view.condition, view.unlocked] };
}

const IN_VIEW: Record<ChangeRecordType, (db: Db, view: ReaderView, ids: number[]) => Promise<{ id: number }[]>> = {
  // Lists leave out events hidden from listings and series masters (their occurrences are listed), so a synchronised
  // copy of the list does too.
  event: (db, view, ids) =>
    db.event.findMany({ where: { AND: [postsInView(view, ids), LISTED_EVENTS] }, select: { id: true } }),
  venue: (db, view, ids) => db.venue.findMany({ where: postsInView(view, ids), select: { id: true } }),
  organizer: (db, view, ids) => db.organizer.findMany({ where: postsInView(view, ids), select: { id: true } }),
  category: (db, _view, ids) =>
    db.term.findMany({ where: { id: { in: ids }, taxonomy: 'category' }, select: { id: true } }),
  tag: (db, _view, ids) => db.term.findMany({ where: { id: { in: ids }, taxonomy: 'tag' }, select: { id: true } }),
};

/** The records of `entries` that are in the view now, as recordKey values: one statement per kind of record. */
export async function recordsInView(db: Db, view: ReaderView, entries: readonly ChangeEntry[]): Promise<Set<string>> {
  const idsByType = new Map<ChangeRecordType, Set<number>>();
  for (const entry of entries) {
    const ids = idsByType.get(entry.recordType) ?? new Set();
    idsByType.set(entry.recordType, ids.add(entry.recordId));
  }
  const found = await Promise.all(
    [...idsByType].map(async ([type, ids]) =>
      (await IN_VIEW[type](db, view, [...ids])).map((row) => recordKey(type, row.id)),
    ),
  );
  return new Set(found.flat());
}

/** How events link each kind of record they embed (REST's `venue`, `organizer`, `categories`, `tags`). */
const EMBEDDED_BY_EVENTS: Partial<Record<ChangeRecordType, (ids: number[]) => object>> = {
  venue: (ids) => ({ venues: { some: { venueId: { in: ids } } } }),
  organizer: (ids) => ({ organizers: { some: { organizerId: { in: ids } } } }),
  category: (ids) => ({ terms: { some: { termId: { in: ids } } } }),
  tag: (ids) => ({ terms: { some: { termId: { in: ids } } } }),
};

const updatesEmbedded = (entry: ChangeEntry) =>
  entry.action === 'updated' && EMBEDDED_BY_EVENTS[entry.recordType] !== undefined;

/** The events in the view that link a record `updates` names: one statement, however many records changed. */
async function eventsEmbedding(db: Db, view: ReaderView, updates: readonly ChangeEntry[]): Promise<number[]> {
  const idsByType = new Map<ChangeRecordType, Set<number>>();
  for (const { recordType, recordId } of updates)
    idsByType.set(recordType, (idsByType.get(recordType) ?? new Set()).add(recordId));
  const links = [...idsByType].map(([type, ids]) => EMBEDDED_BY_EVENTS[type]!([...ids]));
  const inView = [{ status: { in: [...view.statuses] } }, view.condition, view.unlocked, LISTED_EVENTS];
  const events = await db.event.findMany({
    where: { AND: [{ OR: links }, ...inView] },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  return events.map((event) => event.id);
}

/**
 * `entries` with the events that embed a record they update (a venue renamed, a term whose event count moved) told of
 * too: each an `updated` of the event just after the last such entry, so that what a replica embeds follows the
 * record. A page may so hold more records than it has entries.
 */
export async function withEmbeddingEvents(
  ctx: Context,
  entries: readonly ChangeEntry[],
): Promise<{ entries: ChangeEntry[]; inView: Set<string> }> {
  const last = entries.findLastIndex(updatesEmbedded);
  if (last < 0) return { entries: [...entries], inView: new Set() };
  const eventIds = await eventsEmbedding(ctx.db, readerViewOf(ctx), entries.filter(updatesEmbedded));
  const at = entries[last]!;
  const derived = eventIds.map((id): ChangeEntry => ({ ...at, recordType: 'event', recordId: id, columns: null }));
  return {
    entries: [...entries.slice(0, last + 1), ...derived, ...entries.slice(last + 1)],
    inView: new Set(eventIds.map((id) => recordKey('event', id))),
  };
}

/** The cursor of an entry (cursors are signed: src/graphql/changes/cursor.ts). */
export type CursorOf = (entry: ChangeEntry) => string;

/**
 * The entries as this reader sees them, one per record (at the place of its last entry): a record out of the
 * reader's view now is `deleted` for them, whatever happened to it (it left their view, or never was in it); one in
 * view was `created` when its first entry here is its creation, else `updated`.
 */
export async function asSeenBy(
  ctx: Context,
  entries: readonly ChangeEntry[],
  knownInView: ReadonlySet<string> = new Set(),
): Promise<SeenChange[]> {
  // One cursor per place in the log (the events told of for an embedded record's update share its place).
  const places = [...new Set(entries.map(encodePosition))];
  const cursors = new Map(
    await Promise.all(places.map(async (place) => [place, await encodeCursor(ctx, decodePosition(place)!)] as const)),
  );
  const cursorOf = (entry: ChangeEntry) => cursors.get(encodePosition(entry))!;
  const unknown = entries.filter((entry) => !knownInView.has(recordKey(entry.recordType, entry.recordId)));
  const inView = await recordsInView(ctx.db, readerViewOf(ctx), unknown);
  return collapsed(entries, new Set([...inView, ...knownInView]), cursorOf);
}

/** Each entry as a reader with the records `inView` sees it, one by one (live notifications tell of every change). */
export function eachAsSeen(
  entries: readonly ChangeEntry[],
  inView: ReadonlySet<string>,
  cursorOf: CursorOf,
): SeenChange[] {
  return entries.map((entry) => ({
    type: entry.recordType,
    databaseId: entry.recordId,
    action: inView.has(recordKey(entry.recordType, entry.recordId)) ? entry.action : 'deleted',
    modifiedAt: entry.changedAt,
    cursor: cursorOf(entry),
  }));
}

function collapsed(entries: readonly ChangeEntry[], inView: Set<string>, cursorOf: CursorOf): SeenChange[] {
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
    cursor: cursorOf(entry),
  }));
}
