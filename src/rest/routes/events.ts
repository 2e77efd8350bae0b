import { DateTime } from 'luxon';
import { endOfDayWallClock, startOfDayWallClock, toWallClock } from '../../time/dates.js';
import { invalidParams, RestError, type ErrorMapping } from '../errors.js';
import {
  RestCreateEventDocument,
  RestDeleteEventDocument,
  RestEventByIdDocument,
  RestEventBySlugDocument,
  RestEventListDocument,
  RestRecordKindDocument,
  RestUpdateEventDocument,
  type EventsFilter,
  type EventUpdateScope,
  type RestEventFragment,
} from '../../read/operations/generated/graphql.js';
import { CREATABLE, DELETABLE, EDITABLE, endpoint, READABLE, type RestCall, type RouteDefinition } from '../route.js';
import { blankProtectedEvent, eventToTec } from '../../read/serialize.js';
import type { RestUrls } from '../../urls.js';
import { pageVariables } from '../../graphql/shared/connections.js';
import { ORGANIZER_FIELDS, VENUE_FIELDS, linksInput } from './linked-input.js';
import {
  FieldMap,
  idPathParam,
  listStatuses,
  pageLinks,
  pageParam,
  perPageParam,
  POST_STATUSES,
  slugPathParam,
  totalPages,
  type LinkedValue,
  type Param,
  type ParamDeclaration,
  type ParamValues,
} from '../params.js';

const date = (description: string): Param => ({ type: 'date', description });
export const eventPasswordParam = { type: 'string', description: 'event.password' } satisfies Param;

/** What selects the events of a list; the list adds paging, the iCalendar feed takes them as they are. */
export const eventFilterParams = {
  start_date: {
    type: 'date',
    description: 'events.start_date',
    default: ({ now, siteTimezone }) => toWallClock(now.setZone(siteTimezone)),
  },
  end_date: {
    type: 'date',
    description: 'events.end_date',
    default: ({ now, siteTimezone }) => toWallClock(now.setZone(siteTimezone).plus({ years: 2 })),
  },
  starts_before: date('events.starts_before'),
  starts_after: date('events.starts_after'),
  ends_before: date('events.ends_before'),
  ends_after: date('events.ends_after'),
  strict_dates: { type: 'boolean', default: false, description: 'events.strict_dates' },
  search: { type: 'string', nonEmpty: true, description: 'events.search' },
  categories: { type: 'list', items: 'string', description: 'events.categories' },
  tags: { type: 'list', items: 'string', description: 'events.tags' },
  venue: { type: 'list', items: 'integer', positive: true, description: 'events.venue' },
  organizer: { type: 'list', items: 'integer', positive: true, description: 'events.organizer' },
  featured: { type: 'boolean', description: 'events.featured' },
  status: { type: 'list', items: 'string', description: 'events.status' },
  geoloc: { type: 'boolean', description: 'events.geoloc' },
  geoloc_lat: { type: 'number', min: -90, max: 90, description: 'events.geoloc_lat' },
  geoloc_lng: { type: 'number', min: -180, max: 180, description: 'events.geoloc_lng' },
  geoloc_radius: { type: 'number', min: 0.001, description: 'events.geoloc_radius' },
  include: { type: 'list', items: 'integer', positive: true, description: 'events.include' },
  post_parent: { type: 'integer', min: 1, description: 'events.post_parent' },
  ticketed: { type: 'boolean', description: 'events.ticketed' },
  password: eventPasswordParam,
} satisfies ParamDeclaration;

export const eventListParams = {
  page: pageParam,
  per_page: perPageParam,
  ...eventFilterParams,
  expand_recurring: { type: 'boolean', default: true, description: 'events.expand_recurring' },
} satisfies ParamDeclaration;

