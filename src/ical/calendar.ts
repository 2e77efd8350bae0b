import { ICalCalendar, ICalEvent, type ICalEventData } from 'ical-generator';
import { DateTime } from 'luxon';
import { toWallClock, WALL_CLOCK_FORMAT, wallClockKind } from '../time/dates.js';
import { localStartProperty, namedZone } from './recurrence.js';
import { vtimezone } from './vtimezone.js';

/** What an event's VEVENT shows; content withheld from the viewer is simply left out. */
export interface FeedEvent {
  id: number;
  title: string;
  /** The event's page on the site. */
  url: string;
  startsAt: Date;
  endsAt: Date;
  /** Wall clocks in the event's zone (`YYYY-MM-DD HH:MM:SS`), whose dates an all-day event spans. */
  startLocal: string;
  endLocal: string;
  timezone: string;
  allDay: boolean;
  publishedAt: Date;
  /** When anything the VEVENT shows last changed. */
  revisedAt: Date;
  /** Plain text. */
  description?: string;
  location?: { text: string; latitude: number | null; longitude: number | null };
  organizer?: { name: string; email: string };
  categories: string[];
  /** A series master: its RRULE/RDATE/EXDATE lines (see ./recurrence.ts), and the last end of its occurrences. */
  series?: { lines: string[]; lastEndsAt: Date };
  /** A changed occurrence of a series: exported with the series' UID and its original start as RECURRENCE-ID. */
  occurrenceOf?: { seriesId: number; originalStartLocal: string; zone: string; allDay: boolean };
}

export interface SiteIdentity {
  /** Host (and path) of the site, e.g. `calendar.example`: the calendar's name. */
  domain: string;
  /** What follows an event's ID in its UID (`@…`): fixed per database, so UIDs outlive a change of the site's URL. */
  uidSuffix: string;
}

/** Subscribers are asked to refresh hourly (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
const REFRESH_SECONDS = 3600;
/** SEQUENCE counts seconds from here, which keeps it in a signed 32-bit integer (as clients read it) until 2068. */
const SEQUENCE_EPOCH = Date.UTC(2000, 0, 1);

/** The first and last instants each named zone must cover. */
function zoneSpans(events: FeedEvent[]): Map<string, { first: Date; last: Date }> {
  const spans = new Map<string, { first: Date; last: Date }>();
  for (const event of events) {
    const zone = event.allDay ? null : namedZone(event.timezone);
    if (!zone) continue;
    // A series' VTIMEZONE covers all its occurrences that exist (as far as lists have reached).
    const last = event.series && event.series.lastEndsAt > event.endsAt ? event.series.lastEndsAt : event.endsAt;
    const span = spans.get(zone);
    if (!span) spans.set(zone, { first: event.startsAt, last });
    else {
      if (event.startsAt < span.first) span.first = event.startsAt;
      if (last > span.last) span.last = last;
    }
  }
  return spans;
}

const localDate = (wallClock: string) => DateTime.fromISO(wallClock.slice(0, 10), { zone: 'utc' });
const floating = (wallClock: string) => DateTime.fromFormat(wallClock, WALL_CLOCK_FORMAT, { zone: 'utc' });

/** Whether an instant's wall clock is one its zone repeats: `DTSTART;TZID=…:local` would not say which instant it is. */
const repeatedAt = (instant: Date, zone: string) =>
  wallClockKind(toWallClock(DateTime.fromJSDate(instant, { zone })), zone) === 'repeated';

/**
 * DTSTART/DTEND: dates for all-day events (the end exclusive: the day after the last day), else zoned times. The
 * clock rule (src/time/dates.ts) reads a repeated wall clock as its first instant, as RFC 5545 does, but readers
 * differ (ical.js takes the second): a time the zone repeats is written in UTC, which is exact, except a series'
 * DTSTART, which keeps its zone for the rule to follow (its first occurrence is then an exception with UTC times, see
 * graphql/events/ical.ts). A series whose start or end the zone skips or repeats has a DURATION instead of DTEND: the
 * wall-clock length its occurrences have, which readers otherwise take from DTEND minus DTSTART as they read them.
 */
