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
