// English only, as chrono's default parser is; the package's main entry loads every locale (~20 MB more memory).
import * as chrono from 'chrono-node/en';
import { DateTime, Info, type DateObjectUnits, type Zone } from 'luxon';
import { isRelativeDate, resolveRelativeDate, type WallClock } from './relative-dates.js';

/** The wall-clock format used in storage and by The Events Calendar: `Y-m-d H:i:s`. */
export const WALL_CLOCK_FORMAT = 'yyyy-MM-dd HH:mm:ss';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const WALL_CLOCK = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/;
const UNIX_TIMESTAMP = /^-?\d{9,11}$/;

/** The years a date may have: four digits, as `Y-m-d` writes them and MySQL's DATETIME (WordPress's store) holds them. */
export const YEARS = { first: 1000, last: 9999 } as const;

/** What a date field answers when its text is no date, or a date outside YEARS in its zone or in UTC. */
export const NOT_A_DATE = `is not a date in the years ${YEARS.first} to ${YEARS.last} (in its time zone and in UTC)`;

const inYears = (moment: DateTime) => moment.isValid && moment.year >= YEARS.first && moment.year <= YEARS.last;

/**
 * Whether an instant reads as a date within YEARS both in its zone and in UTC: the service writes every time in
 * both (`start_date` and `utc_start_date`), and neither may have five digits or fall before the year 1000.
 */
export const withinYears = (moment: DateTime) => inYears(moment) && inYears(moment.toUTC());

/** The last instant within YEARS in UTC: no stored time, window or series reaches past it. */
export const LAST_INSTANT = DateTime.fromObject(
  { year: YEARS.last, month: 12, day: 31, hour: 23, minute: 59, second: 59 },
  { zone: 'utc' },
);

/** The last wall clock in `zone` whose instant lies within YEARS both there and in UTC (west of UTC, before midnight). */
export function lastWallClock(zone: string): string {
  const inZone = LAST_INSTANT.setZone(zone);
  return inZone.year > YEARS.last ? `${YEARS.last}-12-31 23:59:59` : toWallClock(inZone);
}

/** A date read from input, and how far the zone moved it forward when its wall-clock time does not exist there. */
export interface ReadDate {
  moment: DateTime;
  /**
   * Milliseconds a wall-clock time inside a daylight-saving gap was moved forward (`2027-03-28 02:30` in
   * Europe/Berlin is read as 03:30, as RFC 5545 and PHP do); 0 for times that exist and for exact instants.
   */
  movedForward: number;
}

/** How often a wall clock occurs in a zone: once, never (the clocks skip it) or twice (the clocks repeat it). */
export type WallClockKind = 'exact' | 'skipped' | 'repeated';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * The clock rule (RFC 5545 §3.3.5, as python-dateutil reads a wall clock): a wall clock the zone repeats (the hour
 * after a daylight-saving end) is the first of its two instants; one the zone skips (a daylight-saving gap) is read
 * with the offset in force before the gap, which moves it forward by the gap's length (02:30 → 03:30). Luxon alone
 * picks either instant of a repeated hour depending on today's date, so every wall clock is read here.
 * `localMillis` is the wall clock as if it were UTC. Assumes no zone changes its offset twice within two days.
 */
function resolveWallClock(localMillis: number, zone: Zone): { instant: number; kind: WallClockKind } {
  const offsetBefore = zone.offset(localMillis - DAY);
  const offsets = new Set([offsetBefore, zone.offset(localMillis), zone.offset(localMillis + DAY)]);
  const instants = [...offsets]
    .filter((offset) => zone.offset(localMillis - offset * MINUTE) === offset)
    .map((offset) => localMillis - offset * MINUTE);
  if (instants.length === 0) return { instant: localMillis - offsetBefore * MINUTE, kind: 'skipped' };
  return { instant: Math.min(...instants), kind: instants.length > 1 ? 'repeated' : 'exact' };
}

const WALL_CLOCK_PARTS = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** A stored wall clock (`Y-m-d H:i:s`) as if it were UTC, or NaN when it is none. */
function wallClockMillis(wallClock: string): number {
  const parts = WALL_CLOCK_PARTS.exec(wallClock);
  if (!parts) return NaN;
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  // Reject dates that roll over (`02-30`) and times past 23:59:59.
  const valid =
    date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
  return valid ? date.getTime() : NaN;
}

/** How often a stored wall clock occurs in `zone` (see resolveWallClock). */
export function wallClockKind(wallClock: string, zone: string): WallClockKind {
  return resolveWallClock(wallClockMillis(wallClock), Info.normalizeZone(zone)).kind;
}

