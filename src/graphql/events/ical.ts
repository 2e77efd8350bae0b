import type { Prisma } from '../../db/generated/prisma/client.js';
import { renderCalendar, type FeedEvent } from '../../ical/calendar.js';
import { icalUidSuffix, siteDomain } from '../../ical/uid-suffix.js';
import { htmlToPlainText } from '../../ical/plain-text.js';
import { exdateLine, exportedRecurrence, namedZone } from '../../ical/recurrence.js';
import { offsetChangesBetween } from '../../ical/vtimezone.js';
import { WALL_CLOCK_FORMAT, wallClockKind } from '../../time/dates.js';
import { DateTime } from 'luxon';
import { eventsWhere } from './filter.js';
import { recurrenceLines } from './columns.js';
import { isLocked, readableLinkedPosts } from '../access.js';
import { builder, type Context } from '../builder.js';
import { EventType } from './type.js';
import { VersionedMemo } from '../../db/data-version.js';
import { pageUrl } from '../../urls.js';

// Events as iCalendar (RFC 5545): `ical` on an event, and on the events connection for the whole filtered list.

/**
 * The most events one feed carries: the first ones of the list, in its order. Rendering costs about a millisecond
 * an event (ical-generator folds the text character by character), so a feed stays under a second.
 */
export const FEED_MAX_EVENTS = 1000;

export interface ICalendar {
  text: string;
  lastModified: Date | null;
}

export const ICalendarType = builder.objectRef<ICalendar>('ICalendar').implement({
  description: 'An iCalendar (RFC 5545) object: events with their time zones, for calendar applications.',
  fields: (t) => ({
    text: t.exposeString('text', { description: 'The VCALENDAR, as served with `Content-Type: text/calendar`.' }),
    lastModified: t.expose('lastModified', {
      type: 'DateTime',
      nullable: true,
      description:
        'When anything in it last changed: the newest modification of its events and their venues and organizers (null when it has no events).',
    }),
  }),
});

const linkedPost = { status: true, authorId: true, password: true, modifiedAt: true, name: true } as const;

/** Everything a VEVENT shows, loaded with the event (links in the order the event's fields list them). */
const FEED_EVENT_SELECT = {
  id: true,
  slug: true,
  title: true,
  description: true,
  status: true,
  authorId: true,
  password: true,
  publishedAt: true,
  modifiedAt: true,
  timezone: true,
  startLocal: true,
  endLocal: true,
  startsAt: true,
  endsAt: true,
  allDay: true,
  recurrence: true,
  recurringEventId: true,
  originalStartLocal: true,
  detached: true,
  venues: {
    select: {
      venue: {
        select: {
          ...linkedPost,
          address: true,
          city: true,
          stateProvince: true,
          zip: true,
          country: true,
          latitude: true,
          longitude: true,
        },
      },
    },
    orderBy: [{ position: 'asc' }, { venueId: 'asc' }],
  },
  organizers: {
    select: { organizer: { select: { ...linkedPost, email: true } } },
    orderBy: [{ position: 'asc' }, { organizerId: 'asc' }],
  },
  terms: {
    select: { term: { select: { name: true, taxonomy: true } } },
    orderBy: [{ term: { name: 'asc' } }, { termId: 'asc' }],
  },
} satisfies Prisma.EventSelect;

type FeedEventRow = Prisma.EventGetPayload<{ select: typeof FEED_EVENT_SELECT }>;
type VenueRow = FeedEventRow['venues'][number]['venue'];

const latest = (dates: Date[]) => new Date(Math.max(...dates.map((date) => date.getTime())));

/** The venue as one line (`Name, street, city, region, postcode, country`); only its name while it is locked. */
function location(ctx: Context, venue: VenueRow): FeedEvent['location'] {
  if (isLocked(ctx, venue)) return { text: venue.name, latitude: null, longitude: null };
  const parts = [venue.name, venue.address, venue.city, venue.stateProvince, venue.zip, venue.country].map((part) =>
    part.trim(),
  );
  return { text: parts.filter((part) => part !== '').join(', '), latitude: venue.latitude, longitude: venue.longitude };
}

