import { DateTime } from 'luxon';
import type { Prisma } from '../../db/generated/prisma/client.js';
import { endOfDayWallClock, LAST_INSTANT, NOT_A_DATE, startOfDayWallClock } from '../../time/dates.js';
import { listVisibility, unlockedWhere } from '../access.js';
import { builder, type Context } from '../builder.js';
import { FieldErrors } from '../errors.js';
import { listOrder, orderArgs, type SortOrder } from '../shared/connections.js';
import { EITHER_ID, type NodeTypeName, referencedIds } from '../shared/node.js';
import { PostStatusEnum, type PostStatusValue } from '../shared/posts.js';
import { readableWordSearch, SEARCH_WORDS } from '../shared/search.js';
import { termIdsForFilter } from '../terms/references.js';
import { venueIdsNear, type GeoPoint } from '../venues/geo.js';

const GeoPointInput = builder.inputType('GeoPointInput', {
  description:
    'A circle on the globe: a point in decimal degrees (WGS 84) and a radius around it (REST `geoloc_lat`, `geoloc_lng`).',
  fields: (t) => ({
    latitude: t.float({ required: true, description: 'Latitude of the centre in degrees, -90 (south) to 90 (north).' }),
    longitude: t.float({
      required: true,
      description: 'Longitude of the centre in degrees, -180 (west) to 180 (east).',
    }),
    radiusKm: t.float({
      description: 'The radius in kilometres, greater than 0 (great-circle distance). Defaults to 25 km.',
    }),
  }),
});

export const EventsFilterInput = builder.inputType('EventsFilter', {
  description:
    'Which events to list; every condition given must hold. Without `strictDates`, dates are whole days: `startDate` ' +
    'means from the beginning of that day and the other dates mean the end of their day, compared with the wall-clock ' +
    'times of each event in its own time zone. With `strictDates`, dates are exact instants (site time zone when they ' +
    'carry no offset).',
  fields: (t) => ({
    startDate: t.field({ type: 'DateInput', description: 'Events starting on or after this.' }),
    endDate: t.field({ type: 'DateInput', description: 'Events ending on or before this.' }),
    startsBefore: t.field({
      type: 'DateInput',
      description: 'Events starting on or before that day; with `strictDates`, before that instant.',
    }),
    startsAfter: t.field({
      type: 'DateInput',
      description: 'Events starting after that day; with `strictDates`, after that instant.',
    }),
    endsBefore: t.field({
      type: 'DateInput',
      description: 'Events ending on or before that day; with `strictDates`, before that instant.',
    }),
    endsAfter: t.field({
      type: 'DateInput',
      description: 'Events ending after that day; with `strictDates`, after that instant.',
    }),
    strictDates: t.boolean({
      defaultValue: false,
      description:
        'Compare the dates as exact instants instead of whole days in each event’s time zone (see the type’s description).',
    }),
    search: t.string({ description: `Words, each found in any of the title, description or excerpt; ${SEARCH_WORDS}` }),
    categories: t.stringList({ description: 'Category IDs or slugs; any of them.' }),
    tags: t.stringList({ description: 'Tag IDs or slugs; any of them.' }),
    unknownTermsMatchNothing: t.boolean({
      defaultValue: false,
      description:
        'false (the default): a category or tag in `categories`/`tags` that does not exist is an error. true: it matches ' +
        'no event (calendar subscriptions keep working, with fewer or no events, after a term is deleted).',
    }),
    venueIds: t.idList({ description: `Venues; any of them. ${EITHER_ID}` }),
    venues: t.intList({
      description: 'Venue database IDs; any of them.',
      deprecationReason: 'Use `venueIds`, which takes global IDs as well.',
    }),
    organizerIds: t.idList({ description: `Organizers; any of them. ${EITHER_ID}` }),
    organizers: t.intList({
      description: 'Organizer database IDs; any of them.',
      deprecationReason: 'Use `organizerIds`, which takes global IDs as well.',
    }),
    featured: t.boolean({ description: 'true: only featured events; false: only the others; left out: both.' }),
    statuses: t.field({
      type: [PostStatusEnum],
      description: 'Defaults to published only for readers, and to every status but trash for users who write records.',
    }),
    ids: t.idList({ description: `Only these events. ${EITHER_ID}` }),
    include: t.intList({
      description: 'Only these event database IDs.',
      deprecationReason: 'Use `ids`, which takes global IDs as well.',
    }),
    parentId: t.id({
      description:
        'Only the children of this event: the occurrences of the series it is the master of, and the events that name ' +
        `it as their parent (REST \`post_parent\`). ${EITHER_ID}`,
    }),
    parent: t.int({
      deprecationReason: 'Use `parentId`, which takes a global ID as well.',
      description:
        'Only the children of this event: the occurrences of the series it is the master of, and the events that name ' +
        'it as their parent (REST `post_parent`, as Events Calendar Pro clients send it).',
    }),
    ticketed: t.boolean({
      description: 'true: only events with tickets (`ticketed`); false: only those without; left out: both.',
    }),
    expandRecurring: t.boolean({
      defaultValue: true,
      description:
        'true (the default): a recurring series is listed as its occurrences, each its own event, and not itself. ' +
        'false: series are listed once, as their masters (with `recurrence`), and occurrences are left out; a series ' +
        'is in the date window when any of its occurrences is (listed by its first start).',
    }),
    hasCoordinates: t.boolean({ description: 'true: only events whose venue has coordinates; false: only without.' }),
    near: t.field({
      type: GeoPointInput,
      description: 'Only events whose venue lies within the radius of this point.',
    }),
  }),
});

