/**
 * Reading an iCalendar feed (RFC 5545) as calendar apps export it, for imports (issue 31): each VEVENT as a
 * `FeedEvent` with its times in UTC and the IANA time zone they were given in, its recurrence as written, and what
 * could not be read reported rather than guessed. Parsing is ical.js's; what is done here is the reading of its
 * components: times (UTC, floating, `TZID` by IANA name, by the Windows name Outlook writes, or by the feed's own
 * VTIMEZONE), durations, and the properties a calendar carries.
 */
import ICAL from 'ical.js';
import { DateTime, IANAZone } from 'luxon';
import { findIana } from 'windows-iana';
import { instantOf } from '../time/occurrence-times.js';

/**
 * A moment of a feed: an instant (in UTC, with the IANA zone it was written in, `UTC` for a UTC time), a floating
 * wall-clock time (no zone: placed in the site's when imported), or a whole day.
 */
export type FeedTime =
  | { kind: 'instant'; utc: string; zone: string }
  | { kind: 'floating'; local: string }
  | { kind: 'date'; date: string };

export interface FeedEvent {
  uid: string;
  /** The original start of the occurrence this VEVENT overrides (RECURRENCE-ID), else null. */
  recurrenceId: FeedTime | null;
  sequence: number;
  title: string;
  /** DESCRIPTION as plain text (line breaks kept). */
  description: string | null;
  start: FeedTime;
  end: FeedTime;
  allDay: boolean;
  status: 'confirmed' | 'tentative' | 'cancelled';
  url: string | null;
  location: string | null;
  geo: { latitude: number; longitude: number } | null;
  organizer: { name: string | null; email: string | null } | null;
  categories: string[];
  /** Image URLs (ATTACH with an image FMTTYPE or file name). */
  images: string[];
  /** The RRULE as written (`FREQ=WEEKLY;BYDAY=MO`), RDATEs and EXDATEs as moments. */
  rrule: string | null;
  rdates: FeedTime[];
  exdates: FeedTime[];
  lastModified: string | null;
}

export interface FeedProblem {
  /** The line of the feed (1-based) or the VEVENT's UID it is about. */
  where: string;
  reason: string;
}

export interface ReadFeed {
  name: string | null;
  events: FeedEvent[];
  /** Lines, events and properties skipped, each with why. */
  skipped: FeedProblem[];
}

/** The properties a VEVENT's reading uses or knowingly passes over; others are reported once per name. */
const KNOWN = new Set([
  'uid',
  'recurrence-id',
  'sequence',
  'summary',
  'description',
  'dtstart',
  'dtend',
  'duration',
  'status',
  'url',
  'location',
  'geo',
  'organizer',
  'categories',
  'attach',
  'rrule',
  'rdate',
  'exdate',
  'last-modified',
  'dtstamp',
  'created',
  'transp',
  'class',
  'priority',
  'attendee',
]);

/** A content line: a name, parameters, a colon (RFC 5545 §3.1). */
const CONTENT_LINE = /^[A-Za-z0-9-]+(?:;[^\r\n]*?)?:/;

/**
 * Unfolds the feed's lines (RFC 5545 §3.1), keeps the well-formed ones and reports the others by their line in the
 * feed as sent.
 */
function wellFormedLines(text: string, skipped: FeedProblem[]): string {
  const logical: Array<{ line: string; number: number }> = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const last = logical.at(-1);
    if (last && /^[ \t]/.test(raw)) last.line += raw.slice(1);
    else logical.push({ line: raw, number: index + 1 });
  });
  const kept: string[] = [];
  for (const { line, number } of logical) {
    if (line.trim() === '') continue;
    if (CONTENT_LINE.test(line)) kept.push(line);
    else skipped.push({ where: `line ${number}`, reason: `not a content line: ${line.slice(0, 60)}` });
  }
  return `${kept.join('\r\n')}\r\n`;
}

export class FeedUnreadable extends Error {}

