import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FeedEvent, FeedUnreadable, readFeed } from '../src/ical/read-feed.js';

// Reading the feeds calendar apps export (issue 31, point 2), from fixtures written by hand after the formats Google
// Calendar, Outlook/Exchange, Apple Calendar, Nextcloud and Meetup document: times in UTC, by IANA zone, by the
// Windows zone names Outlook writes, by a feed's own VTIMEZONE, floating and all-day; DST gaps and repeated hours by
// RFC 5545's rule, checked against Python's zoneinfo; recurrence, overrides, and what cannot be read reported.

const FIXTURES = join(import.meta.dirname, 'fixtures', 'ical');
const feed = (name: string) => readFeed(readFileSync(join(FIXTURES, name), 'utf8'));
const byTitle = (events: FeedEvent[], title: string) => events.find((event) => event.title === title)!;
const instant = (utc: string, zone: string) => ({ kind: 'instant', utc, zone });

/** The UTC instant of a wall clock in an IANA zone by Python's zoneinfo (fold 0: a repeated hour's first instant). */
function zoneinfoUtc(wall: string, zone: string): string {
  const script = [
    'import sys',
    'from datetime import datetime, timezone',
    'from zoneinfo import ZoneInfo',
    'local = datetime.fromisoformat(sys.argv[1]).replace(tzinfo=ZoneInfo(sys.argv[2]))',
    'print(local.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z"))',
  ].join('\n');
  return execFileSync('python3', ['-c', script, wall, zone], { encoding: 'utf8' }).trim();
}

