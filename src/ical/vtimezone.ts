import { DateTime } from 'luxon';
import { timeZoneAbbreviation } from '../time/dates.js';

// VTIMEZONE components (RFC 5545 §3.6.5) from the IANA data the runtime carries, read through luxon: one
// observance per UTC-offset change, as explicit dates (no RRULE), over the whole years a calendar's events span in
// that zone. Explicit changes say exactly what the data says, including rule changes between years.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export interface OffsetChange {
  /** The instant of the change. */
  at: number;
  /** Offsets in minutes east of UTC before and after it. */
  before: number;
  after: number;
}

const offsetAt = (zone: string, instant: number) => DateTime.fromMillis(instant, { zone }).offset;

/** The instant in (`from`, `to`] at which the offset changes, both ends on whole minutes and offsets differing. */
function changeInstant(zone: string, from: number, to: number): number {
  const before = offsetAt(zone, from);
  while (to - from > MINUTE) {
    const middle = from + Math.floor((to - from) / MINUTE / 2) * MINUTE;
    if (offsetAt(zone, middle) === before) from = middle;
    else to = middle;
  }
  return to;
}

/** Zone rules are fixed while the process runs (they change with Node's ICU), so each year is computed once. */
const changesByYear = new Map<string, OffsetChange[]>();

/** The offset changes of `zone` during a UTC calendar year, probing day by day (no zone changes twice a day). */
function changesIn(zone: string, year: number): OffsetChange[] {
  const key = `${zone}|${year}`;
  let changes = changesByYear.get(key);
  if (!changes) {
    changes = [];
    const end = Date.UTC(year + 1, 0, 1);
    for (let day = Date.UTC(year, 0, 1); day < end; day += DAY) {
      const before = offsetAt(zone, day);
      const after = offsetAt(zone, day + DAY);
      if (before !== after) changes.push({ at: changeInstant(zone, day, day + DAY), before, after });
    }
    changesByYear.set(key, changes);
  }
  return changes;
}

/** The offset changes of `zone` from `first` to `last` (whole UTC years). */
export function offsetChangesBetween(zone: string, first: Date, last: Date): OffsetChange[] {
  const changes: OffsetChange[] = [];
  for (let year = first.getUTCFullYear(); year <= last.getUTCFullYear(); year++) changes.push(...changesIn(zone, year));
  return changes;
}

/** `+0100`, `-0330`: a utc-offset value. */
function utcOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}${String(absolute % 60).padStart(2, '0')}`;
}

/** An observance starting at `at` (written as the wall clock of the offset in force until then). */
function observance(zone: string, at: number, before: number, after: number): string[] {
  const moment = DateTime.fromMillis(at, { zone });
  const kind = moment.isInDST ? 'DAYLIGHT' : 'STANDARD';
  const start = DateTime.fromMillis(at + before * MINUTE, { zone: 'utc' }).toFormat("yyyyLLdd'T'HHmmss");
  return [
    `BEGIN:${kind}`,
    `DTSTART:${start}`,
    `TZOFFSETFROM:${utcOffset(before)}`,
    `TZOFFSETTO:${utcOffset(after)}`,
    `TZNAME:${timeZoneAbbreviation(moment)}`,
    `END:${kind}`,
  ];
}

/**
 * The VTIMEZONE of an IANA zone covering the instants `first` to `last`: from the start of `first`'s year (local
 * time) to the end of `last`'s year.
 */
export function vtimezone(zone: string, first: Date, last: Date): string {
  const start = DateTime.fromJSDate(first, { zone }).startOf('year');
  const lastYear = DateTime.fromJSDate(last, { zone }).year;
  const initialOffset = start.offset;
  const lines = [
    'BEGIN:VTIMEZONE',
    `TZID:${zone}`,
    ...observance(zone, start.toMillis(), initialOffset, initialOffset),
  ];
  for (let year = start.year; year <= lastYear; year++) {
    for (const change of changesIn(zone, year)) {
      if (change.at > start.toMillis()) lines.push(...observance(zone, change.at, change.before, change.after));
    }
  }
  lines.push('END:VTIMEZONE');
  return lines.join('\r\n');
}