/** REST event fields → GraphQL EventInput fields (drives input building and error naming). */
const EVENT_FIELDS = new FieldMap({
  title: 'title',
  description: 'description',
  excerpt: 'excerpt',
  slug: 'slug',
  author: 'authorId',
  date: 'date',
  date_utc: 'dateUtc',
  status: 'status',
  timezone: 'timezone',
  all_day: 'allDay',
  start_date: 'startDate',
  end_date: 'endDate',
  image: 'image',
  cost: 'cost',
  website: 'website',
  show_map: 'showMap',
  show_map_link: 'showMapLink',
  hide_from_listings: 'hideFromListings',
  sticky: 'sticky',
  featured: 'featured',
  ticketed: 'ticketed',
  categories: 'categories',
  tags: 'tags',
  venue: 'venues',
  organizer: 'organizers',
  post_parent: 'parentId',
  recurrence: 'recurrence',
});

const eventWriteParams = {
  title: { type: 'string', nonEmpty: true, description: 'event.title' },
  description: { type: 'string', description: 'event.description' },
  excerpt: { type: 'string', description: 'event.excerpt' },
  slug: { type: 'string', nonEmpty: true, description: 'event.slug' },
  author: { type: 'integer', min: 1, description: 'post.author' },
  date: { type: 'date', description: 'post.date' },
  date_utc: { type: 'date', description: 'post.date_utc' },
  status: { type: 'string', enum: POST_STATUSES, description: 'post.status' },
  timezone: { type: 'string', description: 'event.timezone' },
  all_day: { type: 'boolean', description: 'event.all_day' },
  start_date: { type: 'date', description: 'event.start_date' },
  end_date: { type: 'date', description: 'event.end_date' },
  image: { type: 'string', description: 'post.image' },
  cost: { type: 'cost', description: 'event.cost' },
  website: { type: 'string', description: 'event.website' },
  show_map: { type: 'boolean', description: 'event.show_map' },
  show_map_link: { type: 'boolean', description: 'event.show_map_link' },
  hide_from_listings: { type: 'boolean', description: 'event.hide_from_listings' },
  sticky: { type: 'boolean', description: 'event.sticky' },
  featured: { type: 'boolean', description: 'event.featured' },
  ticketed: { type: 'boolean', description: 'event.ticketed' },
  categories: { type: 'list', items: 'string', description: 'event.categories' },
  tags: { type: 'list', items: 'string', description: 'event.tags' },
  venue: { type: 'linked', description: 'event.venue' },
  organizer: { type: 'linked', description: 'event.organizer' },
  post_parent: { type: 'integer', min: 1, description: 'events.post_parent' },
  recurrence: { type: 'list', items: 'string', lines: true, description: 'event.recurrence' },
} satisfies ParamDeclaration;

const updateParams = {
  ...eventWriteParams,
  scope: { type: 'string', enum: ['this', 'following', 'all'], description: 'event.scope' },
} satisfies ParamDeclaration;

const createParams = {
  ...eventWriteParams,
  title: { ...eventWriteParams.title, required: true },
  start_date: { ...eventWriteParams.start_date, required: true },
  end_date: { ...eventWriteParams.end_date, required: true },
} satisfies ParamDeclaration;

const eventErrors = (id?: number): ErrorMapping => ({
  fields: EVENT_FIELDS.errorFields,
  notFound: () => RestError.of('rest-event-not-found', {}, id ?? 0),
  alreadyTrashed: () => RestError.of('event-is-in-trash'),
});

function statusesFor(call: RestCall<typeof eventFilterParams>) {
  return listStatuses(call.params.status, call.context);
}

/** The effective date window: defaults dropped when `include` or a relative bound is given (TEC's rule). */
function dateWindow(call: RestCall<typeof eventFilterParams>) {
  const { params, sent } = call;
  const relative = ['starts_before', 'starts_after', 'ends_before', 'ends_after'].some((name) => sent.has(name));
  const keep = (name: 'start_date' | 'end_date') => !sent.has('include') && (sent.has(name) || !relative);
  const window = {
    start: keep('start_date') ? params.start_date : undefined,
    end: keep('end_date') ? params.end_date : undefined,
  };
  if ((window.start && !sent.has('start_date')) || (window.end && !sent.has('end_date'))) defaultWindowRead(call);
  return window;
}

