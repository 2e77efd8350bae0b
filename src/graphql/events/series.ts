// Recurring series as rows: a master holds the definition (its `recurrence` lines; its start, end and zone are the
// series' DTSTART and duration), each occurrence is an Event row copying the master's fields and links, so lists,
// filters, search, counts and indexes treat occurrences like any event. Occurrences are matched to the rule by their
// original start, which keeps their IDs across series edits that keep them.
import { DateTime } from 'luxon';
import type { DbTransaction } from '../../db/client.js';
import { VersionedMemo } from '../../db/data-version.js';
import type { Event, Prisma } from '../../db/generated/prisma/client.js';
import { lastWallClock, readWallClockIn, toWallClock, WALL_CLOCK_FORMAT } from '../../time/dates.js';
import {
  dateLine,
  expandRecurrence,
  MAX_SERIES_OCCURRENCES,
  parseRecurrence,
  RecurrenceError,
  untilBefore,
  withDate,
  type Recurrence,
} from '../../time/recurrence.js';
import type { Context } from '../context.js';
import { invalidField } from '../errors.js';
import { recurrenceColumns, recurrenceLines } from './recurrence-columns.js';

/** How far beyond the reach asked for a series is materialised, so that the next lists find it done. */
const EXTENSION_SLACK_DAYS = 30;
const CHUNK = 500;
/**
 * Interactive transactions that write a series: thousands of occurrence rows and their links can take longer than
 * Prisma's default 5 seconds on a busy database.
 */
export const SERIES_TRANSACTION = { timeout: 60_000, maxWait: 10_000 } as const;

/** Reads recurrence lines, turning their faults into an input error on `field`. */
export function readRecurrence(lines: string[], zone: string, field = 'recurrence'): Recurrence {
  try {
    return parseRecurrence(lines, zone);
  } catch (error) {
    if (error instanceof RecurrenceError) throw invalidField(field, error.message);
    throw error;
  }
}

/** The reach every series is materialised to without being asked: now plus the configured horizon. */
export function defaultReach(ctx: Context): Date {
  return DateTime.fromJSDate(ctx.now).plus({ days: ctx.config.recurrenceHorizonDays }).toJSDate();
}

/** The master's columns an occurrence copies (everything but identity, schedule and series bookkeeping). */
function copiedColumns(master: Event) {
  const {
    id: _id, slug: _slug, recurrence: _r, isSeriesMaster: _sm, recurringEventId: _s, originalStartsAt: _os, originalStartLocal: _ol, detached: _d,
    materializedUntil: _m, startLocal: _sl, endLocal: _el, startsAt: _sa, endsAt: _ea, parentId: _p, ...copied
  } = master;
  return copied;
}

const floating = (wallClock: string) => DateTime.fromFormat(wallClock, WALL_CLOCK_FORMAT, { zone: 'utc' });

/**
 * An occurrence's times: its local start as the rule gave it, and the master's wall-clock length after it, each an
 * instant by the clock rule (src/time/dates.ts: a repeated hour is its first instant, a skipped one moves forward by
 * the gap). A start moved forward moves its end as far, so the occurrence keeps its length (as a single event's
 * start does); the local times are those of the instants (02:30 skipped → 03:30). All-day occurrences keep their dates.
 */
function occurrenceTimes(master: Event, startLocal: string) {
  const length = floating(master.endLocal).diff(floating(master.startLocal));
  const endLocal = floating(startLocal).plus(length).toFormat(WALL_CLOCK_FORMAT);
  const start = readWallClockIn(startLocal, master.timezone)!;
  const end = readWallClockIn(endLocal, master.timezone)!;
  const endsAt = end.moment.plus({ milliseconds: Math.max(0, start.movedForward - end.movedForward) });
  return {
    startLocal: master.allDay ? startLocal : toWallClock(start.moment),
    endLocal: master.allDay ? endLocal : toWallClock(endsAt),
    startsAt: start.moment.toJSDate(),
    endsAt: endsAt.toJSDate(),
  };
}

