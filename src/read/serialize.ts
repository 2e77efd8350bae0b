// The records as The Events Calendar's REST JSON, which the public pages also embed as JSON-LD: what every record's
// JSON shares (dates, authors, global IDs, images, statuses), the terms (categories and tags), the linked posts
// (venues and organizers), and events.
import type {
  PostStatus,
  RestCategoryFragment,
  RestImageFragment,
  RestTagFragment,
  RestOrganizerFragment,
  RestVenueFragment,
  RestEventFragment,
} from './operations/generated/graphql.js';
import { globalId, pageUrl, type RestUrls, type Taxonomy, termPageUrl } from '../urls.js';
import { DateTime } from 'luxon';

export const WALL_CLOCK = 'yyyy-MM-dd HH:mm:ss';

/** `2017-01-05 14:23:36` → the six zero-padded string parts TEC returns. */
export function dateDetails(wallClock: string) {
  const [date = '', time = ''] = wallClock.split(' ');
  const [year, month, day] = date.split('-');
  const [hour, minutes, seconds] = time.split(':');
  return { year, month, day, hour, minutes, seconds };
}

/** An ISO instant rendered as TEC's UTC wall clock. */
export function utcWallClock(iso: string): string {
  // The DateTime scalar always answers `toISOString()` (UTC, `Z`); the common case needs no date library.
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(iso)) return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  return DateTime.fromISO(iso, { zone: 'utc' }).toFormat(WALL_CLOCK);
}

export function authorString(authorId: number | null | undefined): string {
  return String(authorId ?? 0);
}

export function globalIds(urls: RestUrls, id: number) {
  const value = globalId(urls, id);
  return { global_id: value, global_id_lineage: [value] };
}

/**
 * TEC's image object with the fields this service knows, in its order; like TEC it drops empty keys (an image
 * kept before images were fetched has no width, height or size; there are never `sizes`: no smaller copies are made).
 */
export function imageObject(image: RestImageFragment | null | undefined) {
  if (!image) return false as const;
  const { url, id, extension, width, height, filesize } = image;
  return { url, id, ...withoutEmpty({ extension, width, height, filesize }) };
}

/** TEC drops every falsy entry from venue and organizer arrays (`""`, `false`, `"0"`, …). */
export function withoutEmpty<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(record).filter(
      ([, value]) => value !== '' && value !== false && value !== '0' && value !== null && value !== undefined,
    ),
  ) as Partial<T>;
}

/** The post fields every record starts with. */
export function postDates(record: {
  publishedLocal: string;
  publishedAt: string;
  modifiedLocal: string;
  modifiedAt: string;
}) {
  return {
    date: record.publishedLocal,
    date_utc: utcWallClock(record.publishedAt),
    modified: record.modifiedLocal,
    modified_utc: utcWallClock(record.modifiedAt),
  };
}

export const POST_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const;
export type RestPostStatus = (typeof POST_STATUSES)[number];

/** REST writes statuses as WordPress does (`publish`); GraphQL names its enum values in capitals (`PUBLISH`). */
export const graphqlStatus = (status: string): PostStatus => status.toUpperCase() as PostStatus;
export const restStatus = (status: PostStatus): RestPostStatus => status.toLowerCase() as RestPostStatus;

// ---------------------------------------------------------------------------------------------------------------
// Terms: categories and tags, embedded in an event and on their own routes

type Term = RestCategoryFragment | RestTagFragment;
export type TaxonomyRoute = 'categories' | 'tags';

const WP_TAXONOMY: Record<TaxonomyRoute, string> = { categories: 'tribe_events_cat', tags: 'post_tag' };
const TAXONOMY: Record<TaxonomyRoute, Taxonomy> = { categories: 'category', tags: 'tag' };

function parentOf(term: Term): number {
  return 'parentId' in term ? (term.parentId ?? 0) : 0;
}

function termUrls(urls: RestUrls, route: TaxonomyRoute, term: Term) {
  const parent = parentOf(term);
  return {
    self: `${urls.api}/${route}/${term.id}`,
    collection: `${urls.api}/${route}`,
    ...(parent ? { up: `${urls.api}/${route}/${parent}` } : {}),
  };
}