export type EventsFilter = typeof EventsFilterInput.$inferInput;

type Bound = 'dayStart' | 'dayEnd';
type Comparison = 'gte' | 'lte' | 'lt' | 'gt';

interface DateCondition {
  field: keyof EventsFilter & string;
  column: 'start' | 'end';
  /** How an exact instant compares (`strictDates`). */
  strict: Comparison;
  /**
   * How a wall clock compares with the first (`dayStart`) or last (`dayEnd`) second of the day. Wall clocks have whole
   * seconds, so "before the end of the day" includes 23:59:59 (`lte`) and "after the end of the day" excludes it (`gt`).
   */
  wholeDay: [Comparison, Bound];
}

const DATE_CONDITIONS: DateCondition[] = [
  { field: 'startDate', column: 'start', strict: 'gte', wholeDay: ['gte', 'dayStart'] },
  { field: 'endDate', column: 'end', strict: 'lte', wholeDay: ['lte', 'dayEnd'] },
  { field: 'startsBefore', column: 'start', strict: 'lt', wholeDay: ['lte', 'dayEnd'] },
  { field: 'startsAfter', column: 'start', strict: 'gt', wholeDay: ['gt', 'dayEnd'] },
  { field: 'endsBefore', column: 'end', strict: 'lt', wholeDay: ['lte', 'dayEnd'] },
  { field: 'endsAfter', column: 'end', strict: 'gt', wholeDay: ['gt', 'dayEnd'] },
];

function dateConditions(ctx: Context, filter: EventsFilter, errors: FieldErrors): Prisma.EventWhereInput[] {
  const conditions: Prisma.EventWhereInput[] = [];
  for (const { field, column, strict, wholeDay } of DATE_CONDITIONS) {
    const raw = filter[field] as string | null | undefined;
    if (raw == null) continue;
    const moment = ctx.readDate(raw);
    if (!moment) {
      errors.add(field, NOT_A_DATE);
      continue;
    }
    const endsBy = column === 'end' && (strict === 'lte' || strict === 'lt');
    if (filter.strictDates) {
      conditions.push({ [column === 'start' ? 'startsAt' : 'endsAt']: { [strict]: moment.toJSDate() } });
      if (endsBy) conditions.push({ startsAt: { [strict]: moment.toJSDate() } });
    } else {
      const [comparison, bound] = wholeDay;
      const wallClock = bound === 'dayStart' ? startOfDayWallClock(moment) : endOfDayWallClock(moment);
      conditions.push({ [column === 'start' ? 'startLocal' : 'endLocal']: { [comparison]: wallClock } });
      if (column === 'start' || endsBy) conditions.push(startsAtAround(wallClock, comparison));
    }
  }
  return conditions;
}

