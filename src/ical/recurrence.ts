import { IANAZone } from 'luxon';
import { fromWallClock } from '../time/dates.js';
import { parseRecurrence } from '../time/recurrence.js';

// A series' recurrence as a VEVENT carries it (RFC 5545 §3.8.5): every date in the value type of DTSTART. A series
// stores its lines as clients sent them (an EXDATE in UTC or another zone, an UNTIL as a date for a timed series);
// the export writes them again from their meaning, so any reader expands them as this service does.

/** Zones written with TZID (and a VTIMEZONE); UTC and fixed offsets (`UTC+2`) are written as UTC, which is exact. */
export const namedZone = (zone: string) => (zone !== 'UTC' && IANAZone.isValidZone(zone) ? zone : null);

/** `NAME;TZID=zone:20270415T100000`, `NAME;VALUE=DATE:20270415` or `NAME:20270415T080000Z` for a local start. */
export function localStartProperty(name: string, local: string, zone: string, allDay: boolean): [string, string] {
  if (allDay) return [`${name};VALUE=DATE`, local.slice(0, 10).replace(/-/g, '')];
  const named = namedZone(zone);
  if (named) return [`${name};TZID=${named}`, local.replace(/[-:]/g, '').replace(' ', 'T')];
  return [name, fromWallClock(local, zone).toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'")];
}

const line = ([name, value]: [string, string]) => `${name}:${value}`;

/**
 * The RRULE, RDATE and EXDATE lines of a series whose DTSTART is `startLocal` in `zone`: UNTIL a DATE for an all-day
 * series, else UTC (RFC 5545 §3.3.10); RDATE and EXDATE in DTSTART's form. An EXDATE given as a date for a timed
 * series stays a date: it excludes the whole day, as this service reads it.
 */
export function exportedRecurrence(lines: string[], startLocal: string, zone: string, allDay: boolean): string[] {
  const recurrence = parseRecurrence(lines, zone);
  const timeOfDay = startLocal.slice(11);
  const asStart = (value: string) => (value.length === 10 ? `${value} ${timeOfDay}` : value);
  const exported: string[] = [];
  if (recurrence.rule) {
    const parts = Object.entries(recurrence.rule).map(([name, value]) => {
      if (name !== 'UNTIL') return `${name}=${value}`;
      const until = recurrence.untilLocal!;
      return `UNTIL=${allDay ? until.slice(0, 10).replace(/-/g, '') : fromWallClock(until, zone).toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'")}`;
    });
    exported.push(`RRULE:${parts.join(';')}`);
  }
  for (const rdate of recurrence.rdates) exported.push(line(localStartProperty('RDATE', asStart(rdate), zone, allDay)));
  for (const exdate of recurrence.exdates) {
    exported.push(
      exdate.length === 10 && !allDay
        ? `EXDATE;VALUE=DATE:${exdate.replace(/-/g, '')}`
        : line(localStartProperty('EXDATE', exdate, zone, allDay)),
    );
  }
  return exported;
}

/** An EXDATE line for one occurrence's original local start. */
export const exdateLine = (local: string, zone: string, allDay: boolean) =>
  line(localStartProperty('EXDATE', local, zone, allDay));