/** What the viewer may see of an event: a locked event shows its title, dates and link only. */
function feedEvent(ctx: Context, row: FeedEventRow): FeedEvent {
  const shown = {
    id: row.id,
    title: row.title,
    url: pageUrl(ctx.config.siteUrl, 'event', row.slug),
    startsAt: row.startsAt,
    endsAt: row.endsAt,
    startLocal: row.startLocal,
    endLocal: row.endLocal,
    timezone: row.timezone,
    allDay: row.allDay,
    publishedAt: row.publishedAt,
    categories: [] as string[],
  };
  if (isLocked(ctx, row)) return { ...shown, revisedAt: row.modifiedAt };
  const venues = readableLinkedPosts(
    ctx,
    row.venues.map((link) => link.venue),
  );
  const organizers = readableLinkedPosts(
    ctx,
    row.organizers.map((link) => link.organizer),
  );
  const venue = venues[0];
  // ORGANIZER is a calendar address: the first organizer with an e-mail address (as The Events Calendar does).
  const organizer = organizers.find((linked) => !isLocked(ctx, linked) && linked.email !== '');
  const linked = [...venues, ...organizers];
  return {
    ...shown,
    revisedAt: latest([row.modifiedAt, ...linked.map((post) => post.modifiedAt)]),
    description: htmlToPlainText(row.description),
    location: venue ? location(ctx, venue) : undefined,
    organizer: organizer ? { name: organizer.name, email: organizer.email } : undefined,
    categories: row.terms.filter((link) => link.term.taxonomy === 'category').map((link) => link.term.name),
  };
}

/** A series' master and its changed occurrences, as they are exported with it. */
interface SeriesParts {
  /**
   * Changed occurrences the viewer sees in lists, and those whose wall clocks the zone skips or repeats (see
   * clockEdgeOccurrences): each a VEVENT with RECURRENCE-ID.
   */
  changed: Map<number, FeedEventRow[]>;
  /** Original local starts of changed occurrences the viewer does not see: EXDATEs, as the lists leave them out. */
  hidden: Map<number, string[]>;
  lastEndsAt: Map<number, Date>;
}

