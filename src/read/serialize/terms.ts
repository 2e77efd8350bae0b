import type { RestCategoryFragment, RestTagFragment } from '../operations/generated/graphql.js';
import type { RestUrls } from '../urls.js';

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
