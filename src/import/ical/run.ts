/**
 * An iCalendar source's run (docs/import.md#icalendar-feeds): fetch its feed (conditionally), read it, and bring
 * the events it wrote in line with it. Each event is written through the GraphQL schema (src/import/writer.ts), whole
 * or not at all; a feed that cannot be fetched or read changes nothing. An unchanged VEVENT is not written at all, so
 * an unchanged feed leaves no change-log entry and sends no webhook.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../../config.js';
import { editedSince, lastChangeOf } from '../../db/change-log.js';
import type { Db } from '../../db/client.js';
import { emptyReport, fetchedUrl, type RunReport } from '../../db/import-sources.js';
import { type FeedEvent, type FeedProblem, type FeedTime, readFeed } from '../../ical/read-feed.js';
import { fetchOutbound, OutboundRefusal } from '../../net/outbound-fetch.js';
import { GraphQLWriter, importerViewer, RefusedWrite } from '../writer.js';
import { instantOf } from '../../time/occurrence-times.js';
import { eventInputOf, recurrenceOf, type SourceSettings } from './map.js';

const EVENTS = { create: 'createEvent', update: 'updateEvent', inputType: 'EventInput' };

/** Why a run failed as a whole: the feed could not be fetched or read (the text completes "the feed …"). */
export class FeedFailure extends Error {}

export type Source = NonNullable<Awaited<ReturnType<Db['importSource']['findUnique']>>>;

/** A feed's answer: its text, and its validators for the next run's conditional GET. */
export interface FetchedFeed {
  text: string;
  contentType: string | null;
  /** The `Link` header (a WordPress page names its REST root there). */
  links: string | null;
  etag: string | null;
  lastModified: string | null;
}

/** The source's feed, or null when it has not changed since the last run (304). */
export async function fetchFeed(source: Source, config: Config): Promise<FetchedFeed | null> {
  const headers: Record<string, string> = {
    accept: 'text/calendar, text/plain;q=0.5, */*;q=0.1',
    'user-agent': 'calendar-events-service (iCalendar import)',
    ...(source.etag ? { 'if-none-match': source.etag } : {}),
    ...(source.lastModified ? { 'if-modified-since': source.lastModified } : {}),
  };
  try {
    return await fetchOutbound(fetchedUrl(source.url), { ...config.feeds, headers }, async (answer) => {
      if (answer.status === 304) return null;
      if (answer.status !== 200) throw new FeedFailure(`could not be fetched: the server answered ${answer.status}`);
      return {
        text: new TextDecoder().decode(await answer.body()),
        contentType: answer.headers.get('content-type'),
        links: answer.headers.get('link'),
        etag: answer.headers.get('etag'),
        lastModified: answer.headers.get('last-modified'),
      };
    });
  } catch (error) {
    if (error instanceof OutboundRefusal) throw new FeedFailure(error.message);
    throw error;
  }
}

function settingsOf(source: Source, config: Config): SourceSettings {
  return {
    siteTimezone: config.siteTimezone,
    status: source.eventStatus === 'draft' ? 'DRAFT' : 'PUBLISH',
    categories: source.categories
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
    authorId: source.authorId,
  };
}

/** The feed's series and single events by UID, the occurrences it cancels, and those it changes (overrides). */
function plan(events: FeedEvent[], problems: FeedProblem[]) {
  const masters = new Map<string, FeedEvent>();
  const cancelled = new Map<string, FeedTime[]>();
  const overrides = new Map<string, FeedEvent & { recurrenceId: FeedTime }>();
  for (const event of events) {
    if (event.recurrenceId === null) {
      if (masters.has(event.uid))
        problems.push({ where: `event ${event.uid}`, reason: 'a second VEVENT with this UID' });
      masters.set(event.uid, event);
    } else if (event.status === 'cancelled') {
      cancelled.set(event.uid, [...(cancelled.get(event.uid) ?? []), event.recurrenceId]);
    } else {
      overrides.set(overrideKey(event.uid, event.recurrenceId), { ...event, recurrenceId: event.recurrenceId });
    }
  }
  return { masters, cancelled, overrides };
}