/**
 * Parses what integrations send as a date: `Y-m-d`, `Y-m-d H:i:s`, ISO 8601 with or without offset, Unix
 * timestamps, dates written out (`March 5 2027`), and PHP's relative forms (`now`, `tomorrow 9am`, `next wednesday 4pm`,
 * `+1 day`; src/time/relative-dates.ts). Forms without an offset
 * are read as wall-clock time in `zone`. Returns the moment in `zone`, or null when the text is not a date.
 */
export function parseDateInput(text: string, zone: string, now: DateTime = DateTime.now()): DateTime | null {
  return readDateInput(text, zone, now)?.moment ?? null;
}

/** parseDateInput, telling also whether the time fell in a daylight-saving gap. Dates outside YEARS are no dates. */
export function readDateInput(text: string, zone: string, now: DateTime = DateTime.now()): ReadDate | null {
  const read = readAnyYear(text.trim(), zone, now);
  return read && withinYears(read.moment) ? read : null;
}

const exact = (moment: DateTime): ReadDate | null => (moment.isValid ? { moment, movedForward: 0 } : null);

/** A wall-clock time read in `zone` by the clock rule (resolveWallClock). */
function wallClockIn(fields: DateObjectUnits, zone: string): ReadDate | null {
  const asTyped = DateTime.fromObject(fields, { zone: 'utc' });
  const resolvedZone = Info.normalizeZone(zone);
  if (!asTyped.isValid || !resolvedZone.isValid) return null;
  return readWallClock(asTyped.toMillis(), zone, resolvedZone);
}

function readWallClock(localMillis: number, zone: string, resolvedZone: Zone): ReadDate {
  const { instant } = resolveWallClock(localMillis, resolvedZone);
  const moment = DateTime.fromMillis(instant, { zone });
  return { moment, movedForward: instant + moment.offset * MINUTE - localMillis };
}

/**
 * Whether a date text names a moment relative to when it is read (`now`, `tomorrow 9am`, `next wednesday`, a month and
 * day without a year), rather than the same moment whenever it is read: an answer that read one changes with the clock.
 */
export function readsTheClock(text: string): boolean {
  const value = text.trim();
  if (UNIX_TIMESTAMP.test(value) || DATE_ONLY.test(value) || WALL_CLOCK.test(value)) return false;
  if (isRelativeDate(value)) return true;
  return !DateTime.fromISO(value.replace(/^(\d{4}-\d{2}-\d{2}) (?=\d)/, '$1T')).isValid;
}

function readAnyYear(value: string, zone: string, now: DateTime): ReadDate | null {
  if (value === '') return null;
  if (UNIX_TIMESTAMP.test(value)) return exact(DateTime.fromSeconds(Number(value), { zone }));
  if (DATE_ONLY.test(value) || WALL_CLOCK.test(value)) {
    const typed = DateTime.fromISO(value.replace(' ', 'T'), { zone: 'utc' });
    return typed.isValid ? wallClockIn(wallFields(typed), zone) : null;
  }
  // Before ISO 8601, which would read a bare time (`16:00`) on the real clock's day rather than `now`'s.
  if (isRelativeDate(value)) return relativeIn(value, zone, now);
  // ISO 8601, also with a space between date and time as `Y-m-d H:i:sP` writes it (`2025-03-01 18:00:00+01:00`).
  const iso = DateTime.fromISO(value.replace(/^(\d{4}-\d{2}-\d{2}) (?=\d)/, '$1T'), { zone, setZone: false });
  if (iso.isValid) return exact(iso.setZone(zone));
  return parseTextualDate(value, zone, now.setZone(zone));
}

const wallFields = (moment: DateTime): DateObjectUnits => ({
  year: moment.year,
  month: moment.month,
  day: moment.day,
  hour: moment.hour,
  minute: moment.minute,
  second: moment.second,
});

function relativeIn(value: string, zone: string, now: DateTime): ReadDate | null {
  const resolved = resolveRelativeDate(value, wallFields(now.setZone(zone)) as WallClock);
  return resolved && wallClockIn(resolved, zone);
}

/**
 * Absolute dates written out (`March 5 2027 18:00`, `Sat, 01 Mar 2025 18:00:00 GMT`), read by chrono. Relative forms
 * chrono knows but PHP's strtotime does not (`in 3 days`, `next week friday`) are no dates, as in the original.
 */
