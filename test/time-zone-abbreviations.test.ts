// The zone abbreviation of REST `timezone_abbr` and GraphQL `timezoneAbbreviation` is memoised per process (by zone
// and quarter hour, and by zone, year and offset): every minute around a change of offset must still read as ICU
// names it when asked afresh, whichever instant of the quarter hour was asked first.
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { abbreviationAt, timeZoneAbbreviation } from '../src/time/dates.js';

const MINUTE = 60_000;

/** Changes of several kinds: on the hour, half-hour steps and offsets, a 45-minute offset. */
const TRANSITIONS: Array<[zone: string, utc: string]> = [
  ['America/New_York', '2027-03-14T07:00:00Z'], // EST → EDT
  ['America/New_York', '2027-11-07T06:00:00Z'], // EDT → EST, 01:00–02:00 repeated
  ['Europe/Berlin', '2027-03-28T01:00:00Z'], // CET → CEST
  ['Australia/Lord_Howe', '2027-04-03T15:00:00Z'], // +11 → +10:30, a half-hour step
  ['America/St_Johns', '2027-03-14T05:30:00Z'], // NST → NDT, a half-hour offset
  ['Asia/Kathmandu', '1986-01-01T00:00:00Z'], // +5:30 → +5:45
  ['Pacific/Chatham', '2027-04-03T14:00:00Z'], // +13:45 → +12:45
];

const fresh = (zone: string, at: number) => timeZoneAbbreviation(DateTime.fromMillis(at, { zone }));

describe('zone abbreviations around changes of offset', () => {
  it.each(TRANSITIONS)('%s at %s: every minute of the two hours around it as ICU names it', (zone, utc) => {
    const change = Date.parse(utc);
    const minutes = Array.from({ length: 121 }, (_, i) => change + (i - 60) * MINUTE);
    // Asked from the last minute back to the first, then forward: each quarter hour is first asked at its end, then at
    // its start.
    const asked = [...minutes.slice().reverse(), ...minutes];
    for (const at of asked) expect([at, abbreviationAt(zone, new Date(at))]).toEqual([at, fresh(zone, at)]);
  });

  it('keeps each side of a change within a quarter hour apart, the later side asked first (Monrovia, 1972)', () => {
    // Liberia moved from −0:44:30 to GMT at 00:44:30 UTC on 1972-01-07: the quarter hour from 00:30 holds both offsets.
    // (ICU names offset 0 there UTC for a while, then GMT: the name memo by zone, year and offset says GMT for both.)
    const at = (utc: string) => abbreviationAt('Africa/Monrovia', new Date(utc));
    expect(at('1972-01-07T00:44:50Z')).toMatch(/^(UTC|GMT)$/);
    expect([at('1972-01-07T00:30:10Z'), at('1972-01-07T00:43:50Z'), at('1972-01-07T00:44:29Z')]).toEqual([
      'UTC-0:44',
      'UTC-0:44',
      'UTC-0:44',
    ]);
    expect(at('1972-01-07T00:44:30Z')).toMatch(/^(UTC|GMT)$/);
  });

  it('names both sides of a change differently (the test above compares something)', () => {
    for (const [zone, utc] of TRANSITIONS.slice(0, 5)) {
      const change = Date.parse(utc);
      expect(abbreviationAt(zone, new Date(change - MINUTE))).not.toBe(abbreviationAt(zone, new Date(change)));
    }
  });
});
