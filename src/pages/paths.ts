import type { Config } from '../config.js';
import { NAMESPACE, pageUrl, TERM_ARCHIVES, type Taxonomy, termPageUrl } from '../urls.js';

export type PostType = 'event' | 'venue' | 'organizer';

/** The path of the events list, TEC's archive of events. */
export const EVENTS_LIST = 'events';

/**
 * Where the public pages are, as links inside them: paths below SITE_URL's own path (so they work whatever host the
 * browser reached the service at), plus the absolute page URLs the API gives as `url`.
 */
export interface SitePaths {
  /** SITE_URL's path without its trailing slash (`''` at the root, `/calendar` below it). */
  base: string;
  page(type: PostType, slug: string): string;
  absolutePage(type: PostType, slug: string): string;
  termPage(taxonomy: Taxonomy, slug: string): string;
  absoluteTermPage(taxonomy: Taxonomy, slug: string): string;
  eventsList(query?: Record<string, string>): string;
  eventIcs(id: number): string;
}

export function sitePaths(config: Config): SitePaths {
  const base = new URL(config.siteUrl).pathname.replace(/\/+$/, '');
  return {
    base,
    page: (type, slug) => `${base}/${type}/${encodeURIComponent(slug)}/`,
    absolutePage: (type, slug) => pageUrl(config.siteUrl, type, slug),
    termPage: (taxonomy, slug) => `${base}/${TERM_ARCHIVES[taxonomy]}/${encodeURIComponent(slug)}/`,
    absoluteTermPage: (taxonomy, slug) => termPageUrl(config.siteUrl, taxonomy, slug),
    eventsList: (query = {}) => {
      const search = new URLSearchParams(query).toString();
      return `${base}/${EVENTS_LIST}/${search ? `?${search}` : ''}`;
    },
    eventIcs: (id) => `${base}/${config.restRoot}/${NAMESPACE}/events/${id}.ics`,
  };
}

/**
 * The page path a request addresses, SITE_URL's path taken off when the request carries it (a proxy in front may
 * pass it on or strip it, as for the REST API, which is answered at the root).
 */
export function pagePathOf(pathname: string, base: string): string {
  return base && pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : pathname;
}
