import type { Prisma } from '../../db/generated/prisma/client.js';
import { renderCalendar, type FeedEvent } from '../../ical/calendar.js';
import { icalUidSuffix, siteDomain } from '../../ical/uid-suffix.js';
import { htmlToPlainText } from '../../ical/plain-text.js';
import { isLocked, readableLinkedPosts } from '../access.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { EventType } from './type.js';
import { VersionedMemo } from '../../db/data-version.js';
import { pageUrl } from '../../site-pages.js';

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
      description: 'When anything in it last changed: the newest modification of its events and their venues and organizers (null when it has no events).',
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
  venues: {
    select: {
      venue: { select: { ...linkedPost, address: true, city: true, stateProvince: true, zip: true, country: true, latitude: true, longitude: true } },
    },
    orderBy: [{ position: 'asc' }, { venueId: 'asc' }],
  },
  organizers: { select: { organizer: { select: { ...linkedPost, email: true } } }, orderBy: [{ position: 'asc' }, { organizerId: 'asc' }] },
  terms: { select: { term: { select: { name: true, taxonomy: true } } }, orderBy: [{ term: { name: 'asc' } }, { termId: 'asc' }] },
} satisfies Prisma.EventSelect;

type FeedEventRow = Prisma.EventGetPayload<{ select: typeof FEED_EVENT_SELECT }>;
type VenueRow = FeedEventRow['venues'][number]['venue'];

const latest = (dates: Date[]) => new Date(Math.max(...dates.map((date) => date.getTime())));

/** The venue as one line (`Name, street, city, region, postcode, country`); only its name while it is locked. */
function location(ctx: Context, venue: VenueRow): FeedEvent['location'] {
  if (isLocked(ctx, venue)) return { text: venue.name, latitude: null, longitude: null };
  const parts = [venue.name, venue.address, venue.city, venue.stateProvince, venue.zip, venue.country].map((part) => part.trim());
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
  const venues = readableLinkedPosts(ctx, row.venues.map((link) => link.venue));
  const organizers = readableLinkedPosts(ctx, row.organizers.map((link) => link.organizer));
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

async function calendarOf(ctx: Context, rows: FeedEventRow[]): Promise<ICalendar> {
  const events = rows.map((row) => feedEvent(ctx, row));
  return {
    text: renderCalendar(events, { domain: siteDomain(ctx.config.siteUrl), uidSuffix: await icalUidSuffix(ctx.db, ctx.config.siteUrl) }),
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
export async function eventsCalendar(ctx: Context, list: Pick<Prisma.EventFindManyArgs, 'where' | 'orderBy'>): Promise<ICalendar> {
  const key = JSON.stringify([list, ctx.viewer.user?.id ?? null, ctx.offeredPasswords]);
  return renderedFeeds.get(key, await ctx.dataVersion(), () => renderEventsCalendar(ctx, list));
}

async function renderEventsCalendar(ctx: Context, list: Pick<Prisma.EventFindManyArgs, 'where' | 'orderBy'>): Promise<ICalendar> {
  const ids = (await ctx.db.event.findMany({ ...list, take: FEED_MAX_EVENTS, select: { id: true } })).map((row) => row.id);
  const rows = new Map<number, FeedEventRow>();
  for (let start = 0; start < ids.length; start += FEED_BATCH) {
    const batch = await ctx.db.event.findMany({ where: { id: { in: ids.slice(start, start + FEED_BATCH) } }, select: FEED_EVENT_SELECT });
    for (const row of batch) rows.set(row.id, row);
  }
  return calendarOf(ctx, ids.flatMap((id) => rows.get(id) ?? []));
}

export const EVENTS_ICAL_DESCRIPTION =
  `Every event the filter matches (not only this page), in the list's order, as one iCalendar feed of at most ` +
  `${FEED_MAX_EVENTS} events. Password-protected events show only their title, dates and link unless unlocked.`;

builder.prismaObjectField(EventType, 'ical', (t) =>
  t.field({
    type: ICalendarType,
    description: 'This event as an iCalendar object.',
    select: FEED_EVENT_SELECT,
    resolve: (event, _args, ctx) => calendarOf(ctx, [event]),
  }),
);
