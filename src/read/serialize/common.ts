// What the REST records' JSON shares: dates, authors, global IDs, images, statuses, and the terms (categories and tags)
// embedded in an event and on their own routes.
import { DateTime } from 'luxon';
import type {
  PostStatus,
  RestCategoryFragment,
  RestImageFragment,
  RestTagFragment,
} from '../operations/generated/graphql.js';
import { globalId, type RestUrls } from '../../urls.js';

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
 * TEC's image object (§2.5) with the fields this service knows, in its order; like TEC it drops empty keys (an image
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
const ARCHIVE_PATH: Record<TaxonomyRoute, string> = { categories: 'events/category', tags: 'tag' };

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
    url: `${urls.site}/${ARCHIVE_PATH[route]}/${term.slug}/`,
    urls: termUrls(urls, route, term),
  };
}
