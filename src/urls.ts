// The URLs the service writes: its records' public pages on the site (as WordPress's permalinks give them) and the
// routes of its REST API.
import type { Config } from './config.js';

/** The public page of a record on the site, as WordPress's permalinks for The Events Calendar's post types give it. */
export function pageUrl(siteUrl: string, postType: 'event' | 'venue' | 'organizer', slug: string): string {
  return `${siteUrl}/${postType}/${slug}/`;
}

/** Where a WordPress site with The Events Calendar shows the events of an event category and of a tag. */
export const TERM_ARCHIVES = { category: 'events/category', tag: 'tag' } as const;
export type Taxonomy = keyof typeof TERM_ARCHIVES;

/** The public page of an event category or a tag: the events it holds. */
export function termPageUrl(siteUrl: string, taxonomy: Taxonomy, slug: string): string {
  return `${siteUrl}/${TERM_ARCHIVES[taxonomy]}/${slug}/`;
}

/** A record a public page shows: an event, venue or organizer by its slug, or a category's or tag's events. */
export type PageRecord =
  | { kind: 'event' | 'venue' | 'organizer'; slug: string }
  | { kind: 'term'; taxonomy: Taxonomy; slug: string };

const RECORD_PAGE = /^\/(event|venue|organizer)\/([^/]+)\/?$/;
const TERM_PAGE = new RegExp(`^/(${Object.values(TERM_ARCHIVES).join('|')})/([^/]+)/?$`);
const TAXONOMY_AT = new Map<string, Taxonomy>(
  Object.entries(TERM_ARCHIVES).map(([taxonomy, path]) => [path, taxonomy as Taxonomy]),
);

/** The slug in a path; `''` (no such record) when its percent-encoding is broken. */
function decodedSlug(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

/** The record whose page a path below SITE_URL is (`/event/<slug>/`, `/tag/<slug>/` …), or null. */
export function pageRecordOf(path: string): PageRecord | null {
  const term = TERM_PAGE.exec(path);
  if (term) return { kind: 'term', taxonomy: TAXONOMY_AT.get(term[1]!)!, slug: decodedSlug(term[2]!) };
  const match = RECORD_PAGE.exec(path);
  return match ? { kind: match[1] as 'event' | 'venue' | 'organizer', slug: decodedSlug(match[2]!) } : null;
}

/** The REST API's namespace below the REST root (TEC's own is `tribe/events/v1`, answered as an alias). */
export const NAMESPACE = 'calendar/events/v1';

/** Links in responses point at SITE_URL: permalinks for `url`, our canonical REST routes for `rest_url`. */
export interface RestUrls {
  site: string;
  /** `<site>/wp-json/`, the REST root. */
  root: string;
  /** `<site>/wp-json/calendar/events/v1` (no trailing slash). */
  api: string;
  /** Host (and path) of the site without scheme or port, the base of `global_id`. */
  globalIdBase: string;
}

export function restUrls(config: Config): RestUrls {
  const site = new URL(config.siteUrl);
  const path = site.pathname.replace(/\/+$/, '');
  return {
    site: config.siteUrl,
    root: `${config.siteUrl}/${config.restRoot}/`,
    api: `${config.siteUrl}/${config.restRoot}/${NAMESPACE}`,
    globalIdBase: `${site.hostname}${path}`,
  };
}

export function globalId(urls: RestUrls, id: number): string {
  return `${urls.globalIdBase}?id=${id}`;
}
