/**
 * The floor's serializer: TEC's event JSON (the shape of src/read/serialize.ts, byte for byte as the service
 * writes it through src/content/html.ts) written by hand from the stored rows. Dates come from the stored
 * wall-clock columns and UTC instants by string slicing, with no date library per field; the zone abbreviation is
 * computed once per zone and offset. Descriptions and excerpts go through the service's own paragraph formatter
 * (src/content/html.ts, wpautop with its cache of formatted texts): the same bytes need the same work there. Password-protected venues and organizers (rare) go through the service's own
 * serializers.
 */
import { formattedContent, htmlSafeJson } from '../src/content/html.js';
import type { SiteCurrency } from '../src/config.js';
import { costValues, formattedCost } from '../src/graphql/events/columns.js';
import { extensionOf } from '../src/images/facts.js';
import type { RestOrganizerFragment, RestVenueFragment, PostStatus } from '../src/read/operations/generated/graphql.js';
import { lockedOrganizerToTec, lockedVenueToTec } from '../src/read/serialize.js';
import type { RestUrls } from '../src/urls.js';
import { fromWallClock, timeZoneAbbreviation } from '../src/time/dates.js';

export type Row = Record<string, unknown>;

const HTML_SIGNIFICANT = /[<>&\u2028\u2029]/;
const HTML_SIGNIFICANT_ALL = /[<>&\u2028\u2029]/g;