/**
 * A window that defaults to now (the declarations above read the clock) is whole days, so it moves at the site's
 * next midnight; with strict dates its edges are the very second (and `rest_url` shows it), so it moves with it.
 */
function defaultWindowRead(call: RestCall<typeof eventFilterParams>) {
  const now = DateTime.fromJSDate(call.context.requestTime).setZone(call.context.config.siteTimezone);
  const next = call.params.strict_dates
    ? now.startOf('second').plus({ seconds: 1 })
    : now.startOf('day').plus({ days: 1 });
  call.context.facts.changesAt(next.toMillis());
}

/** The window as the client will read it back in `rest_url`: whole days unless strict (the date as read when declared). */
function displayedDate(call: RestCall<typeof eventListParams>, value: string, edge: 'start' | 'end'): string {
  const moment = call.context.readDate(value)!;
  if (call.params.strict_dates) return toWallClock(moment);
  return edge === 'start' ? startOfDayWallClock(moment) : endOfDayWallClock(moment);
}

export function listFilter(call: RestCall<typeof eventFilterParams>): EventsFilter {
  const { params, sent } = call;
  const hasLat = params.geoloc_lat !== undefined;
  if (hasLat !== (params.geoloc_lng !== undefined)) {
    const together = 'geoloc_lat and geoloc_lng must be sent together.';
    throw invalidParams({ geoloc_lat: together, geoloc_lng: together });
  }
  const window = dateWindow(call);
  return {
    startDate: window.start,
    endDate: window.end,
    startsBefore: params.starts_before,
    startsAfter: params.starts_after,
    endsBefore: params.ends_before,
    endsAfter: params.ends_after,
    strictDates: params.strict_dates,
    search: params.search,
    categories: sent.has('categories') ? params.categories : undefined,
    tags: sent.has('tags') ? params.tags : undefined,
    venueIds: params.venue,
    organizerIds: params.organizer,
    featured: params.featured,
    statuses: statusesFor(call).statuses,
    ids: params.include,
    parentId: params.post_parent,
    ticketed: params.ticketed,
    hasCoordinates: params.geoloc,
    near: hasLat
      ? { latitude: params.geoloc_lat!, longitude: params.geoloc_lng!, radiusKm: params.geoloc_radius }
      : undefined,
  };
}

export const listErrors: ErrorMapping = {
  fields: {
    startDate: 'start_date',
    endDate: 'end_date',
    startsBefore: 'starts_before',
    startsAfter: 'starts_after',
    endsBefore: 'ends_before',
    endsAfter: 'ends_after',
    venueIds: 'venue',
    organizerIds: 'organizer',
    parentId: 'post_parent',
    near: 'geoloc_lat',
    statuses: 'status',
  },
};

async function listEvents(call: RestCall<typeof eventListParams>) {
  const { params } = call;
  const filter = { ...listFilter(call), expandRecurring: params.expand_recurring };
  const page = params.page!;
  const perPage = params.per_page!;
  const data = await call.run(
    RestEventListDocument,
    { filter, ...pageVariables(page, perPage), password: params.password },
    listErrors,
  );
  const total = data.events.totalCount;
  const pages = totalPages(total, perPage);
  if (page > 1 && page > pages) throw RestError.of('event-archive-page-not-found');
  const args: [string, unknown][] = [
    ['page', page],
    ['per_page', perPage],
    ...(filter.startDate ? [['start_date', displayedDate(call, filter.startDate, 'start')] as [string, unknown]] : []),
    ...(filter.endDate ? [['end_date', displayedDate(call, filter.endDate, 'end')] as [string, unknown]] : []),
    ...repeated(call, ['search', 'categories', 'tags', 'featured', 'geoloc', 'geoloc_lat', 'geoloc_lng']),
    ['status', statusesFor(call).shown],
    ...repeated(call, [
      'post_parent',
      'include',
      'starts_before',
      'starts_after',
      'ends_before',
      'ends_after',
      'ticketed',
      'venue',
      'organizer',
      'expand_recurring',
    ]),
  ];
  return {
    body: {
      events: data.events.edges.map(({ node }) => eventAsListed(call.urls, node)),
      ...pageLinks(`${call.urls.api}/events/`, args, page, pages),
      total,
      total_pages: pages,
    },
    headers: { 'X-TEC-Total': String(total), 'X-TEC-TotalPages': String(pages) },
  };
}