/**
 * The date conditions of a list of series as their masters: a series is in the window when any occurrence is, not
 * only its first (the master's own dates). That is the master itself, a series with an occurrence in the window, or
 * a series without end whose written occurrences stop short of the window's end (those beyond are not written yet:
 * src/graphql/events/series-sync.ts) and that starts before it. Series are named by ID when they are few, as
 * linkedTo does for links.
 */
async function seriesInWindow(
  ctx: Context,
  filter: EventsFilter,
  dates: Prisma.EventWhereInput[],
): Promise<Prisma.EventWhereInput[]> {
  if (dates.length === 0) return [];
  const inWindow = { AND: dates };
  const series = await ctx.db.event.findMany({
    where: { AND: [...dates, { recurringEventId: { not: null } }] },
    distinct: ['recurringEventId'],
    select: { recurringEventId: true },
    take: LINKED_EVENTS_BY_ID + 1,
  });
  const reach = windowReach(ctx, filter);
  const withOccurrenceInWindow: Prisma.EventWhereInput =
    series.length > LINKED_EVENTS_BY_ID
      ? { occurrences: { some: inWindow } }
      : { id: { in: series.map((row) => row.recurringEventId!) } };
  const endless: Prisma.EventWhereInput = {
    isSeriesMaster: true,
    ...(reach ? { materializedUntil: { lt: reach }, startsAt: { lte: reach } } : { materializedUntil: { not: null } }),
  };
  return [{ OR: [inWindow, withOccurrenceInWindow, endless] }];
}

/** UTC offsets of real time zones lie between −12:00 and +14:00. */
const EARLIEST_OFFSET_HOURS = -12;
const LATEST_OFFSET_HOURS = 14;

/**
 * The `startsAt` range a start wall-clock condition implies, whatever the event's zone. It selects nothing more, and
 * lets the database walk the listing index (start, ID) in list order instead of sorting the whole window.
 *
 * An upper bound on the end implies one on the start: every event ends at or after it starts (checkEventInput
 * refuses an end before the start; an occurrence keeps its series' duration). Without it, a week's window walked the
 * index from the week's start to the last event: 30 ms at 100,000 events instead of under 1 ms.
 */
function startsAtAround(wallClock: string, comparison: Comparison): Prisma.EventWhereInput {
  const asUtc = DateTime.fromSQL(wallClock, { zone: 'utc' });
  if (comparison === 'gte' || comparison === 'gt')
    return { startsAt: { gte: asUtc.minus({ hours: LATEST_OFFSET_HOURS }).toJSDate() } };
  return { startsAt: { lte: DateTime.min(asUtc.minus({ hours: EARLIEST_OFFSET_HOURS }), LAST_INSTANT).toJSDate() } };
}

/** The database IDs one of the filter's references names (see referencedIds). */
function recordIds(
  errors: FieldErrors,
  filter: EventsFilter,
  field: 'venueIds' | 'organizerIds' | 'ids' | 'parentId',
  older: 'venues' | 'organizers' | 'include' | 'parent',
  typename: NodeTypeName,
): number[] | null | undefined {
  return referencedIds(errors, typename, field, filter[field], older, filter[older]);
}