/** An override's identity: its UID and the original start it replaces. */
function overrideKey(uid: string, recurrenceId: FeedTime): string {
  const at =
    recurrenceId.kind === 'date'
      ? recurrenceId.date
      : recurrenceId.kind === 'floating'
        ? recurrenceId.local
        : recurrenceId.utc;
  return `${uid}#${at}`;
}
const isOverrideKey = (key: string) => key.includes('#');

/** The instant an occurrence originally starts at, as the series stores it (`originalStartsAt`). */
function originalStart(time: FeedTime, seriesZone: string): Date {
  if (time.kind === 'instant') return new Date(time.utc);
  const wall = time.kind === 'date' ? `${time.date} 00:00:00` : time.local.slice(0, 19).replace('T', ' ');
  return instantOf(wall, seriesZone);
}

/** Brings the events the source wrote in line with the feed's `text`; throws FeedUnreadable when it is no feed. */
export async function importFeed(db: Db, config: Config, source: Source, text: string): Promise<RunReport> {
  const read = readFeed(text);
  const report = emptyReport(false);
  report.problems.push(...read.skipped);
  const { masters, cancelled, overrides } = plan(read.events, report.problems);
  const writer = new GraphQLWriter(db, config, await importerViewer(db));
  const settings = settingsOf(source, config);
  const items = new Map(
    (await db.importedItem.findMany({ where: { sourceId: source.id } })).map((item) => [item.key, item]),
  );
  const keep = async (key: string, eventId: number, digest: string) => {
    const data = { eventId, digest, writtenSeq: await lastChangeOf(db, 'event', eventId), writtenAt: new Date() };
    await db.importedItem.upsert({
      where: { sourceId_key: { sourceId: source.id, key } },
      create: { sourceId: source.id, key, ...data },
      update: data,
    });
  };
  for (const [uid, event] of masters) {
    const item = items.get(uid);
    items.delete(uid);
    try {
      if (event.status === 'cancelled') {
        if (item) await trash(db, writer, source.id, uid, item.eventId, report);
        else report.skipped++;
        continue;
      }
      const input = eventInputOf(event, recurrenceOf(event, cancelled.get(uid) ?? [], settings.siteTimezone), settings);
      const digest = createHash('sha256').update(JSON.stringify(input)).digest('base64url');
      if (item?.digest === digest) {
        report.unchanged++;
        continue;
      }
      const existing = item ? await db.event.findUnique({ where: { id: item.eventId }, select: { id: true } }) : null;
      // A row kept before writtenAt was: any later change of a series master counts, as it did then.
      const written = item && { seq: item.writtenSeq, at: item.writtenAt ?? new Date(0) };
      if (existing && source.localEdits === 'keep' && (await editedSince(db, 'event', existing.id, written!))) {
        report.skipped++;
        report.problems.push({ where: `event ${uid}`, reason: 'edited here since it was imported: kept as it is' });
        continue;
      }
      const write = (given: Record<string, unknown>) =>
        existing ? writer.update(EVENTS, item!.eventId, given) : writer.create(EVENTS, given);
      const eventId = await withoutUnreachableImage(input, write, (reason) =>
        report.problems.push({ where: `event ${uid}`, reason: `imported without its image: ${reason}` }),
      );
      if (existing) report.updated++;
      else report.created++;
      await keep(uid, eventId, digest);
    } catch (error) {
      if (!(error instanceof RefusedWrite)) throw error;
      report.failed++;
      report.problems.push({ where: `event ${uid}`, reason: error.message });
    }
  }
  for (const [key, override] of overrides) {
    items.delete(key);
    await importOverride(db, writer, settings, source, key, override, report, keep).catch((error: unknown) => {
      if (!(error instanceof RefusedWrite)) throw error;
      report.failed++;
      report.problems.push({ where: `event ${key}`, reason: error.message });
    });
  }
  for (const [key, item] of items) {
    // An override gone from the feed: the occurrence stays as it was changed (it is the series' now).
    if (isOverrideKey(key)) {
      await db.importedItem.delete({ where: { sourceId_key: { sourceId: source.id, key } } });
      continue;
    }
    if (source.onMissing !== 'trash') continue;
    await trash(db, writer, source.id, key, item.eventId, report).catch((error: unknown) => {
      if (!(error instanceof RefusedWrite)) throw error;
      report.failed++;
      report.problems.push({ where: `event ${key}`, reason: error.message });
    });
  }
  return report;
}