function parseTextualDate(value: string, zone: string, wallNow: DateTime): ReadDate | null {
  // chrono reads components in the reference's zone; give it the wall clock as if it were UTC.
  const reference = new Date(
    Date.UTC(wallNow.year, wallNow.month - 1, wallNow.day, wallNow.hour, wallNow.minute, wallNow.second),
  );
  const results = chrono.parse(value, { instant: reference, timezone: 0 });
  const first = results[0];
  if (!first || first.text.trim().length !== value.length || results.length > 1) return null;
  const relative = [...first.start.tags()].some(
    (tag) => tag.startsWith('result/relativeDate') || tag.startsWith('casualReference/'),
  );
  if (relative || (!first.start.isCertain('year') && !first.start.isCertain('month'))) return null;
  // A text with its own offset or zone name (`… 12:00:00 GMT`, `… +0200`, `… EST`) names an exact instant.
  if (first.start.isCertain('timezoneOffset')) return exact(DateTime.fromJSDate(first.start.date(), { zone }));
  const keepsTime = first.start.isCertain('hour');
  const d = first.start.date();
  return wallClockIn(
    {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: keepsTime ? d.getUTCHours() : 0,
      minute: keepsTime ? d.getUTCMinutes() : 0,
      second: keepsTime ? d.getUTCSeconds() : 0,
    },
    zone,
  );
}

export function toWallClock(moment: DateTime): string {
  return moment.toFormat(WALL_CLOCK_FORMAT);
}

/** A stored wall-clock string read back as a moment in its zone, by the clock rule (resolveWallClock). */
export function fromWallClock(wallClock: string, zone: string): DateTime {
  return readWallClockIn(wallClock, zone)?.moment ?? DateTime.invalid(`"${wallClock}" is no wall clock in ${zone}`);
}

/** fromWallClock, telling also how far a wall clock the zone skips was moved forward; null when it is none. */
export function readWallClockIn(wallClock: string, zone: string): ReadDate | null {
  const localMillis = wallClockMillis(wallClock);
  const resolvedZone = Info.normalizeZone(zone);
  if (Number.isNaN(localMillis) || !resolvedZone.isValid) return null;
  return readWallClock(localMillis, zone, resolvedZone);
}

export function startOfDayWallClock(moment: DateTime): string {
  return toWallClock(moment.startOf('day'));
}

export function endOfDayWallClock(moment: DateTime): string {
  return toWallClock(moment.endOf('day').set({ millisecond: 0 }));
}

/** The zone's abbreviation at that moment (`CET`, `EST`), or its offset (`UTC+2`) where none exists. */
// ICU names a zone's abbreviation only in locales where it is in common use (CET in en-GB, EST in en-US …).
const ABBREVIATION_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN', 'en-NZ', 'en-ZA'];

export function timeZoneAbbreviation(moment: DateTime): string {
  for (const locale of ABBREVIATION_LOCALES) {
    const short = moment.setLocale(locale).toFormat('ZZZZ');
    if (/^[A-Z]{2,5}$/.test(short)) return short;
  }
  if (moment.offset === 0) return 'UTC';
  return `UTC${moment.toFormat('Z')}`;
}

const abbreviations = new Map<string, string>();
const abbreviationsByQuarterHour = new Map<string, string>();
// Zones by years and offsets are few; the quarter hours a page of events starts at are too, those of 100,000 not.
const ABBREVIATIONS_KEPT = 10_000;
const QUARTER_HOURS_KEPT = 2048;
const QUARTER_HOUR_MS = 15 * 60_000;

/** A memo that starts over when full. */
function remembered(memo: Map<string, string>, kept: number, key: string, compute: () => string): string {
  let value = memo.get(key);
  if (value === undefined) {
    if (memo.size >= kept) memo.clear();
    value = compute();
    memo.set(key, value);
  }
  return value;
}

/**
 * The abbreviation of `zone` at an instant. Asking ICU (through luxon) costs far more than the rest of an event's
 * fields, and the answer depends only on its inputs (zone rules change with Node's ICU, not at run time), so every
 * process keeps its own copy: the name by zone, year and offset, and in front of it, by zone and quarter hour (the
 * offset alone costs ICU a call), for a quarter hour with one offset throughout: no zone changes its offset twice
 * within one. By instant, not wall clock: an hour the clocks repeat has two names (`01:30 EDT`, `01:30 EST`).
 */
export function abbreviationAt(zone: string, instant: Date): string {
  const quarterHour = Math.floor(instant.getTime() / QUARTER_HOUR_MS);
  const cached = abbreviationsByQuarterHour.get(`${zone}|${quarterHour}`);
  if (cached !== undefined) return cached;
  const ianaZone = Info.normalizeZone(zone);
  const offset = ianaZone.offset(instant.getTime());
  const abbreviation = remembered(
    abbreviations,
    ABBREVIATIONS_KEPT,
    `${zone}|${instant.getUTCFullYear()}|${offset}`,
    () => timeZoneAbbreviation(DateTime.fromJSDate(instant, { zone })),
  );
  const start = quarterHour * QUARTER_HOUR_MS;
  if (ianaZone.offset(start) === offset && ianaZone.offset(start + QUARTER_HOUR_MS - 1) === offset)
    remembered(abbreviationsByQuarterHour, QUARTER_HOURS_KEPT, `${zone}|${quarterHour}`, () => abbreviation);
  return abbreviation;
}