function csv(value: unknown): string {
  return Array.isArray(value) ? value.join(',') : String(value);
}

const RELATIVE_DATE_FILTERS = new Set(['starts_before', 'starts_after', 'ends_before', 'ends_after']);

/**
 * The filters a list's links repeat, as the original prints them: date filters as the resolved `Y-m-d H:i:s`,
 * lists comma-joined, anything else as sent (`featured=1` stays `1`, not `true`).
 */
function repeated(
  call: RestCall<typeof eventListParams>,
  names: (keyof typeof eventListParams & string)[],
): [string, unknown][] {
  return names
    .filter((name) => call.sent.has(name))
    .map((name) => {
      const value = call.params[name];
      if (RELATIVE_DATE_FILTERS.has(name)) return [name, toWallClock(call.context.readDate(String(value))!)];
      if (Array.isArray(value)) return [name, csv(value)];
      return [name, csv(call.sentAs[name])];
    });
}

/** An object that carries an `id` links that record (as TEC reads "an object with `id`"); its other fields do not make a new one. */
function idFirst(values: LinkedValue[]): LinkedValue[] {
  return values.map((value) =>
    typeof value === 'object' && value.id !== undefined && value.id !== null && value.id !== ''
      ? { id: value.id }
      : value,
  );
}

function eventInput(values: Record<string, unknown>, sent: ReadonlySet<string>) {
  const input = EVENT_FIELDS.input(values, sent);
  if (input.venues) input.venues = linksInput(idFirst(input.venues as LinkedValue[]), VENUE_FIELDS, 'venue');
  if (input.organizers)
    input.organizers = linksInput(idFirst(input.organizers as LinkedValue[]), ORGANIZER_FIELDS, 'organizer');
  return input;
}

type Address = 'id' | 'slug';

/** A withheld event on a single read: the original's codes for trashed and unpublished events. */
export const readErrors: ErrorMapping = {
  forbidden: (reason) =>
    reason === 'NO_LONGER_AVAILABLE'
      ? RestError.of('event-no-longer-available')
      : reason === 'NOT_ACCESSIBLE'
        ? RestError.of('event-not-accessible')
        : undefined,
};

const unknownSlug = () => invalidParams({ slug: 'Invalid parameter.' });

/** Read by slug, an event the viewer may not read is an unknown slug: a slug must not tell that a draft exists. */
const slugReadErrors: ErrorMapping = {
  forbidden: (reason) => (reason === 'NOT_ACCESSIBLE' ? unknownSlug() : readErrors.forbidden!(reason)),
};

/** A single read of an event the viewer may read but not be shown. */
/** An event as a list shows it to this viewer: a locked password-protected one with its protected fields blanked. */
export function eventAsListed(urls: RestUrls, event: RestEventFragment): unknown {
  return event.isLocked ? blankProtectedEvent(eventToTec(urls, event)) : eventToTec(urls, event);
}

export function assertShowable(event: { status: string; isLocked: boolean }): void {
  // TEC answers a trashed event as gone even to those who may still edit it.
  if (event.status === 'TRASH') throw RestError.of('event-no-longer-available');
  if (event.isLocked) throw RestError.of('event-password-protected');
}

/** On a write, an event the viewer may not see is one they may not change: 401 when anonymous, else 403. */
const refusedWrite = (call: RestCall<ParamDeclaration>): ErrorMapping => ({
  forbidden: () => RestError.of('rest_forbidden', { status: call.context.viewer.user ? 403 : 401 }),
});

