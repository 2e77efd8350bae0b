// English only, as chrono's default parser is; the package's main entry loads every locale (~20 MB more memory).
import * as chrono from 'chrono-node/en';
import { DateTime, IANAZone } from 'luxon';

/** The wall-clock format used in storage and by The Events Calendar: `Y-m-d H:i:s`. */
export const WALL_CLOCK_FORMAT = 'yyyy-MM-dd HH:mm:ss';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const WALL_CLOCK = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/;
const UNIX_TIMESTAMP = /^-?\d{9,11}$/;
const RELATIVE_DURATION = /^\s*(now|[+-]?\s*\d+\s*(sec|second|min|minute|hour|day|week|fortnight|month|year)s?(\s+ago)?)\s*$/i;
const IN_DURATION = /^\s*in\s+\d+\s*(sec|second|min|minute|hour|day|week|month|year)s?\s*$/i;

/** An IANA zone (`Europe/Berlin`) or a fixed offset the way WordPress writes it (`UTC+2`, `UTC-5:30`), at most ±14:00. */
export function isValidTimeZone(zone: string): boolean {
  if (IANAZone.isValidZone(zone)) return true;
  const offset = /^UTC[+-](\d{1,2})(?::([0-5]\d))?$/.exec(zone);
  if (!offset) return false;
  const minutes = Number(offset[1]) * 60 + Number(offset[2] ?? 0);
  return minutes <= 14 * 60 && DateTime.now().setZone(zone).isValid;
}

/**
 * Parses what integrations send as a date: `Y-m-d`, `Y-m-d H:i:s`, ISO 8601 with or without offset, Unix
 * timestamps, and relative forms (`now`, `tomorrow 9am`, `next wednesday 4pm`, `+1 day`). Forms without an offset
 * are read as wall-clock time in `zone`. Returns the moment in `zone`, or null when the text is not a date.
 */
export function parseDateInput(text: string, zone: string, now: DateTime = DateTime.now()): DateTime | null {
  const value = text.trim();
  if (value === '') return null;
  if (UNIX_TIMESTAMP.test(value)) return DateTime.fromSeconds(Number(value), { zone });
  if (DATE_ONLY.test(value) || WALL_CLOCK.test(value)) {
    const parsed = DateTime.fromISO(value.replace(' ', 'T'), { zone });
    return parsed.isValid ? parsed : null;
  }
  // ISO 8601, also with a space between date and time as `Y-m-d H:i:sP` writes it (`2025-03-01 18:00:00+01:00`).
  const iso = DateTime.fromISO(value.replace(/^(\d{4}-\d{2}-\d{2}) (?=\d)/, '$1T'), { zone, setZone: false });
  if (iso.isValid) return iso.setZone(zone);
  return parseRelative(value, zone, now);
}

function parseRelative(value: string, zone: string, now: DateTime): DateTime | null {
  const wallNow = now.setZone(zone);
  // chrono reads components in the reference's zone; give it the wall clock as if it were UTC.
  const reference = new Date(Date.UTC(wallNow.year, wallNow.month - 1, wallNow.day, wallNow.hour, wallNow.minute, wallNow.second));
  const results = chrono.parse(value, { instant: reference, timezone: 0 });
  const first = results[0];
  if (!first || first.text.trim().length !== value.length || results.length > 1) return null;
  // A text with its own offset or zone name (`… 12:00:00 GMT`, `… +0200`, `… EST`) names an exact instant. (Relative
  // forms also come back with a certain offset: the reference's, which is no offset of the text.)
  const relative = [...first.start.tags()].some((tag) => tag.startsWith('result/relativeDate') || tag.startsWith('casualReference/'));
  if (first.start.isCertain('timezoneOffset') && !relative) {
    const instant = DateTime.fromJSDate(first.start.date(), { zone });
    return instant.isValid ? instant : null;
  }
  const keepsTime = RELATIVE_DURATION.test(value) || IN_DURATION.test(value) || first.start.isCertain('hour');
  const d = first.start.date();
  const wall = DateTime.fromObject(
    {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: keepsTime ? d.getUTCHours() : 0,
      minute: keepsTime ? d.getUTCMinutes() : 0,
      second: keepsTime ? d.getUTCSeconds() : 0,
    },
    { zone },
  );
  return wall.isValid ? wall : null;
}

export function toWallClock(moment: DateTime): string {
  return moment.toFormat(WALL_CLOCK_FORMAT);
}

/** A stored wall-clock string read back as a moment in its zone. */
export function fromWallClock(wallClock: string, zone: string): DateTime {
  return DateTime.fromFormat(wallClock, WALL_CLOCK_FORMAT, { zone });
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
const ABBREVIATION_CACHE_SIZE = 10_000;

/**
 * The abbreviation of `zone` at a wall-clock time, memoised: asking ICU (through luxon) costs far more than the
 * rest of an event's fields, and the answer depends only on its inputs (zone rules change with Node's ICU, not at
 * run time), so every process can keep its own copy.
 */
export function abbreviationAt(zone: string, wallClock: string): string {
  const key = `${zone}|${wallClock.slice(0, 13)}`;
  let abbreviation = abbreviations.get(key);
  if (abbreviation === undefined) {
    if (abbreviations.size >= ABBREVIATION_CACHE_SIZE) abbreviations.clear();
    abbreviation = timeZoneAbbreviation(fromWallClock(wallClock, zone));
    abbreviations.set(key, abbreviation);
  }
  return abbreviation;
}