/**
 * Where an expansion toward `target` stops: `target` as a wall clock in the series' zone, or, when that lies past
 * the years the service writes, the last start whose occurrence still ends within them (and then the series is
 * complete: no later occurrence can exist).
 */
function expansionBound(master: Event, target: DateTime): { until: string; atYearLimit: boolean } {
  const lastEnd = floating(lastWallClock(master.timezone));
  const lastStart = toWallClock(lastEnd.minus(floating(master.endLocal).diff(floating(master.startLocal))).plus({ seconds: 1 }));
  if (target < readWallClockIn(lastStart, master.timezone)!.moment) return { until: toWallClock(target.setZone(master.timezone)), atYearLimit: false };
  return { until: lastStart, atYearLimit: true };
}

/** Slugs for new occurrences: the series' slug and the date (and time, when a day has several); clashes get the series ID. */
async function occurrenceSlugs(tx: DbTransaction, master: Event, starts: string[]): Promise<string[]> {
  const days = new Map<string, number>();
  for (const start of starts) days.set(start.slice(0, 10), (days.get(start.slice(0, 10)) ?? 0) + 1);
  const wanted = starts.map((start) => {
    const day = start.slice(0, 10);
    return `${master.slug}-${day}${days.get(day)! > 1 ? `-${start.slice(11, 13)}${start.slice(14, 16)}` : ''}`;
  });
  const taken = new Set<string>();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const rows = await tx.event.findMany({ where: { slug: { in: wanted.slice(i, i + CHUNK) } }, select: { slug: true } });
    for (const row of rows) taken.add(row.slug);
  }
  return wanted.map((slug) => (taken.has(slug) ? `${slug}-${master.id}` : slug));
}

/** Makes the links of `eventIds` those of the master (venues, organizers, terms). */
async function copyLinks(tx: DbTransaction, masterId: number, eventIds: number[], replace: boolean) {
  if (!eventIds.length) return;
  const [venues, organizers, terms] = await Promise.all([
    tx.eventVenue.findMany({ where: { eventId: masterId } }),
    tx.eventOrganizer.findMany({ where: { eventId: masterId } }),
    tx.eventTerm.findMany({ where: { eventId: masterId } }),
  ]);
  for (let i = 0; i < eventIds.length; i += CHUNK) {
    const ids = eventIds.slice(i, i + CHUNK);
    if (replace) {
      await tx.eventVenue.deleteMany({ where: { eventId: { in: ids } } });
      await tx.eventOrganizer.deleteMany({ where: { eventId: { in: ids } } });
      await tx.eventTerm.deleteMany({ where: { eventId: { in: ids } } });
    }
    const each = <T extends { eventId: number }>(links: T[]) => ids.flatMap((eventId) => links.map((link) => ({ ...link, eventId })));
    if (venues.length) await tx.eventVenue.createMany({ data: each(venues) });
    if (organizers.length) await tx.eventOrganizer.createMany({ data: each(organizers) });
    if (terms.length) await tx.eventTerm.createMany({ data: each(terms) });
  }
}

interface SyncOptions {
  /** Series edit: the kept occurrences take the master's fields and links again (those changed on their own excepted). */
  refresh: boolean;
}

/**
 * Brings a series' occurrence rows in line with its master, for starts before `reach` (plus some slack): rows the
 * rule no longer yields are deleted, missing ones inserted, kept ones keep their IDs. Returns nothing; a fault in the
 * rule (one that takes too long to expand) is an input error on `recurrence`.
 */