/** A JSON string literal, HTML-safe as htmlSafeJson writes it. */
function str(value: unknown): string {
  const json = JSON.stringify(String(value));
  return HTML_SIGNIFICANT.test(json)
    ? json.replace(HTML_SIGNIFICANT_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : json;
}

const bool = (value: unknown) => (value === 1 ? 'true' : 'false');

/** `2026-11-25T10:00:00.000+00:00` (a stored UTC instant) → `2026-11-25 10:00:00`. */
const utcWallClock = (instant: unknown) => `${(instant as string).slice(0, 10)} ${(instant as string).slice(11, 19)}`;

/** TEC's `*_details` of a `YYYY-MM-DD HH:MM:SS` wall clock, from string slices. */
function details(wall: string): string {
  return (
    `{"year":"${wall.slice(0, 4)}","month":"${wall.slice(5, 7)}","day":"${wall.slice(8, 10)}",` +
    `"hour":"${wall.slice(11, 13)}","minutes":"${wall.slice(14, 16)}","seconds":"${wall.slice(17, 19)}"}`
  );
}

/** The image object, or `false`: the extension as the GraphQL image type answers it, then the facts kept (if any). */
function image(row: Record<string, unknown>): string {
  if (row.imageId == null) return 'false';
  const extension = extensionOf(String(row.imageUrl), (row.imageMime as string | null) ?? null);
  const facts = (['width', 'height', 'filesize'] as const)
    .map((key) => [key, row[`image${key[0]!.toUpperCase()}${key.slice(1)}`]] as const)
    .filter(([, value]) => value != null && value !== 0)
    .map(([key, value]) => `,"${key}":${value}`)
    .join('');
  return `{"url":${str(row.imageUrl)},"id":${row.imageId}${extension ? `,"extension":${str(extension)}` : ''}${facts}}`;
}

/** A key and value unless the value is one TEC drops from venues and organizers (`""`, `"0"`, null). */
const kept = (key: string, value: unknown) =>
  value === '' || value === '0' || value == null ? '' : `,"${key}":${str(value)}`;

export interface FloorJson {
  events(
    rows: Row[],
    relations: { venues: Map<number, Row[]>; organizers: Map<number, Row[]>; terms: Map<number, Row[]> },
  ): string;
}

export function floorJson(urls: RestUrls, currency: SiteCurrency): FloorJson {
  const globalIds = (id: unknown) => {
    const value = str(`${urls.globalIdBase}?id=${id}`);
    return `"global_id":${value},"global_id_lineage":[${value}]`;
  };
  const postDates = (row: Row) =>
    `"date":${str(row.publishedLocal)},"date_utc":"${utcWallClock(row.publishedAt)}","modified":${str(row.modifiedLocal)},"modified_utc":"${utcWallClock(row.modifiedAt)}"`;
  const page = (type: string, slug: unknown) => str(`${urls.site}/${type}/${slug}/`);

  const abbreviations = new Map<string, string>();
  /** The zone's abbreviation at the event's start: one ICU lookup per zone and offset (read off the stored columns). */
  const abbreviation = (row: Row) => {
    const offset = Date.parse(`${(row.startLocal as string).replace(' ', 'T')}Z`) - Date.parse(row.startsAt as string);
    const key = `${row.timezone}|${offset}`;
    let name = abbreviations.get(key);
    if (name === undefined) {
      name = timeZoneAbbreviation(fromWallClock(row.startLocal as string, row.timezone as string));
      abbreviations.set(key, name);
    }
    return name;
  };

  function term(row: Row): string {
    const category = row.taxonomy === 'category';
    const route = category ? 'categories' : 'tags';
    const parent = category ? ((row.parentId as number | null) ?? 0) : 0;
    return (
      `{"name":${str(row.name)},"slug":${str(row.slug)},"term_group":0,"term_taxonomy_id":${row.id},` +
      `"taxonomy":"${category ? 'tribe_events_cat' : 'post_tag'}","description":${str(row.description)},"parent":${parent},` +
      `"count":${row.eventCount},"filter":"raw","id":${row.id},"urls":{"self":${str(`${urls.api}/${route}/${row.id}`)},` +
      `"collection":${str(`${urls.api}/${route}`)}${parent ? `,"up":${str(`${urls.api}/${route}/${parent}`)}` : ''}}}`
    );
  }

  function venue(row: Row): string {
    if (row.password !== '') return htmlSafeJson(lockedVenueToTec(urls, lockedVenue(row)));
    const authorKept = row.authorId != null && row.authorId !== 0;
    const geo =
      row.latitude != null && row.longitude != null ? `,"geo_lat":${row.latitude},"geo_lng":${row.longitude}` : '';
    return (
      `{"id":${row.id}${authorKept ? `,"author":"${row.authorId}"` : ''},"status":${str(row.status)},${postDates(row)},"url":${page('venue', row.slug)}` +
      `${kept('venue', row.name)}${kept('description', formattedContent(row.description as string))}${kept('excerpt', formattedContent(row.excerpt as string))}${kept('slug', row.slug)}` +
      `${row.imageId == null ? '' : `,"image":${image(row)}`}` +
      `${kept('address', row.address)}${kept('city', row.city)}${kept('country', row.country)}${kept('province', row.province)}` +
      `${kept('state', row.state)}${kept('zip', row.zip)}${kept('phone', row.phone)}${kept('website', row.website)}${kept('stateprovince', row.stateProvince)}` +
      `${geo},"show_map":${bool(row.showMap)},"show_map_link":${bool(row.showMapLink)},${globalIds(row.id)}}`
    );
  }

  function organizer(row: Row): string {
    if (row.password !== '') return htmlSafeJson(lockedOrganizerToTec(urls, lockedOrganizer(row)));
    const authorKept = row.authorId != null && row.authorId !== 0;
    return (
      `{"id":${row.id}${authorKept ? `,"author":"${row.authorId}"` : ''},"status":${str(row.status)},${postDates(row)},"url":${page('organizer', row.slug)}` +
      `${kept('organizer', row.name)}${kept('description', formattedContent(row.description as string))}${kept('excerpt', formattedContent(row.excerpt as string))}${kept('slug', row.slug)}` +
      `${row.imageId == null ? '' : `,"image":${image(row)}`}` +
      `${kept('phone', row.phone)}${kept('website', row.website)}${kept('email', row.email)},${globalIds(row.id)}}`
    );
  }

  function event(row: Row, venues: Row[], organizers: Row[], terms: Row[]): string {
    const locked = row.password !== '';
    const url = page('event', row.slug);
    const start = row.startLocal as string;
    const end = row.endLocal as string;
    const utcStart = utcWallClock(row.startsAt);
    const utcEnd = utcWallClock(row.endsAt);
    const head =
      `{"id":${row.id},${globalIds(row.id)},"author":"${row.authorId ?? 0}","status":${str(row.status)},${postDates(row)},` +
      `"url":${url},"rest_url":${str(`${urls.api}/events/${row.id}`)},"title":${str(row.title)}`;
    const dates =
      `"start_date":"${start}","start_date_details":${details(start)},"end_date":"${end}","end_date_details":${details(end)},` +
      `"utc_start_date":"${utcStart}","utc_start_date_details":${details(utcStart)},"utc_end_date":"${utcEnd}","utc_end_date_details":${details(utcEnd)},` +
      `"timezone":${str(row.timezone)},"timezone_abbr":${str(abbreviation(row))}`;
    // Listed rows are events on their own or occurrences: neither carries recurrence lines (series masters are not listed).
    const series = (row: Row) =>
      `"recurrence":[]${row.recurringEventId == null ? '' : `,"recurring_event_id":${row.recurringEventId},"original_start_date":${str(row.originalStartLocal as string)}`}`;
    if (locked) {
      return (
        `${head},"description":"","excerpt":"","slug":${str(row.slug)},"image":false,"all_day":null,${dates},"cost":"",` +
        `"cost_details":{"currency_symbol":"","currency_code":"","currency_position":"","values":[]},"website":"","show_map":null,` +
        `"show_map_link":null,"hide_from_listings":null,"sticky":null,"featured":null,"categories":[],"tags":[],"venue":[],` +
        `"organizer":[],"custom_fields":[],"ticketed":null,${series(row)}}`
      );
    }
    const cost = row.cost as string;
    const values = costValues(cost);
    const costDetails = {
      currencySymbol: row.currencySymbol as string,
      currencyCode: row.currencyCode as string,
      currencyPosition: row.currencyPosition as string,
      values,
    };
    const venueJson = venues.map(venue);
    const categories: string[] = [];
    const tags: string[] = [];
    for (const link of terms) (link.taxonomy === 'category' ? categories : tags).push(term(link));
    return (
      `${head},"description":${str(formattedContent(row.description as string))},"excerpt":${str(formattedContent(row.excerpt as string))},"slug":${str(row.slug)},` +
      `"image":${image(row)},"all_day":${bool(row.allDay)},${dates},"cost":${str(formattedCost(cost, costDetails, currency))},` +
      `"cost_details":{"currency_symbol":${str(costDetails.currencySymbol)},"currency_code":${str(costDetails.currencyCode)},` +
      `"currency_position":${str(costDetails.currencyPosition)},"values":[${values.map(str).join(',')}]},` +
      `"website":${row.website ? str(row.website) : url},"show_map":${bool(row.showMap)},"show_map_link":${bool(row.showMapLink)},` +
      `"hide_from_listings":${bool(row.hideFromListings)},"sticky":${bool(row.sticky)},"featured":${bool(row.featured)},` +
      `"categories":[${categories.join(',')}],"tags":[${tags.join(',')}],` +
      `"venue":${venueJson.length === 1 ? venueJson[0] : `[${venueJson.join(',')}]`},"organizer":[${organizers.map(organizer).join(',')}],` +
      `"custom_fields":[],"ticketed":${bool(row.ticketed)},${series(row)}}`
    );
  }

  return {
    events(rows, relations) {
      const none: Row[] = [];
      return `[${rows
        .map((row) => {
          const id = row.id as number;
          return event(
            row,
            relations.venues.get(id) ?? none,
            relations.organizers.get(id) ?? none,
            relations.terms.get(id) ?? none,
          );
        })
        .join(',')}]`;
    },
  };
}

const post = (row: Row) => ({
  id: row.id as number,
  authorId: row.authorId as number | null,
  status: (row.status as string).toUpperCase() as PostStatus,
  publishedLocal: row.publishedLocal as string,
  publishedAt: row.publishedAt as string,
  modifiedLocal: row.modifiedLocal as string,
  modifiedAt: row.modifiedAt as string,
  name: row.name as string,
  slug: row.slug as string,
  hasPassword: true,
  isLocked: true,
});

/** A protected venue as GraphQL gives it to a reader without the password: the protected fields withheld. */
function lockedVenue(row: Row): RestVenueFragment {
  return {
    ...post(row),
    description: '',
    excerpt: '',
    address: '',
    city: '',
    country: '',
    province: '',
    state: row.state as string,
    zip: '',
    phone: '',
    website: '',
    stateProvince: '',
    latitude: null,
    longitude: null,
    showMap: row.showMap === 1,
    showMapLink: row.showMapLink === 1,
    image: null,
  };
}

function lockedOrganizer(row: Row): RestOrganizerFragment {
  return { ...post(row), description: '', excerpt: '', phone: '', website: '', email: '', image: null };
}