/** A term embedded in an event (`categories[]`, `tags[]`): the WP_Term array shape. */
export function embeddedTermToTec(urls: RestUrls, route: TaxonomyRoute, term: Term) {
  return {
    name: term.name,
    slug: term.slug,
    term_group: 0,
    term_taxonomy_id: term.id,
    taxonomy: WP_TAXONOMY[route],
    description: term.description,
    parent: parentOf(term),
    count: term.count,
    filter: 'raw',
    id: term.id,
    urls: termUrls(urls, route, term),
  };
}

/** A term from the /categories and /tags routes: the WordPress terms controller shape. */
export function termToTec(urls: RestUrls, route: TaxonomyRoute, term: Term) {
  return {
    id: term.id,
    count: term.count,
    description: term.description,
    name: term.name,
    slug: term.slug,
    taxonomy: WP_TAXONOMY[route],
    ...(route === 'categories' ? { parent: parentOf(term) } : {}),
    meta: [],
    url: termPageUrl(urls.site, TAXONOMY[route], term.slug),
    urls: termUrls(urls, route, term),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Linked posts: venues and organizers

export interface SerializeOptions {
  /** Single-record reads carry `json_ld`. */
  single?: boolean;
}

export function venueJsonLd(venue: RestVenueFragment) {
  return {
    '@type': 'Place',
    name: venue.name,
    description: venue.excerpt,
    url: '',
    address: {
      '@type': 'PostalAddress',
      streetAddress: venue.address,
      addressLocality: venue.city,
      addressRegion: venue.stateProvince || venue.state || venue.province,
      postalCode: venue.zip,
      addressCountry: venue.country,
    },
    ...(venue.latitude != null
      ? { geo: { '@type': 'GeoCoordinates', latitude: venue.latitude, longitude: venue.longitude } }
      : {}),
    telephone: venue.phone,
    sameAs: venue.website,
  };
}

export function organizerJsonLd(organizer: RestOrganizerFragment) {
  return {
    '@type': 'Person',
    name: organizer.name,
    description: organizer.excerpt,
    url: organizer.website,
    telephone: organizer.phone,
    email: organizer.email,
    sameAs: organizer.website,
  };
}

/** TEC's venue object: empty values dropped, then the always-present keys. */
export function venueToTec(urls: RestUrls, venue: RestVenueFragment, options: SerializeOptions = {}) {
  const image = imageObject(venue.image);
  return {
    ...withoutEmpty({
      id: venue.id,
      author: authorString(venue.authorId),
      status: restStatus(venue.status),
      ...postDates(venue),
      url: pageUrl(urls.site, 'venue', venue.slug),
      venue: venue.name,
      description: venue.description,
      excerpt: venue.excerpt,
      slug: venue.slug,
      image: image === false ? undefined : image,
      address: venue.address,
      city: venue.city,
      country: venue.country,
      province: venue.province,
      state: venue.state,
      zip: venue.zip,
      phone: venue.phone,
      website: venue.website,
      stateprovince: venue.stateProvince,
    }),
    ...(venue.latitude != null && venue.longitude != null ? { geo_lat: venue.latitude, geo_lng: venue.longitude } : {}),
    ...(options.single ? { json_ld: venueJsonLd(venue) } : {}),
    show_map: venue.showMap,
    show_map_link: venue.showMapLink,
    ...globalIds(urls, venue.id),
  };
}

/** TEC's organizer object: every empty value dropped. */
export function organizerToTec(urls: RestUrls, organizer: RestOrganizerFragment, options: SerializeOptions = {}) {
  const image = imageObject(organizer.image);
  return withoutEmpty({
    id: organizer.id,
    author: authorString(organizer.authorId),
    status: restStatus(organizer.status),
    ...postDates(organizer),
    url: pageUrl(urls.site, 'organizer', organizer.slug),
    organizer: organizer.name,
    description: organizer.description,
    excerpt: organizer.excerpt,
    slug: organizer.slug,
    image: image === false ? undefined : image,
    phone: organizer.phone,
    website: organizer.website,
    email: organizer.email,
    json_ld: options.single ? organizerJsonLd(organizer) : undefined,
    ...globalIds(urls, organizer.id),
  });
}

/** What TEC blanks each protected key of a venue to (docs/rest-compatibility.md); `state` is not among them, as in TEC. */
const VENUE_BLANKS: Readonly<Record<string, unknown>> = {
  description: '',
  excerpt: '',
  image: false,
  address: '',
  city: '',
  country: '',
  province: '',
  zip: '',
  phone: '',
  website: '',
  stateprovince: '',
  geo_lat: 0,
  geo_lng: 0,
  show_map: null,
  show_map_link: null,
};

/** What TEC blanks each protected key of an organizer to (docs/rest-compatibility.md). */
const ORGANIZER_BLANKS: Readonly<Record<string, unknown>> = {
  description: '',
  excerpt: '',
  image: false,
  phone: '',
  website: '',
  email: '',
};

/**
 * A password-protected record as readers without the password see it (docs/rest-compatibility.md). `shape` is the record as
 * the serializer emits it, `order` every key of its kind in TEC's emitted order: the result has the keys of `shape`
 * plus every protected key of `blanks`, blanked, all in that order. The name, slug, url, dates, status and `state`
 * keep their values.
 *
 * Deliberate deviation from TEC: TEC blanks only the protected keys present, i.e. those whose value is non-empty
 * (empty ones were dropped, as TEC drops them), so which keys a locked record carries tells whether it has a phone, an
 * image, coordinates, and so on. GraphQL withholds the content of a locked record (`isLocked`), so that is unknown
 * here; rather than a shape that depends on what was withheld, every protected key is always emitted, blanked. Two
 * further departures: the name is not turned into `[]` (TEC's shared field list catches `venue`/`organizer`), and
 * `json_ld` keeps only `@type` and the name instead of leaking the phone and website.
 */
function blankProtected(
  shape: Record<string, unknown>,
  blanks: Readonly<Record<string, unknown>>,
  order: readonly string[],
) {
  const blanked: Record<string, unknown> = {};
  for (const key of order) {
    if (key in blanks) blanked[key] = blanks[key];
    else if (key === 'json_ld' && key in shape) {
      const jsonLd = shape[key] as Record<string, unknown>;
      blanked[key] = { '@type': jsonLd['@type'], name: jsonLd.name };
    } else if (key in shape) blanked[key] = shape[key];
  }
  // A key the order does not know would be dropped, or if added unblanked, could leak: refuse instead.
  const unordered = Object.keys(shape).filter((key) => !order.includes(key));
  if (unordered.length) throw new Error(`blankProtected: keys missing from the key order: ${unordered.join(', ')}`);
  return blanked;
}

/** Every key a venue may have, in the order TEC emits them. */
export const VENUE_KEY_ORDER = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'venue',
  'description',
  'excerpt',
  'slug',
  'image',
  'address',
  'city',
  'country',
  'province',
  'state',
  'zip',
  'phone',
  'website',
  'stateprovince',
  'geo_lat',
  'geo_lng',
  'json_ld',
  'show_map',
  'show_map_link',
  'global_id',
  'global_id_lineage',
] as const;

/** Every key an organizer may have, in the order TEC emits them. */
export const ORGANIZER_KEY_ORDER = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'organizer',
  'description',
  'excerpt',
  'slug',
  'image',
  'phone',
  'website',
  'email',
  'json_ld',
  'global_id',
  'global_id_lineage',
] as const;