export async function syncSeries(ctx: Context, tx: DbTransaction, masterId: number, reach: Date, { refresh }: SyncOptions) {
  const master = await tx.event.findUniqueOrThrow({ where: { id: masterId } });
  const existing = await tx.event.findMany({
    where: { recurringEventId: masterId },
    select: { id: true, originalStartsAt: true, endLocal: true, startLocal: true, originalStartLocal: true, detached: true },
  });
  const lines = recurrenceLines(master.recurrence);
  // As far as rows exist at least (a list reached further than `reach`): a row beyond it is kept in line, not dropped.
  const furthest = existing.reduce((latest, row) => Math.max(latest, row.originalStartsAt!.getTime()), reach.getTime());
  const target = DateTime.fromMillis(furthest).plus({ days: EXTENSION_SLACK_DAYS });
  let starts: string[] = [];
  let complete = true;
  if (lines.length) {
    try {
      const { until, atYearLimit } = expansionBound(master, target);
      const expansion = expandRecurrence(parseRecurrence(lines, master.timezone), master.startLocal, master.allDay, until, MAX_SERIES_OCCURRENCES);
      starts = expansion.starts;
      // Past MAX_SERIES_OCCURRENCES rows, or the year 9999, a series grows no further (README, Recurring events).
      complete = expansion.complete || starts.length >= MAX_SERIES_OCCURRENCES || atYearLimit;
    } catch (error) {
      if (error instanceof RecurrenceError) throw invalidField('recurrence', error.message);
      throw error;
    }
  }
  const wanted = new Map(starts.map((local) => [occurrenceTimes(master, local).startsAt.getTime(), local]));
  const stale = existing.filter((row) => !wanted.has(row.originalStartsAt!.getTime()));
  for (let i = 0; i < stale.length; i += CHUNK) {
    await tx.event.deleteMany({ where: { id: { in: stale.slice(i, i + CHUNK).map((row) => row.id) } } });
  }
  const kept = existing.filter((row) => wanted.has(row.originalStartsAt!.getTime()));
  const have = new Set(kept.map((row) => row.originalStartsAt!.getTime()));
  const fresh = starts.filter((local) => !have.has(occurrenceTimes(master, local).startsAt.getTime()));
  const copied = copiedColumns(master);
  if (refresh) await refreshKept(tx, master, kept.filter((row) => !row.detached), copied);
  const slugs = await occurrenceSlugs(tx, master, fresh);
  const created: number[] = [];
  for (let i = 0; i < fresh.length; i += CHUNK) {
    const rows = await tx.event.createManyAndReturn({
      data: fresh.slice(i, i + CHUNK).map((local, j) => {
        const times = occurrenceTimes(master, local);
        return {
          ...(copied as Prisma.EventCreateManyInput),
          ...times,
          slug: slugs[i + j],
          recurringEventId: masterId,
          originalStartsAt: times.startsAt,
          originalStartLocal: local,
        };
      }),
      select: { id: true },
    });
    created.push(...rows.map((row) => row.id));
  }
  await copyLinks(tx, masterId, created, false);
  await tx.event.update({ where: { id: masterId }, data: { materializedUntil: complete ? null : target.toJSDate() } });
}

/** Kept, unchanged occurrences take the master's fields (one statement) and, where its length changed, its end. */
async function refreshKept(
  tx: DbTransaction,
  master: Event,
  rows: Array<{ id: number; startLocal: string; endLocal: string; originalStartLocal: string | null }>,
  copied: ReturnType<typeof copiedColumns>,
) {
  const ids = rows.map((row) => row.id);
  for (let i = 0; i < ids.length; i += CHUNK) {
    await tx.event.updateMany({ where: { id: { in: ids.slice(i, i + CHUNK) } }, data: copied as Prisma.EventUpdateManyMutationInput });
  }
  for (const row of rows) {
    const times = occurrenceTimes(master, row.originalStartLocal!);
    if (times.endLocal !== row.endLocal || times.startLocal !== row.startLocal) await tx.event.update({ where: { id: row.id }, data: times });
  }
  await copyLinks(tx, master.id, ids, true);
}

/**
 * The earliest `materializedUntil` of all series (null: none runs past what exists), remembered until the next write
 * to the database, so that lists at an unchanged data version spend no statement on series. Kept by database URL:
 * data versions of different databases (tests run several servers in a process) say nothing about each other.
 */
const earliestMaterialised = new VersionedMemo<number | null>(100);

/**
 * Materialises every series whose occurrences stop before `reach` up to it, each in its own write transaction. The
 * claim (moving `materializedUntil` on from the value read) makes a concurrent request, or another process, skip a
 * series this one extends; the unique (series, original start) index backs it up.
 */