/** Reads a feed's text; throws FeedUnreadable when it is not an iCalendar object at all. */
export function readFeed(text: string): ReadFeed {
  const skipped: FeedProblem[] = [];
  let calendar: ICAL.Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(wellFormedLines(text, skipped)) as unknown[]);
  } catch (error) {
    throw new FeedUnreadable(`not an iCalendar feed: ${(error as Error).message}`);
  }
  if (calendar.name !== 'vcalendar') throw new FeedUnreadable(`not an iCalendar feed: it holds a ${calendar.name}`);
  const zones = new FeedZones(calendar);
  const unknownProperties = new Map<string, number>();
  const events: FeedEvent[] = [];
  for (const vevent of calendar.getAllSubcomponents('vevent')) {
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '');
    try {
      events.push(readEvent(vevent, zones));
      for (const property of vevent.getAllProperties())
        if (!KNOWN.has(property.name) && !property.name.startsWith('x-'))
          unknownProperties.set(property.name, (unknownProperties.get(property.name) ?? 0) + 1);
    } catch (error) {
      skipped.push({ where: uid ? `event ${uid}` : 'an event without UID', reason: (error as Error).message });
    }
  }
  for (const [name, count] of unknownProperties)
    skipped.push({ where: `property ${name.toUpperCase()}`, reason: `not read (${count} event(s))` });
  skipped.push(...zones.problems);
  const name = calendar.getFirstPropertyValue('x-wr-calname');
  return { name: name === null ? null : String(name), events, skipped };
}

function readEvent(vevent: ICAL.Component, zones: FeedZones): FeedEvent {
  const uid = vevent.getFirstPropertyValue('uid');
  if (!uid) throw new Error('no UID');
  const startProperty = vevent.getFirstProperty('dtstart');
  if (!startProperty) throw new Error('no DTSTART');
  const start = zones.timeOf(startProperty);
  const allDay = start.kind === 'date';
  const end = endOf(vevent, start, zones);
  if (moment(end) < moment(start)) throw new Error('DTEND is before DTSTART');
  const recurrenceId = vevent.getFirstProperty('recurrence-id');
  return {
    uid: String(uid),
    recurrenceId: recurrenceId ? zones.timeOf(recurrenceId) : null,
    sequence: Number(vevent.getFirstPropertyValue('sequence') ?? 0) || 0,
    title: text(vevent, 'summary') ?? '',
    description: text(vevent, 'description'),
    start,
    end,
    allDay,
    status: statusOf(text(vevent, 'status')),
    url: text(vevent, 'url'),
    location: text(vevent, 'location'),
    geo: geoOf(vevent.getFirstPropertyValue('geo')),
    organizer: organizerOf(vevent.getFirstProperty('organizer')),
    categories: vevent
      .getAllProperties('categories')
      .flatMap((property) => property.getValues().map((value) => String(value).trim()))
      .filter(Boolean),
    images: vevent.getAllProperties('attach').flatMap(imageOf),
    rrule: vevent.getFirstProperty('rrule') ? String(vevent.getFirstPropertyValue('rrule')) : null,
    rdates: vevent.getAllProperties('rdate').flatMap((property) => zones.timesOf(property)),
    exdates: vevent.getAllProperties('exdate').flatMap((property) => zones.timesOf(property)),
    lastModified: lastModifiedOf(vevent),
  };
}

const text = (component: ICAL.Component, name: string): string | null => {
  const value = component.getFirstPropertyValue(name);
  return value === null || value === undefined || String(value).trim() === '' ? null : String(value);
};

/** A moment's place in time, for ordering a start and its end (a date at its midnight, a floating time as if UTC). */
function moment(time: FeedTime): number {
  if (time.kind === 'date') return Date.parse(`${time.date}T00:00:00Z`);
  return Date.parse(time.kind === 'floating' ? `${time.local}Z` : time.utc);
}

/** DTEND, else DTSTART + DURATION, else as RFC 5545 §3.6.1 says: a day for a date, the start itself for a time. */
function endOf(vevent: ICAL.Component, start: FeedTime, zones: FeedZones): FeedTime {
  const endProperty = vevent.getFirstProperty('dtend');
  if (endProperty) return zones.timeOf(endProperty);
  const duration = vevent.getFirstPropertyValue('duration') as ICAL.Duration | null;
  const seconds = duration ? duration.toSeconds() : start.kind === 'date' ? 86_400 : 0;
  const later = (iso: string) => DateTime.fromISO(iso, { zone: 'UTC' }).plus({ seconds });
  if (start.kind === 'date') return { kind: 'date', date: later(start.date).toISODate()! };
  if (start.kind === 'floating')
    return { kind: 'floating', local: later(start.local).toISO({ includeOffset: false })! };
  return { ...start, utc: later(start.utc).toISO()! };
}

function statusOf(status: string | null): FeedEvent['status'] {
  const normal = status?.toLowerCase();
  return normal === 'cancelled' || normal === 'tentative' ? normal : 'confirmed';
}

function geoOf(value: unknown): FeedEvent['geo'] {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [latitude, longitude] = value.map(Number) as [number, number];
  const valid = Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180;
  return valid && Number.isFinite(latitude) && Number.isFinite(longitude) ? { latitude, longitude } : null;
}

