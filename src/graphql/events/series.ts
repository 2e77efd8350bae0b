// Recurring series as rows: a master holds the definition (its `recurrence` lines; its start, end and zone are the
// series' DTSTART and duration), each occurrence is an Event row copying the master's fields and links, so lists,
// filters, search, counts and indexes treat occurrences like any event. Occurrences are matched to the rule by their
// original start, which keeps their IDs across series edits that keep them.
import type { DateTime } from 'luxon';
import type { DbTransaction } from '../../db/client.js';
import type { Event } from '../../db/generated/prisma/client.js';
import { lastWallClock, readWallClockIn, toWallClock } from '../../time/dates.js';
import { floatingMs, wallClockOfFloating } from '../../time/occurrence-times.js';
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
import { invalidField } from '../errors.js';
import { recurrenceColumns, recurrenceLines } from './columns.js';

/** How far beyond the reach asked for a series is materialised, so that the next lists find it done. */
export const EXTENSION_SLACK_DAYS = 30;
const CHUNK = 500;
/**
 * Interactive transactions that move a series' occurrences (a split moves those after it to the new series in one
 * statement): longer than Prisma's default 5 seconds on a busy database.
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

/** The master's columns an occurrence copies (everything but identity, schedule and series bookkeeping). */
export function copiedColumns(master: Event) {
  const {
    id: _id,
    slug: _slug,
    recurrence: _r,
    isSeriesMaster: _sm,
    recurringEventId: _s,
    originalStartsAt: _os,
    originalStartLocal: _ol,
    detached: _d,
    materializedUntil: _m,
    syncedThrough: _st,
    startLocal: _sl,
    endLocal: _el,
    startsAt: _sa,
    endsAt: _ea,
    parentId: _p,
    ...copied
  } = master;
  return copied;
}

/**
 * Where an expansion toward `target` stops: `target` as a wall clock in the series' zone, or, when that lies past
 * the years the service writes, the last start whose occurrence still ends within them (and then the series is
 * complete: no later occurrence can exist).
 */
export function expansionBound(master: Event, target: DateTime): { until: string; atYearLimit: boolean } {
  const lastEnd = floatingMs(lastWallClock(master.timezone));
  const lastStart = wallClockOfFloating(lastEnd - (floatingMs(master.endLocal) - floatingMs(master.startLocal)) + 1000);
  if (target < readWallClockIn(lastStart, master.timezone)!.moment)
    return { until: toWallClock(target.setZone(master.timezone)), atYearLimit: false };
  return { until: lastStart, atYearLimit: true };
}

/**
 * Slugs for new occurrences: the series' slug and the date (and time, on `busyDays`, which have several); clashes
 * get the series ID.
 */
export async function occurrenceSlugs(
  tx: DbTransaction,
  master: Event,
  starts: string[],
  busyDays: Set<string>,
): Promise<string[]> {
  const wanted = starts.map((start) => {
    const day = start.slice(0, 10);
    return `${master.slug}-${day}${busyDays.has(day) ? `-${start.slice(11, 13)}${start.slice(14, 16)}` : ''}`;
  });
  const taken = new Set<string>();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const rows = await tx.event.findMany({
      where: { slug: { in: wanted.slice(i, i + CHUNK) } },
      select: { slug: true },
    });
    for (const row of rows) taken.add(row.slug);
  }
  return wanted.map((slug) => (taken.has(slug) ? `${slug}-${master.id}` : slug));
}

/** Makes the links of `eventIds` those of the master (venues, organizers, terms). */
export async function copyLinks(tx: DbTransaction, masterId: number, eventIds: number[], replace: boolean) {
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
    const each = <T extends { eventId: number }>(links: T[]) =>
      ids.flatMap((eventId) => links.map((link) => ({ ...link, eventId })));
    if (venues.length) await tx.eventVenue.createMany({ data: each(venues) });
    if (organizers.length) await tx.eventOrganizer.createMany({ data: each(organizers) });
    if (terms.length) await tx.eventTerm.createMany({ data: each(terms) });
  }
}

/** Deleting one occurrence: an EXDATE in its series, and the row goes. */
export async function excludeOccurrence(tx: DbTransaction, occurrence: Event) {
  const master = await tx.event.findUniqueOrThrow({ where: { id: occurrence.recurringEventId! } });
  const lines = withDate(
    recurrenceLines(master.recurrence),
    'EXDATE',
    occurrence.originalStartLocal!,
    master.timezone,
    master.allDay,
  );
  try {
    parseRecurrence(lines, master.timezone);
  } catch (error) {
    // Refused before a series full of exceptions is stored in a form its next edit could not read.
    if (!(error instanceof RecurrenceError)) throw error;
    throw invalidField(
      'id',
      `this occurrence cannot be deleted on its own: its series would break a limit (${error.message}); change the series' recurrence instead`,
    );
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
    values
      .filter(keep)
      .map((value) =>
        dateLine(kind, value.length === 10 ? `${value} 00:00:00` : value, zone, allDay || value.length === 10),
      );
  const early = (local: string) => (local.length === 10 ? `${local} 00:00:00` : local) < splitLocal;
  const rule = recurrenceLines(master.recurrence).filter((line) => /^RRULE:/i.test(line));
  let afterRule = rule;
  if (recurrence.rule?.COUNT) {
    const past = expandRecurrence(
      { ...recurrence, exdates: [], rdates: [] },
      master.startLocal,
      allDay,
      splitLocal,
      MAX_SERIES_OCCURRENCES,
    ).starts.length;
    const left = Math.max(1, Number(recurrence.rule.COUNT) - past);
    afterRule = rule.map((line) => line.replace(/COUNT=\d+/i, `COUNT=${left}`));
  }
  return {
    before: [
      ...untilBefore(rule, splitLocal, zone, allDay),
      ...dates('EXDATE', recurrence.exdates, early),
      ...dates('RDATE', recurrence.rdates, early),
    ],
    after: [
      ...afterRule,
      ...dates('EXDATE', recurrence.exdates, (v) => !early(v)),
      ...dates('RDATE', recurrence.rdates, (v) => !early(v)),
    ],
  };
}