/**
 * A changed occurrence (RECURRENCE-ID): the series' occurrence at that original start, changed on its own (an
 * exception later series edits leave alone), or reported when the series has none there.
 */
async function importOverride(
  db: Db,
  writer: GraphQLWriter,
  settings: SourceSettings,
  source: Source,
  key: string,
  override: FeedEvent & { recurrenceId: FeedTime },
  report: RunReport,
  keep: (key: string, eventId: number, digest: string) => Promise<void>,
): Promise<void> {
  const series = await db.importedItem.findUnique({
    where: { sourceId_key: { sourceId: source.id, key: override.uid } },
    select: { eventId: true },
  });
  const master = series && (await db.event.findUnique({ where: { id: series.eventId }, select: { timezone: true } }));
  if (!series || !master) {
    report.skipped++;
    report.problems.push({ where: `event ${key}`, reason: 'a changed occurrence of a series the feed does not hold' });
    return;
  }
  const startsAt = originalStart(override.recurrenceId, master.timezone);
  await writer.reachOccurrences(startsAt.toISOString().slice(0, 10));
  const occurrence = await db.event.findFirst({
    where: { recurringEventId: series.eventId, originalStartsAt: startsAt },
    select: { id: true },
  });
  if (!occurrence) {
    report.skipped++;
    report.problems.push({ where: `event ${key}`, reason: 'the series has no occurrence at that original start' });
    return;
  }
  const { recurrence: _none, ...input } = eventInputOf(override, [], settings);
  const digest = createHash('sha256').update(JSON.stringify(input)).digest('base64url');
  const item = await db.importedItem.findUnique({ where: { sourceId_key: { sourceId: source.id, key } } });
  if (item?.digest === digest && item.eventId === occurrence.id) {
    report.unchanged++;
    return;
  }
  await writer.updateOccurrence(occurrence.id, input);
  report.updated++;
  await keep(key, occurrence.id, digest);
}

/**
 * Writes an event; when only its image was refused (an image URL that cannot be fetched, or is no image), writes it
 * without, telling `dropped` why: the event matters more than its picture, and the next run tries the image again
 * only when the feed changes it.
 */
async function withoutUnreachableImage(
  input: Record<string, unknown>,
  write: (input: Record<string, unknown>) => Promise<number>,
  dropped: (reason: string) => void,
): Promise<number> {
  try {
    return await write(input);
  } catch (error) {
    const onlyTheImage = error instanceof RefusedWrite && Object.keys(error.fields).join() === 'image';
    if (!onlyTheImage || !input.image) throw error;
    const { image: _image, ...rest } = input;
    const id = await write(rest);
    dropped(error.fields.image!);
    return id;
  }
}

/** Moves an imported event to the trash (unless it already is, or is gone) and forgets it. */
async function trash(db: Db, writer: GraphQLWriter, sourceId: number, key: string, eventId: number, report: RunReport) {
  const event = await db.event.findUnique({ where: { id: eventId }, select: { status: true } });
  if (event && event.status !== 'trash') {
    await writer.trashEvent(eventId);
    report.trashed++;
  }
  await db.importedItem.delete({ where: { sourceId_key: { sourceId, key } } });
}