function organizerOf(property: ICAL.Property | null): FeedEvent['organizer'] {
  if (!property) return null;
  const address = String(property.getFirstValue() ?? '');
  const email = /^mailto:/i.test(address) ? address.replace(/^mailto:/i, '') : null;
  const name = property.getParameter('cn');
  return { name: typeof name === 'string' && name.trim() ? name.trim() : null, email: email || null };
}

const IMAGE_FILE = /\.(?:jpe?g|png|gif|webp)(?:\?|$)/i;

function imageOf(property: ICAL.Property): string[] {
  if (property.getParameter('encoding')) return []; // inline bytes, not a URL
  const url = String(property.getFirstValue() ?? '');
  const type = property.getParameter('fmttype');
  const image = typeof type === 'string' ? type.toLowerCase().startsWith('image/') : IMAGE_FILE.test(url);
  return image && /^https?:\/\//i.test(url) ? [url] : [];
}

function lastModifiedOf(vevent: ICAL.Component): string | null {
  const value = vevent.getFirstPropertyValue('last-modified') as ICAL.Time | null;
  return value ? value.toJSDate().toISOString() : null;
}

type Wall = { year: number; month: number; day: number; hour: number; minute: number; second: number };

const two = (n: number) => String(n).padStart(2, '0');
const wallClock = (wall: Wall) =>
  `${wall.year}-${two(wall.month)}-${two(wall.day)} ${two(wall.hour)}:${two(wall.minute)}:${two(wall.second)}`;

/**
 * The time zones of one feed: a TZID is read as an IANA name, as a Windows name (Outlook, Exchange), or, when it is
 * neither, by the rules of the feed's own VTIMEZONE of that TZID (the times are then right, and the event's zone is
 * UTC, reported). A TZID with none of these makes the event unreadable.
 */
class FeedZones {
  readonly problems: FeedProblem[] = [];
  readonly #definitions = new Map<string, ICAL.Timezone>();
  readonly #reported = new Set<string>();

  constructor(calendar: ICAL.Component) {
    for (const vtimezone of calendar.getAllSubcomponents('vtimezone')) {
      const tzid = String(vtimezone.getFirstPropertyValue('tzid') ?? '');
      if (tzid) this.#definitions.set(tzid, new ICAL.Timezone({ component: vtimezone, tzid }));
    }
  }

  timeOf(property: ICAL.Property): FeedTime {
    return this.#read(property.getFirstValue() as ICAL.Time, property.getParameter('tzid'));
  }

  timesOf(property: ICAL.Property): FeedTime[] {
    const tzid = property.getParameter('tzid');
    return property
      .getValues()
      .filter((value): value is ICAL.Time => value instanceof ICAL.Time)
      .map((value) => this.#read(value, tzid));
  }

  #read(value: ICAL.Time, tzid: unknown): FeedTime {
    if (value.isDate) return { kind: 'date', date: value.toString().slice(0, 10) };
    const wall = {
      year: value.year,
      month: value.month,
      day: value.day,
      hour: value.hour,
      minute: value.minute,
      second: value.second,
    };
    if (value.zone === ICAL.Timezone.utcTimezone)
      return { kind: 'instant', utc: DateTime.fromObject(wall, { zone: 'UTC' }).toISO()!, zone: 'UTC' };
    if (typeof tzid !== 'string' || tzid === '')
      return { kind: 'floating', local: DateTime.fromObject(wall, { zone: 'UTC' }).toISO({ includeOffset: false })! };
    const zone = this.#ianaOf(tzid);
    // By the clock rule (RFC 5545 §3.3.5): a repeated hour is its first instant, a skipped one moves forward.
    if (zone) return { kind: 'instant', utc: instantOf(wallClock(wall), zone).toISOString(), zone };
    const definition = this.#definitions.get(tzid);
    if (!definition) throw new Error(`the time zone "${tzid}" is neither known nor defined in the feed`);
    this.#report(tzid, 'not a known zone name: times read by the feed’s VTIMEZONE, shown in UTC');
    const local = new ICAL.Time({ ...wall, isDate: false }, definition);
    return { kind: 'instant', utc: new Date(local.toUnixTime() * 1000).toISOString(), zone: 'UTC' };
  }

  #ianaOf(tzid: string): string | null {
    const name = tzid.replace(/^\/+/, '');
    if (IANAZone.isValidZone(name)) return name;
    const fromWindows = findIana(name)[0];
    return fromWindows && IANAZone.isValidZone(fromWindows) ? fromWindows : null;
  }

  #report(tzid: string, reason: string): void {
    if (this.#reported.has(tzid)) return;
    this.#reported.add(tzid);
    this.problems.push({ where: `TZID ${tzid}`, reason });
  }
}