/** Reads the event a single route addresses (by ID or slug); an unknown slug is a 400, as in the original. */
async function addressedEvent(
  call: RestCall<ParamDeclaration>,
  by: Address,
  errors: ErrorMapping,
): Promise<RestEventFragment> {
  const params = call.params as { id?: number; slug?: string; password?: string };
  if (by === 'slug') {
    const data = await call.run(RestEventBySlugDocument, { slug: params.slug!, password: params.password }, errors);
    if (!data.eventBySlug) throw unknownSlug();
    return data.eventBySlug;
  }
  const data = await call.run(RestEventByIdDocument, { id: params.id!, password: params.password }, errors);
  if (!data.event) throw await missingEvent(call, params.id!);
  return data.event;
}

/** An ID no event has: a 400 when a venue or organizer has it (the original validates it as an event's), else a 404. */
async function missingEvent(call: RestCall<ParamDeclaration>, id: number): Promise<RestError> {
  const data = await call.run(RestRecordKindDocument, { id });
  return data.recordKind ? RestError.of('rest-invalid-event-id') : RestError.of('rest-event-not-found', {}, id);
}

/** A write to an event by ID, whose "no such event" is told from "not an event" as on a read. */
async function writeEvent<T>(call: RestCall<ParamDeclaration>, id: number, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof RestError && error.code === 'rest-event-not-found') throw await missingEvent(call, id);
    throw error;
  }
}

/** The ID a write addresses: the path's, or the slug's event (the mutation itself checks existence and rights). */
async function addressedEventId(call: RestCall<ParamDeclaration>, by: Address): Promise<number> {
  if (by === 'id') return (call.params as unknown as { id: number }).id;
  return (await addressedEvent(call, by, refusedWrite(call))).id;
}

/** GET, DELETE, then the edit methods: the original's registration order, which `Allow` and the index show. */
function singleEventEndpoints(by: Address, addressParam: ParamDeclaration) {
  return [
    endpoint({
      methods: READABLE,
      params: { ...addressParam },
      async handle(call) {
        const event = await addressedEvent(call, by, by === 'slug' ? slugReadErrors : readErrors);
        assertShowable(event);
        return { body: eventToTec(call.urls, event, { single: true }) };
      },
    }),
    endpoint({
      methods: DELETABLE,
      params: { ...addressParam, force: { type: 'boolean', default: false, description: 'post.force' } },
      async handle(call) {
        const id = await addressedEventId(call, by);
        const data = await writeEvent(call, id, () =>
          call.run(RestDeleteEventDocument, { id, force: call.params.force as boolean }, eventErrors(id)),
        );
        return { body: eventToTec(call.urls, data.deleteEvent) };
      },
    }),
    endpoint({
      methods: EDITABLE,
      params: { ...addressParam, ...updateParams },
      async handle(call) {
        const id = await addressedEventId(call, by);
        const input = eventInput(call.params, call.sent);
        const scope =
          call.params.scope === undefined ? undefined : (String(call.params.scope).toUpperCase() as EventUpdateScope);
        const data = await writeEvent(call, id, () =>
          call.run(RestUpdateEventDocument, { id, input, scope }, eventErrors(id)),
        );
        return { body: eventToTec(call.urls, data.updateEvent) };
      },
    }),
  ];
}

export const eventRoutes: RouteDefinition[] = [
  {
    pattern: '/events',
    endpoints: [
      endpoint({ methods: READABLE, params: eventListParams, handle: listEvents }),
      endpoint({
        methods: CREATABLE,
        params: createParams,
        async handle(call) {
          const input = eventInput(call.params, call.sent);
          const data = await call.run(RestCreateEventDocument, { input: input as never }, eventErrors());
          return { status: 201, body: eventToTec(call.urls, data.createEvent) };
        },
      }),
    ],
  },
  {
    pattern: '/events/(?P<id>\\d+)',
    endpoints: singleEventEndpoints('id', { id: idPathParam, password: eventPasswordParam }),
  },
  {
    pattern: '/events/by-slug/(?P<slug>[^/]+)',
    endpoints: singleEventEndpoints('slug', { slug: slugPathParam, password: eventPasswordParam }),
  },
];

export type EventListParams = ParamValues<typeof eventListParams>;
