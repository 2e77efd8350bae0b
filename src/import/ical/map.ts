/**
 * A feed's VEVENT (src/ical/read-feed.ts) as this service's event input: times as wall clocks in the event's zone,
 * the description as stored text (shown as paragraphs), the place and organizer as records made unless one like them
 * exists (as REST writes do), categories by name, and a series as its RFC 5545 recurrence lines.
 */
import { DateTime } from 'luxon';
import type { FeedEvent, FeedTime } from '../../ical/read-feed.js';

/** What a source adds to every event it writes. */
export interface SourceSettings {
  siteTimezone: string;
  status: 'PUBLISH' | 'DRAFT';
  categories: string[];
  authorId: number | null;
}

type Input = Record<string, unknown>;

const WALL_CLOCK = 'yyyy-MM-dd HH:mm:ss';

/** Text as stored HTML: escaped, its line breaks kept (shown as paragraphs and breaks, as WordPress's wpautop does). */
const storedText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').trim();

/** The event's start and end as the schema takes them, with its zone and all-day flag. */
function timesOf(event: FeedEvent, siteTimezone: string): Input {
  const { start, end } = event;
  if (start.kind === 'date' && end.kind === 'date') {
    // DTEND of a date is exclusive: the event's last day is the one before.
    const lastDay = DateTime.fromISO(end.date, { zone: 'UTC' }).minus({ days: 1 });
    const last = lastDay < DateTime.fromISO(start.date, { zone: 'UTC' }) ? start.date : lastDay.toISODate()!;
    return {
      allDay: true,
      startDate: `${start.date} 00:00:00`,
      endDate: `${last} 23:59:59`,
      timezone: siteTimezone,
    };
  }
  const zone = start.kind === 'instant' ? start.zone : siteTimezone;
  return { allDay: false, startDate: wallClock(start, zone), endDate: wallClock(end, zone), timezone: zone };
}

function wallClock(time: FeedTime, zone: string): string {
  if (time.kind === 'date') return `${time.date} 00:00:00`;
  if (time.kind === 'floating') return DateTime.fromISO(time.local, { zone: 'UTC' }).toFormat(WALL_CLOCK);
  return DateTime.fromISO(time.utc, { zone: 'UTC' }).setZone(zone).toFormat(WALL_CLOCK);
}

/** An RDATE or EXDATE value as the schema's recurrence lines take it: UTC, a date, or floating in the site's zone. */
function recurrenceValue(name: 'RDATE' | 'EXDATE', time: FeedTime, siteTimezone: string): string {
  if (time.kind === 'date') return `${name};VALUE=DATE:${time.date.replaceAll('-', '')}`;
  if (time.kind === 'floating')
    return `${name};TZID=${siteTimezone}:${DateTime.fromISO(time.local, { zone: 'UTC' }).toFormat("yyyyMMdd'T'HHmmss")}`;
  return `${name}:${DateTime.fromISO(time.utc, { zone: 'UTC' }).toFormat("yyyyMMdd'T'HHmmss'Z'")}`;
}

/** The series lines of a master: its RRULE, RDATEs and EXDATEs, and the occurrences the feed cancels. */
export function recurrenceOf(event: FeedEvent, cancelled: FeedTime[], siteTimezone: string): string[] {
  if (!event.rrule && event.rdates.length === 0) return [];
  return [
    ...(event.rrule ? [`RRULE:${event.rrule}`] : []),
    ...event.rdates.map((time) => recurrenceValue('RDATE', time, siteTimezone)),
    ...[...event.exdates, ...cancelled].map((time) => recurrenceValue('EXDATE', time, siteTimezone)),
  ];
}

/** A LOCATION's venue: its first line (or what precedes the first comma) as the name, the rest as the address. */
function venueOf(event: FeedEvent): Input[] {
  if (!event.location) return [];
  const text = event.location.trim();
  const split = text.includes('\n') ? text.indexOf('\n') : text.indexOf(',');
  const name = (split > 0 ? text.slice(0, split) : text).trim();
  const address =
    split > 0
      ? text
          .slice(split + 1)
          .replace(/\s*\n\s*/g, ', ')
          .trim()
      : '';
  const venue: Input = { name, ...(address ? { address } : {}) };
  if (event.geo) Object.assign(venue, { latitude: event.geo.latitude, longitude: event.geo.longitude });
  return [{ newUnlessDuplicate: venue }];
}

function organizersOf(event: FeedEvent): Input[] {
  const organizer = event.organizer;
  const name = organizer?.name ?? organizer?.email;
  if (!name) return [];
  return [{ newUnlessDuplicate: { name, ...(organizer?.email ? { email: organizer.email } : {}) } }];
}

/** The EventInput of a VEVENT that is not an override, with `recurrence` the series lines (see recurrenceOf). */
export function eventInputOf(event: FeedEvent, recurrence: string[], settings: SourceSettings): Input {
  return {
    title: event.title.trim() || '(untitled)',
    description: event.description ? storedText(event.description) : '',
    ...timesOf(event, settings.siteTimezone),
    website: event.url ?? '',
    ...(event.images[0] ? { image: event.images[0] } : {}),
    venues: venueOf(event),
    organizers: organizersOf(event),
    categories: [...new Set([...event.categories, ...settings.categories])],
    recurrence,
    status: settings.status,
    ...(settings.authorId !== null ? { authorId: settings.authorId } : {}),
  };
}
