import { ICalCalendar, type ICalEventData } from 'ical-generator';
import { DateTime } from 'luxon';
import { fromWallClock } from '../time/dates.js';
import { namedZone } from './recurrence.js';
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

/** DTSTART/DTEND: dates for all-day events (the end exclusive: the day after the last day), else zoned times. */
function schedule(event: FeedEvent): Pick<ICalEventData, 'start' | 'end' | 'allDay' | 'timezone'> {
  if (event.allDay) return { allDay: true, start: localDate(event.startLocal), end: localDate(event.endLocal).plus({ days: 1 }) };
  return { start: DateTime.fromJSDate(event.startsAt), end: DateTime.fromJSDate(event.endsAt), timezone: namedZone(event.timezone) };
}

/** RFC 6868 for a quoted parameter value (the organizer's CN), which may hold neither `"` nor a line break. */
const parameterText = (text: string) => text.replace(/\^/g, '^^').replace(/"/g, "^'").replace(/\r?\n/g, '^n');

/**
 * RECURRENCE-ID (RFC 5545 §3.8.4.4) in the form of the series' DTSTART: ical-generator writes a zoned or UTC time
 * itself, but no DATE, so an all-day one is an extra property (whose name it upper-cases, which a TZID must not be).
 */
function recurrenceId(event: FeedEvent): Pick<ICalEventData, 'recurrenceId' | 'x'> {
  const of = event.occurrenceOf;
  if (!of) return {};
  if (of.allDay) return { x: [[`RECURRENCE-ID;VALUE=DATE`, of.originalStartLocal.slice(0, 10).replace(/-/g, '')]] };
  return { recurrenceId: fromWallClock(of.originalStartLocal, of.zone) };
}

function vevent(event: FeedEvent, site: SiteIdentity): ICalEventData {
  return {
    id: `${event.occurrenceOf?.seriesId ?? event.id}${site.uidSuffix}`,
    repeating: event.series ? event.series.lines.join('\n') : null,
    ...recurrenceId(event),
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
  for (const event of events) calendar.createEvent(vevent(event, site));
  // RFC 5545 §3.1: every content line ends with CRLF, the last one included.
  return `${calendar.toString().replace(/\r\n$/, '')}\r\n`;
}