async function checkIdsExist(
  errors: FieldErrors,
  field: string,
  label: string,
  ids: number[] | null | undefined,
  find: (ids: number[]) => Promise<{ id: number }[]>,
) {
  if (!ids?.length) return;
  const found = new Set((await find(ids)).map((row) => row.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) errors.add(field, `no ${label} with ID ${missing.join(', ')}`);
}

function statusConditions(ctx: Context, filter: EventsFilter): Prisma.EventWhereInput[] {
  const { statuses, condition } = listVisibility(
    ctx,
    filter.statuses as PostStatusValue[] | null | undefined,
    'statuses',
  );
  return [{ status: { in: statuses } }, condition];
}

/**
 * The latest instant a list's window reaches (its end bounds, a day later for whole days and zones, at most the end
 * of the year 9999), or null when it has no end: series are materialised that far before the list runs.
 */
export function windowReach(ctx: Context, filter: EventsFilter): Date | null {
  const ends = (['endDate', 'startsBefore', 'endsBefore'] as const)
    .map((field) => (filter[field] == null ? null : ctx.readDate(filter[field] as string)))
    .filter((moment) => moment !== null)
    .map((moment) => Math.min(moment.plus({ days: 2 }).toMillis(), LAST_INSTANT.toMillis()));
  return ends.length ? new Date(Math.min(...ends)) : null;
}

/** At most this many events are named by ID for a venue, organizer or term filter (the rest of a statement's
 * parameters stay under SQLite's limit of 999 per statement, as Prisma counts them). */
const LINKED_EVENTS_BY_ID = 500;

type Link = 'venues' | 'organizers' | 'terms';

const LINKED_ID: Record<Link, string> = { venues: 'venueId', organizers: 'organizerId', terms: 'termId' };

/** The event IDs of up to `take` links to any of `ids`, read from the link table's index on the linked ID. */
const readLinks: Record<Link, (ctx: Context, ids: number[], take: number) => Promise<Array<{ eventId: number }>>> = {
  venues: (ctx, ids, take) =>
    ctx.db.eventVenue.findMany({ where: { venueId: { in: ids } }, select: { eventId: true }, take }),
  organizers: (ctx, ids, take) =>
    ctx.db.eventOrganizer.findMany({ where: { organizerId: { in: ids } }, select: { eventId: true }, take }),
  terms: (ctx, ids, take) =>
    ctx.db.eventTerm.findMany({ where: { termId: { in: ids } }, select: { eventId: true }, take }),
};

/**
 * The events linked to any of `ids` (venues, organizers or terms): by their IDs when they are few, else through the
 * links. SQLite runs a link filter as a correlated EXISTS for every event of the window: a venue's events over two
 * years took 50 ms at 100,000 events, their IDs 0.1 ms. The answer depends on the links read (the response cache asks
 * again when an event's links change: src/db/request-client.ts), and the remembered total on the IDs in its filter.
 */
async function linkedTo(ctx: Context, link: Link, ids: number[]): Promise<Prisma.EventWhereInput> {
  const links = await readLinks[link](ctx, ids, LINKED_EVENTS_BY_ID + 1);
  if (links.length > LINKED_EVENTS_BY_ID) return { [link]: { some: { [LINKED_ID[link]]: { in: ids } } } };
  return { id: { in: [...new Set(links.map((row) => row.eventId))] } };
}

/** Checks the filter's references and builds the Prisma condition; bad values are reported all at once. */
export async function eventsWhere(ctx: Context, filter: EventsFilter): Promise<Prisma.EventWhereInput> {
  const errors = new FieldErrors();
  const conditions: Prisma.EventWhereInput[] = [
    { hideFromListings: false },
    filter.expandRecurring === false ? { recurringEventId: null } : { isSeriesMaster: false },
    ...statusConditions(ctx, filter),
  ];
  const dates = dateConditions(ctx, filter, errors);
  if (filter.expandRecurring === false) conditions.push(...(await seriesInWindow(ctx, filter, dates)));
  else conditions.push(...dates);
  if (filter.search != null && filter.search.trim() === '') errors.add('search', 'must not be empty');
  for (const [field, taxonomy] of [
    ['categories', 'category'],
    ['tags', 'tag'],
  ] as const) {
    const refs = filter[field];
    if (!refs?.length) continue;
    const ids = await termIdsForFilter(
      ctx,
      filter.unknownTermsMatchNothing ? new FieldErrors() : errors,
      field,
      taxonomy,
      refs,
    );
    conditions.push(await linkedTo(ctx, 'terms', ids));
  }
  const venues = recordIds(errors, filter, 'venueIds', 'venues', 'Venue');
  const organizers = recordIds(errors, filter, 'organizerIds', 'organizers', 'Organizer');
  const include = recordIds(errors, filter, 'ids', 'include', 'Event');
  const [parent] = recordIds(errors, filter, 'parentId', 'parent', 'Event') ?? [];
  await checkIdsExist(errors, filter.venueIds ? 'venueIds' : 'venues', 'venue', venues, (ids) =>
    ctx.db.venue.findMany({ where: { id: { in: ids } }, select: { id: true } }),
  );
  await checkIdsExist(errors, filter.organizerIds ? 'organizerIds' : 'organizers', 'organizer', organizers, (ids) =>
    ctx.db.organizer.findMany({ where: { id: { in: ids } }, select: { id: true } }),
  );
  await checkIdsExist(
    errors,
    filter.parentId != null ? 'parentId' : 'parent',
    'event',
    parent == null ? null : [parent],
    (ids) => ctx.db.event.findMany({ where: { id: { in: ids } }, select: { id: true } }),
  );
  if (venues?.length) conditions.push(await linkedTo(ctx, 'venues', venues));
  if (organizers?.length) conditions.push(await linkedTo(ctx, 'organizers', organizers));
  if (filter.featured != null) conditions.push({ featured: filter.featured });
  if (include?.length) conditions.push({ id: { in: include } });
  if (parent != null) conditions.push({ OR: [{ parentId: parent }, { recurringEventId: parent }] });
  if (filter.ticketed != null) conditions.push({ ticketed: filter.ticketed });
  const withCoordinates = { venues: { some: { venue: { latitude: { not: null }, longitude: { not: null } } } } };
  if (filter.hasCoordinates === true) conditions.push(withCoordinates);
  if (filter.hasCoordinates === false) conditions.push({ NOT: withCoordinates });
  if (filter.near) {
    const ids = await venueIdsNear(ctx, errors, 'near', filter.near as GeoPoint);
    conditions.push(await linkedTo(ctx, 'venues', ids));
  }
  errors.throwIfAny();
  if (filter.search != null) {
    const others = [...conditions];
    const fields = { open: ['title'], withheld: ['description', 'excerpt'] };
    const match = await readableWordSearch(
      ctx.config.engine,
      filter.search,
      fields,
      unlockedWhere(ctx),
      (narrow, select) =>
        ctx.db.event.findMany({ where: { AND: [...others, narrow as Prisma.EventWhereInput] }, select }),
    );
    conditions.push(match as Prisma.EventWhereInput);
  }
  return { AND: conditions };
}

// ---------------------------------------------------------------------------------------------------------------
// The list's order

export const EventOrderByEnum = orderArgs('EventOrderBy', 'What a list of events is sorted by (then by ID).', {
  START: { value: 'startsAt', description: 'The start instant (the default; the listing index walks it).' },
  END: { value: 'endsAt', description: 'The end instant.' },
  TITLE: { value: 'title', description: 'The title (the database collation).' },
  PUBLISHED: { value: 'publishedAt', description: 'The publication date.' },
  MODIFIED: { value: 'modifiedAt', description: 'The last change.' },
});

/** The order of a list of events: by start unless asked otherwise, then by ID. The iCalendar feed keeps it. */
export function eventOrder(orderBy: string | null | undefined, order: SortOrder | null | undefined) {
  return listOrder(orderBy ?? 'startsAt', order ?? 'asc');
}