export async function extendSeries(ctx: Context, reach: Date) {
  const earliest = await earliestMaterialised.get(ctx.config.databaseUrl, await ctx.dataVersion(), async () => {
    // Not `aggregate({ _min })`: Prisma wraps it in a subquery that scans every event (37 ms at 100,000 events on
    // SQLite); ordered with a limit, the materializedUntil index answers at once.
    const first = await ctx.db.event.findFirst({
      where: { materializedUntil: { not: null } },
      orderBy: { materializedUntil: 'asc' },
      select: { materializedUntil: true },
    });
    return first?.materializedUntil?.getTime() ?? null;
  });
  if (earliest === null || earliest >= reach.getTime()) return;
  const due = await ctx.db.event.findMany({ where: { materializedUntil: { lt: reach } }, select: { id: true, materializedUntil: true } });
  for (const series of due) {
    await ctx.db.$transaction(async (tx) => {
      const claimed = await tx.event.updateMany({ where: { id: series.id, materializedUntil: series.materializedUntil }, data: { materializedUntil: reach } });
      if (claimed.count === 1) await syncSeries(ctx, tx, series.id, reach, { refresh: false });
    }, SERIES_TRANSACTION);
  }
}

/** Deleting one occurrence: an EXDATE in its series, and the row goes. */
export async function excludeOccurrence(tx: DbTransaction, occurrence: Event) {
  const master = await tx.event.findUniqueOrThrow({ where: { id: occurrence.recurringEventId! } });
  const lines = withDate(recurrenceLines(master.recurrence), 'EXDATE', occurrence.originalStartLocal!, master.timezone, master.allDay);
  try {
    parseRecurrence(lines, master.timezone);
  } catch (error) {
    // Refused before a series full of exceptions is stored in a form its next edit could not read.
    if (!(error instanceof RecurrenceError)) throw error;
    throw invalidField('id', `this occurrence cannot be deleted on its own: its series would break a limit (${error.message}); change the series' recurrence instead`);
  }
  await tx.event.update({ where: { id: master.id }, data: recurrenceColumns(lines) });
  await tx.event.delete({ where: { id: occurrence.id } });
}

/**
 * "This and following": the series ends before the occurrence (UNTIL), and a new series with the rest of it starts
 * there. EXDATEs and RDATEs from that start on move to the new series, a COUNT shrinks by the occurrences already
 * past. Returns the new series' recurrence lines; the caller writes the new master.
 */
export function splitRecurrence(master: Event, splitLocal: string): { before: string[]; after: string[] } {
  const recurrence = parseRecurrence(recurrenceLines(master.recurrence), master.timezone);
  const { timezone: zone, allDay } = master;
  const dates = (kind: 'EXDATE' | 'RDATE', values: string[], keep: (local: string) => boolean) =>
    values.filter(keep).map((value) => dateLine(kind, value.length === 10 ? `${value} 00:00:00` : value, zone, allDay || value.length === 10));
  const early = (local: string) => (local.length === 10 ? `${local} 00:00:00` : local) < splitLocal;
  const rule = recurrenceLines(master.recurrence).filter((line) => /^RRULE:/i.test(line));
  let afterRule = rule;
  if (recurrence.rule?.COUNT) {
    const past = expandRecurrence({ ...recurrence, exdates: [], rdates: [] }, master.startLocal, allDay, splitLocal, MAX_SERIES_OCCURRENCES).starts.length;
    const left = Math.max(1, Number(recurrence.rule.COUNT) - past);
    afterRule = rule.map((line) => line.replace(/COUNT=\d+/i, `COUNT=${left}`));
  }
  return {
    before: [...untilBefore(rule, splitLocal, zone, allDay), ...dates('EXDATE', recurrence.exdates, early), ...dates('RDATE', recurrence.rdates, early)],
    after: [...afterRule, ...dates('EXDATE', recurrence.exdates, (v) => !early(v)), ...dates('RDATE', recurrence.rdates, (v) => !early(v))],
  };
}

export { copiedColumns, occurrenceTimes, copyLinks };