describe('reading iCalendar feeds as calendar apps write them', () => {
  it('Google Calendar: a weekly series in a zone with an exception, an override, a cancelled event, all-day', () => {
    const { name, events, skipped } = feed('google.ics');
    expect(name).toBe('Community Events');
    expect(skipped).toEqual([]);
    const series = events.find((event) => event.recurrenceId === null && event.title === 'Coding night')!;
    expect(series).toMatchObject({
      uid: '7kukuqrfedlm2f9t0vr42q2qk0@google.com',
      start: instant('2027-03-03T00:00:00.000Z', 'America/New_York'),
      end: instant('2027-03-03T01:30:00.000Z', 'America/New_York'),
      allDay: false,
      description: 'Weekly meetup.\nBring a laptop.\n\nAll welcome.',
      location: 'Public Library, 455 5th Ave, New York, NY 10016, USA',
      sequence: 2,
      status: 'confirmed',
      lastModified: '2026-11-15T09:30:00.000Z',
      // After the change to daylight time on March 14: 19:00 is 23:00 UTC.
      exdates: [instant('2027-03-16T23:00:00.000Z', 'America/New_York')],
    });
    expect(series.rrule!.split(';').sort()).toEqual(['BYDAY=TU', 'COUNT=10', 'FREQ=WEEKLY', 'WKST=SU']);
    expect(byTitle(events, 'Coding night (moved to Wednesday)')).toMatchObject({
      uid: series.uid,
      recurrenceId: instant('2027-03-10T00:00:00.000Z', 'America/New_York'),
      start: instant('2027-03-11T00:30:00.000Z', 'America/New_York'),
    });
    expect(byTitle(events, 'Board meeting')).toMatchObject({
      status: 'cancelled',
      start: instant('2027-04-15T16:00:00.000Z', 'UTC'),
    });
    expect(byTitle(events, 'Spring festival')).toMatchObject({
      allDay: true,
      start: { kind: 'date', date: '2027-05-01' },
      end: { kind: 'date', date: '2027-05-03' },
    });
  });

  it('Outlook/Exchange: Windows zone names, a zone known only by its VTIMEZONE, an organizer, DURATION', () => {
    const { events, skipped } = feed('outlook.ics');
    expect(byTitle(events, 'Q2 planning')).toMatchObject({
      start: instant('2027-03-09T17:00:00.000Z', 'America/Los_Angeles'),
      end: instant('2027-03-09T18:30:00.000Z', 'America/Los_Angeles'),
      organizer: { name: 'Dana Smith', email: 'dana@contoso.com' },
      location: 'Building 92 / Room 1',
    });
    expect(byTitle(events, 'Offsite day')).toMatchObject({ allDay: true, start: { kind: 'date', date: '2027-04-02' } });
    // "Customized Time Zone" is +05:30 by its VTIMEZONE: 18:30 there is 13:00 UTC, for 45 minutes.
    expect(byTitle(events, 'Call with the Pune office')).toMatchObject({
      start: instant('2027-04-05T13:00:00.000Z', 'UTC'),
      end: instant('2027-04-05T13:45:00.000Z', 'UTC'),
    });
    expect(skipped).toEqual([
      {
        where: 'TZID Customized Time Zone',
        reason: 'not a known zone name: times read by the feed’s VTIMEZONE, shown in UTC',
      },
    ]);
  });

  it('Apple Calendar: a night across the spring-forward gap, floating times, URL, GEO and an image', () => {
    const { events, skipped } = feed('apple.ics');
    expect(skipped).toEqual([]);
    expect(byTitle(events, 'Night across the clock change')).toMatchObject({
      // 01:30 CET and 03:30 CEST: one hour apart, across the hour Paris skips.
      start: instant('2027-03-28T00:30:00.000Z', 'Europe/Paris'),
      end: instant('2027-03-28T01:30:00.000Z', 'Europe/Paris'),
      url: 'https://example.org/night',
      geo: { latitude: 48.863, longitude: 2.37 },
      images: ['https://example.org/images/night.jpg'],
      location: 'Le Bataclan\n50 Bd Voltaire, 75011 Paris, France',
    });
    expect(byTitle(events, 'Floating brunch')).toMatchObject({
      start: { kind: 'floating', local: '2027-06-01T10:00:00.000' },
      end: { kind: 'floating', local: '2027-06-01T11:30:00.000' },
    });
  });

  it('Nextcloud: the repeated hour is its first instant; categories, RDATEs; broken lines and events reported', () => {
    const { name, events, skipped } = feed('nextcloud.ics');
    expect(name).toBe('Club');
    expect(events.map((event) => event.uid)).toEqual(['3b7e9f2a-5c1d-4e8b-a6f0-2d9c8b7a6e5f']);
    expect(events[0]).toMatchObject({
      // 02:30 on October 31 happens twice in Berlin; RFC 5545 takes the first (still CEST, +02:00).
      start: instant('2027-10-31T00:30:00.000Z', 'Europe/Berlin'),
      end: instant('2027-10-31T02:30:00.000Z', 'Europe/Berlin'),
      categories: ['Music', 'Night', 'Outdoor'],
      status: 'tentative',
      rdates: [
        instant('2027-11-07T00:30:00.000Z', 'Europe/Berlin'),
        instant('2027-11-14T00:30:00.000Z', 'Europe/Berlin'),
      ],
    });
    expect(skipped).toEqual([
      { where: 'line 48', reason: 'not a content line: this line is not iCalendar at all' },
      {
        where: 'event broken-start',
        reason: 'the time zone "Mars/Olympus_Mons" is neither known nor defined in the feed',
      },
      { where: 'event no-start', reason: 'no DTSTART' },
    ]);
  });

  it('Meetup: a London evening with its place, GEO, URL and description', () => {
    const { events } = feed('meetup.ics');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      uid: 'event_300000001@meetup.com',
      title: 'JavaScript London: talks and pizza',
      start: instant('2027-03-18T18:30:00.000Z', 'Europe/London'),
      end: instant('2027-03-18T21:00:00.000Z', 'Europe/London'),
      geo: { latitude: 51.52, longitude: -0.08 },
      url: 'https://www.meetup.com/example-js/events/300000001/',
      location: 'Tech Hub (1 Finsbury Ave, London, EC2M 2PF)',
    });
    expect(events[0]!.description).toContain('Two talks this month.\n\nhttps://www.meetup.com/');
  });

  it('agrees with Python’s zoneinfo on every time written with an IANA zone', () => {
    let compared = 0;
    for (const name of ['google.ics', 'outlook.ics', 'apple.ics', 'nextcloud.ics', 'meetup.ics']) {
      const text = readFileSync(join(FIXTURES, name), 'utf8');
      const read = readFeed(text).events.flatMap((event) =>
        [event.start, event.end, event.recurrenceId, ...event.rdates, ...event.exdates].filter((time) => time !== null),
      );
      for (const [, tzid, values] of text.matchAll(
        /^(?:DTSTART|DTEND|EXDATE|RDATE|RECURRENCE-ID);TZID=([^:]+):(.+)$/gm,
      )) {
        if (!read.some((time) => time.kind === 'instant' && time.zone === tzid)) continue; // a Windows or feed-defined name
        for (const value of values!.trim().split(',')) {
          const wall = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}T${value.slice(9, 11)}:${value.slice(11, 13)}:${value.slice(13, 15)}`;
          const expected = zoneinfoUtc(wall, tzid!);
          const found = read.some((time) => time.kind === 'instant' && time.zone === tzid && time.utc === expected);
          expect(found, `${name}: ${wall} in ${tzid} is ${expected}`).toBe(true);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThanOrEqual(12);
  });

  it('refuses what is not an iCalendar feed at all, on one line', () => {
    expect(() => readFeed('<html><body>Not found</body></html>')).toThrow(FeedUnreadable);
    expect(() => readFeed('BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ann\r\nEND:VCARD\r\n')).toThrow(/not an iCalendar feed/);
  });
});