/** A locked password-protected venue (see `blankProtected`): every protected venue key, blanked, in TEC's key order. */
export function lockedVenueToTec(urls: RestUrls, venue: RestVenueFragment, options: SerializeOptions = {}) {
  return blankProtected(venueToTec(urls, venue, options), VENUE_BLANKS, VENUE_KEY_ORDER);
}

/** A locked password-protected organizer (see `blankProtected`): every protected organizer key, blanked, in TEC's key order. */
export function lockedOrganizerToTec(urls: RestUrls, organizer: RestOrganizerFragment, options: SerializeOptions = {}) {
  return blankProtected(organizerToTec(urls, organizer, options), ORGANIZER_BLANKS, ORGANIZER_KEY_ORDER);
}

// ---------------------------------------------------------------------------------------------------------------
// Events

/** An instant with the offset of its zone: from the instant, as a wall clock the zone repeats names two of them. */
function isoWithOffset(instant: string, timezone: string): string {
  // `+00:00` rather than `Z`, as TEC prints it.
  const moment = DateTime.fromISO(instant, { zone: timezone });
  return moment.isValid ? moment.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ") : '';
}

export function eventJsonLd(urls: RestUrls, event: RestEventFragment) {
  const url = pageUrl(urls.site, 'event', event.slug);
  const venue = event.venues[0];
  const organizer = event.organizers[0];
  return {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: event.title,
    description: event.excerpt,
    ...(event.image ? { image: event.image.url } : {}),
    url,
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    startDate: isoWithOffset(event.startsAt, event.timezone),
    endDate: isoWithOffset(event.endsAt, event.timezone),
    ...(venue ? { location: venueJsonLd(venue) } : {}),
    ...(organizer ? { organizer: organizerJsonLd(organizer) } : {}),
    ...(event.costDetails.values.length
      ? {
          offers: {
            '@type': 'Offer',
            price: event.costDetails.values[0],
            priceCurrency: event.costDetails.currencyCode,
            url,
          },
        }
      : {}),
  };
}