function schedule(event: FeedEvent): Pick<ICalEventData, 'start' | 'end' | 'allDay' | 'timezone' | 'x'> {
  if (event.allDay)
    return { allDay: true, start: localDate(event.startLocal), end: localDate(event.endLocal).plus({ days: 1 }) };
  const zone = namedZone(event.timezone);
  const start = DateTime.fromJSDate(event.startsAt);
  const end = DateTime.fromJSDate(event.endsAt);
  if (!zone) return { start, end, timezone: null };
  if (!event.series)
    return { start, end, timezone: repeatedAt(event.startsAt, zone) || repeatedAt(event.endsAt, zone) ? null : zone };
  if (wallClockKind(event.startLocal, zone) === 'exact' && wallClockKind(event.endLocal, zone) === 'exact')
    return { start, end, timezone: zone };
  const length = floating(event.endLocal).diff(floating(event.startLocal), ['days', 'hours', 'minutes', 'seconds']);
  return { start, end: null, timezone: zone, x: [['DURATION', length.toISO()!]] };
}

/** RFC 6868 for a quoted parameter value (the organizer's CN), which may hold neither `"` nor a line break. */
const parameterText = (text: string) => text.replace(/\^/g, '^^').replace(/"/g, "^'").replace(/\r?\n/g, '^n');

/**
 * RECURRENCE-ID (RFC 5545 §3.8.4.4): the occurrence's original start as the rule gave it, in the form of the series'
 * DTSTART (a wall clock with the series' TZID, a DATE, or UTC for fixed offsets), written as it is, not from an
 * instant: readers match it against the rule's own wall clocks, and the rule may give one the zone skips.
 */
function recurrenceIdLine(event: FeedEvent): string[] {
  const of = event.occurrenceOf;
  if (!of) return [];
  const [name, value] = localStartProperty('RECURRENCE-ID', of.originalStartLocal, of.zone, of.allDay);
  return [`${name}:${value}`];
}

/** A VEVENT with property lines ical-generator cannot write (it writes dates only from instants). */
class VEventWithLines extends ICalEvent {
  private readonly lines: string[];

  constructor(data: ICalEventData, calendar: ICalCalendar, lines: string[]) {
    super(data, calendar);
    this.lines = lines;
  }

  override toString(): string {
    return super
      .toString()
      .replace(/END:VEVENT\r\n$/, `${this.lines.map((line) => `${line}\r\n`).join('')}END:VEVENT\r\n`);
  }
}

function vevent(event: FeedEvent, site: SiteIdentity): ICalEventData {
  return {
    id: `${event.occurrenceOf?.seriesId ?? event.id}${site.uidSuffix}`,
    repeating: event.series ? event.series.lines.join('\n') : null,
    sequence: Math.floor((event.revisedAt.getTime() - SEQUENCE_EPOCH) / 1000),
    // Without METHOD, DTSTAMP is when the event was last revised (RFC 5545 §3.8.7.2), which keeps the feed's bytes
    // (and so its ETag) the same until something changes.
    stamp: event.revisedAt,
    lastModified: event.revisedAt,
    created: event.publishedAt,
    ...schedule(event),
    summary: event.title,
    url: event.url,
    description: event.description || null,
    location: event.location
      ? {
          title: event.location.text,
          ...(event.location.latitude !== null && event.location.longitude !== null
            ? { geo: { lat: event.location.latitude, lon: event.location.longitude } }
            : {}),
        }
      : null,
    organizer: event.organizer ? { name: parameterText(event.organizer.name), email: event.organizer.email } : null,
    categories: event.categories.map((name) => ({ name })),
  };
}

/** An iCalendar object (RFC 5545) of the events, in their order, with a VTIMEZONE for every zone they use. */
export function renderCalendar(events: FeedEvent[], site: SiteIdentity): string {
  const spans = zoneSpans(events);
  const calendar = new ICalCalendar({
    prodId: { company: site.domain, product: 'Calendar events service', language: 'EN' },
    name: `Events · ${site.domain}`,
    ttl: REFRESH_SECONDS,
    timezone: {
      name: null,
      generator: (zone) => {
        const span = spans.get(zone);
        return span ? vtimezone(zone, span.first, span.last) : null;
      },
    },
  });
  for (const event of events)
    calendar.createEvent(new VEventWithLines(vevent(event, site), calendar, recurrenceIdLine(event)));
  // RFC 5545 §3.1: every content line ends with CRLF, the last one included.
  return `${calendar.toString().replace(/\r\n$/, '')}\r\n`;
}