const group = <T>(rows: T[], key: (row: T) => number) => {
  const groups = new Map<number, T[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return groups;
};

/** The changed occurrences and the reach of the series among `masters`. */
async function seriesParts(ctx: Context, masters: FeedEventRow[]): Promise<SeriesParts> {
  const masterIds = masters.map((master) => master.id);
  if (!masterIds.length) return { changed: new Map(), hidden: new Map(), lastEndsAt: new Map() };
  const ofSeries = { recurringEventId: { in: masterIds } };
  // What an unfiltered list shows the viewer (status, listing, passwords aside): the same conditions, without a window.
  const listed = await eventsWhere(ctx, {});
  const [changed, hidden, reach] = await Promise.all([
    ctx.db.event.findMany({
      where: { AND: [ofSeries, { detached: true }, listed] },
      select: FEED_EVENT_SELECT,
      orderBy: [{ originalStartsAt: 'asc' }],
    }),
    ctx.db.event.findMany({
      where: { AND: [ofSeries, { detached: true }, { NOT: listed }] },
      select: { recurringEventId: true, originalStartLocal: true },
    }),
    ctx.db.event.groupBy({ by: ['recurringEventId'], where: ofSeries, _max: { endsAt: true } }),
  ]);
  const lastEndsAt = new Map(reach.map((row) => [row.recurringEventId!, row._max.endsAt!]));
  const edges = await clockEdgeOccurrences(ctx, masters, lastEndsAt);
  // In the order of their original starts (wall clocks of one zone per series), so the feed's bytes stay the same.
  const exceptions = [...changed, ...edges].sort((a, b) =>
    a.originalStartLocal! < b.originalStartLocal! ? -1 : a.originalStartLocal! > b.originalStartLocal! ? 1 : 0,
  );
  return {
    changed: group(exceptions, (row) => row.recurringEventId!),
    hidden: new Map(
      [...group(hidden, (row) => row.recurringEventId!)].map(([id, rows]) => [
        id,
        rows.map((row) => row.originalStartLocal!),
      ]),
    ),
    lastEndsAt,
  };
}

const floating = (wallClock: string) => DateTime.fromFormat(wallClock, WALL_CLOCK_FORMAT, { zone: 'utc' });
const DAY_MS = 24 * 3600_000;
/** Conditions a statement holds at most (SQLite binds at most 999 values, three a condition here). */
const CONDITIONS_PER_STATEMENT = 300;

/**
 * Occurrences that follow their series but whose start or end, as the rule gives it, is a wall clock the zone skips
 * or repeats. The clock rule reads such a time by RFC 5545 (src/time/dates.ts) while readers of `DTSTART;TZID=…`
 * differ (ical.js reads a skipped 02:30 as 01:30 and a repeated hour as its second instant), so each is exported as
 * an exception with its exact times. They lie within a day of an offset change of the zone: only those rows are read.
 */
async function clockEdgeOccurrences(
  ctx: Context,
  masters: FeedEventRow[],
  lastEndsAt: Map<number, Date>,
): Promise<FeedEventRow[]> {
  const conditions: Prisma.EventWhereInput[] = [];
  const byId = new Map(masters.map((master) => [master.id, master]));
  const length = (master: FeedEventRow) => floating(master.endLocal).diff(floating(master.startLocal));
  for (const master of masters) {
    const zone = namedZone(master.timezone);
    if (!zone || master.allDay) continue;
    const longest = length(master).toMillis();
    for (const change of offsetChangesBetween(zone, master.startsAt, lastEndsAt.get(master.id) ?? master.endsAt)) {
      const around = { gte: new Date(change.at - longest - DAY_MS), lte: new Date(change.at + DAY_MS) };
      conditions.push({ recurringEventId: master.id, originalStartsAt: around });
    }
  }
  const rows = new Map<number, FeedEventRow>();
  for (let i = 0; i < conditions.length; i += CONDITIONS_PER_STATEMENT) {
    const batch = await ctx.db.event.findMany({
      where: { detached: false, OR: conditions.slice(i, i + CONDITIONS_PER_STATEMENT) },
      select: FEED_EVENT_SELECT,
    });
    for (const row of batch) rows.set(row.id, row);
  }
  return [...rows.values()].filter((row) => {
    const master = byId.get(row.recurringEventId!)!;
    const start = row.originalStartLocal!;
    const end = floating(start).plus(length(master)).toFormat(WALL_CLOCK_FORMAT);
    return wallClockKind(start, master.timezone) !== 'exact' || wallClockKind(end, master.timezone) !== 'exact';
  });
}

/**
 * The VEVENTs of one listed row: an event on its own as itself; a series master as one VEVENT with its recurrence
 * (occurrences that follow the series are its expansion, not VEVENTs of their own) and one per changed occurrence.
 */
function feedEventsOf(ctx: Context, row: FeedEventRow, parts: SeriesParts): FeedEvent[] {
  const event = feedEvent(ctx, row);
  if (row.recurrence === '') return [event];
  const exdates = (parts.hidden.get(row.id) ?? []).map((local) => exdateLine(local, row.timezone, row.allDay));
  const lines = [
    ...exportedRecurrence(recurrenceLines(row.recurrence), row.startLocal, row.timezone, row.allDay),
    ...exdates,
  ];
  const master = { ...event, series: { lines, lastEndsAt: parts.lastEndsAt.get(row.id) ?? row.endsAt } };
  const changed = (parts.changed.get(row.id) ?? []).map((occurrence) => ({
    ...feedEvent(ctx, occurrence),
    occurrenceOf: {
      seriesId: row.id,
      originalStartLocal: occurrence.originalStartLocal!,
      zone: row.timezone,
      allDay: row.allDay,
    },
  }));
  return [master, ...changed];
}

async function calendarOf(ctx: Context, rows: FeedEventRow[]): Promise<ICalendar> {
  const parts = await seriesParts(
    ctx,
    rows.filter((row) => row.recurrence !== ''),
  );
  const events = rows.flatMap((row) => feedEventsOf(ctx, row, parts));
  return {
    text: renderCalendar(events, {
      domain: siteDomain(ctx.config.siteUrl),
      uidSuffix: await icalUidSuffix(ctx.db, ctx.config.siteUrl),
    }),
    lastModified: events.length ? latest(events.map((event) => event.revisedAt)) : null,
  };
}

/** Events load in batches by ID: SQLite binds at most 999 values to a statement, and relations load by parent ID. */
const FEED_BATCH = 500;

/**
 * Feeds rendered lately, by list, viewer and offered passwords, while the data version is unchanged: subscribers poll
 * the same feed every few minutes, and rendering costs about a millisecond per event.
 */
const renderedFeeds = new VersionedMemo<ICalendar>(20);

/** The feed of an events list: its first FEED_MAX_EVENTS events, whatever page the connection itself answers. */
export async function eventsCalendar(
  ctx: Context,
  list: Pick<Prisma.EventFindManyArgs, 'where' | 'orderBy'>,
): Promise<ICalendar> {
  const key = JSON.stringify([list, ctx.viewer.user?.id ?? null, ctx.offeredPasswords]);
  const feed = await renderedFeeds.get(key, await ctx.dataVersion(), () => renderEventsCalendar(ctx, list));
  // A remembered feed is right at this data version only: what it read was noted by the request that rendered it.
  ctx.facts.readsUnloggedData();
  return feed;
}

/**
 * The list's events on their own and its series (once each, where their first listed occurrence is), at most
 * FEED_MAX_EVENTS of them: a window of a daily series lists hundreds of occurrences, but it is one VEVENT.
 */
async function feedIds(ctx: Context, list: Pick<Prisma.EventFindManyArgs, 'where' | 'orderBy'>): Promise<number[]> {
  const where = list.where ?? {};
  const [single, series] = await Promise.all([
    ctx.db.event.findMany({
      where: { AND: [where, { recurringEventId: null }] },
      orderBy: list.orderBy,
      take: FEED_MAX_EVENTS,
      select: { id: true, startsAt: true },
    }),
    ctx.db.event.groupBy({
      by: ['recurringEventId'],
      where: { AND: [where, { recurringEventId: { not: null } }] },
      _min: { startsAt: true },
      orderBy: { _min: { startsAt: 'asc' } },
      take: FEED_MAX_EVENTS,
    }),
  ]);
  const ids: number[] = [];
  let next = 0;
  for (const row of single) {
    for (; next < series.length && series[next]._min.startsAt! < row.startsAt; next++)
      ids.push(series[next].recurringEventId!);
    ids.push(row.id);
  }
  for (; next < series.length; next++) ids.push(series[next].recurringEventId!);
  return ids.slice(0, FEED_MAX_EVENTS);
}

async function renderEventsCalendar(
  ctx: Context,
  list: Pick<Prisma.EventFindManyArgs, 'where' | 'orderBy'>,
): Promise<ICalendar> {
  const ids = await feedIds(ctx, list);
  const rows = new Map<number, FeedEventRow>();
  for (let start = 0; start < ids.length; start += FEED_BATCH) {
    const batch = await ctx.db.event.findMany({
      where: { id: { in: ids.slice(start, start + FEED_BATCH) } },
      select: FEED_EVENT_SELECT,
    });
    for (const row of batch) rows.set(row.id, row);
  }
  return calendarOf(
    ctx,
    ids.flatMap((id) => rows.get(id) ?? []),
  );
}

export const EVENTS_ICAL_DESCRIPTION =
  `Every event the filter matches (not only this page), in the list's order, as one iCalendar feed of at most ` +
  `${FEED_MAX_EVENTS} events. A recurring series is one VEVENT with its RRULE, RDATE and EXDATE lines, and each ` +
  `changed occurrence a VEVENT with RECURRENCE-ID. Password-protected events show only their title, dates and link unless unlocked.`;

builder.prismaObjectField(EventType, 'ical', (t) =>
  t.field({
    type: ICalendarType,
    description:
      'This event as an iCalendar object; a series with its recurrence and changed occurrences. An occurrence is exported on ' +
      'its own, as a single event.',
    select: FEED_EVENT_SELECT,
    resolve: (event, _args, ctx) => calendarOf(ctx, [event]),
  }),
);