/** TEC's event object, every key present, in the order TEC emits them. */
export function eventToTec(urls: RestUrls, event: RestEventFragment, options: SerializeOptions = {}) {
  // An embedded protected venue or organizer keeps TEC's blanked shape, as on its own routes.
  const venues = event.venues.map((venue) => (venue.isLocked ? lockedVenueToTec : venueToTec)(urls, venue, options));
  return {
    id: event.id,
    ...globalIds(urls, event.id),
    author: authorString(event.authorId),
    status: restStatus(event.status),
    ...postDates(event),
    url: pageUrl(urls.site, 'event', event.slug),
    rest_url: `${urls.api}/events/${event.id}`,
    title: event.title,
    description: event.description,
    excerpt: event.excerpt,
    slug: event.slug,
    image: imageObject(event.image),
    all_day: event.allDay,
    start_date: event.startsAtLocal,
    start_date_details: dateDetails(event.startsAtLocal),
    end_date: event.endsAtLocal,
    end_date_details: dateDetails(event.endsAtLocal),
    utc_start_date: utcWallClock(event.startsAt),
    utc_start_date_details: dateDetails(utcWallClock(event.startsAt)),
    utc_end_date: utcWallClock(event.endsAt),
    utc_end_date_details: dateDetails(utcWallClock(event.endsAt)),
    timezone: event.timezone,
    timezone_abbr: event.timezoneAbbreviation,
    cost: event.formattedCost,
    cost_details: {
      currency_symbol: event.costDetails.currencySymbol,
      currency_code: event.costDetails.currencyCode,
      currency_position: event.costDetails.currencyPosition,
      values: event.costDetails.values,
    },
    website: event.website || pageUrl(urls.site, 'event', event.slug),
    show_map: event.showMap,
    show_map_link: event.showMapLink,
    hide_from_listings: event.hideFromListings,
    sticky: event.sticky,
    featured: event.featured,
    categories: event.categories.map((term) => embeddedTermToTec(urls, 'categories', term)),
    tags: event.tags.map((term) => embeddedTermToTec(urls, 'tags', term)),
    venue: venues.length === 1 ? venues[0] : venues,
    organizer: event.organizers.map((organizer) =>
      (organizer.isLocked ? lockedOrganizerToTec : organizerToTec)(urls, organizer, options),
    ),
    custom_fields: [],
    ...(options.single ? { json_ld: eventJsonLd(urls, event) } : {}),
    ticketed: event.ticketed,
    recurrence: event.recurrence,
    ...(event.recurringEventId == null
      ? {}
      : { recurring_event_id: event.recurringEventId, original_start_date: event.originalStartLocal }),
  };
}

type TecEvent = ReturnType<typeof eventToTec>;

/**
 * A password-protected event as lists show it to whoever lacks the password (decision 3, docs/rest-compatibility.md): listed,
 * with the protected fields blanked the way TEC blanks them; title, dates, url, slug and status stay visible.
 */
export function blankProtectedEvent(event: TecEvent) {
  return {
    ...event,
    description: '',
    excerpt: '',
    image: false as const,
    all_day: null,
    cost: '',
    cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] as string[] },
    website: '',
    show_map: null,
    show_map_link: null,
    hide_from_listings: null,
    sticky: null,
    featured: null,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    custom_fields: [],
    ticketed: null,
  };
}
