import type { Context } from '../graphql/builder.js';
import {
  type EventsFilter,
  RestCategoryListDocument,
  RestTagListDocument,
} from '../read/operations/generated/graphql.js';
import type { Taxonomy } from '../urls.js';
import { PageRefusal, runPageQuery } from './data.js';
import { EVENTS_PER_PAGE, eventList, eventsPage, pager, readPageNumber, upcoming } from './event-list.js';
import { html } from './html.js';
import { pageDocument } from './layout.js';
import type { SitePaths } from './paths.js';

/** The term of a taxonomy with this slug, or a 404 page. */
async function termBySlug(taxonomy: Taxonomy, slug: string, context: Context) {
  // A term without events still has its page (WordPress answers an empty archive of a known term, not a 404).
  const variables = { slug, first: 1, hideEmpty: false };
  const terms =
    taxonomy === 'category'
      ? (await runPageQuery(RestCategoryListDocument, variables, context)).eventCategories
      : (await runPageQuery(RestTagListDocument, variables, context)).eventTags;
  const term = terms.edges[0]?.node;
  if (!term) throw PageRefusal.notFound();
  return term;
}

/**
 * `/events/category/<slug>/` and `/tag/<slug>/` (the `url` of a category and of a tag): the term's name and
 * description, and the upcoming events it holds, a page at a time (`?page=`).
 */
export async function termPage(
  taxonomy: Taxonomy,
  slug: string,
  url: URL,
  context: Context,
  paths: SitePaths,
): Promise<string> {
  const page = readPageNumber(url);
  const term = await termBySlug(taxonomy, slug, context);
  const filter: EventsFilter = {
    ...upcoming(context),
    ...(taxonomy === 'category' ? { categories: [String(term.id)] } : { tags: [String(term.id)] }),
  };
  const { events, total } = await eventsPage(filter, page, context);
  const noun = taxonomy === 'category' ? 'Category' : 'Tag';
  const href = (to: number) => `${paths.termPage(taxonomy, term.slug)}${to > 1 ? `?page=${to}` : ''}`;
  return pageDocument(paths, {
    title: `${noun}: ${term.name}`,
    canonical: paths.absoluteTermPage(taxonomy, term.slug),
    body: html`<h1>${term.name}</h1>
<p class="muted">${noun} · <a href="${paths.eventsList()}">All events</a></p>
${term.description ? html`<p class="description">${term.description}</p>` : null}
<section><h2>Upcoming events</h2>${eventList(paths, events)}</section>
${pager(href, page, Math.ceil(total / EVENTS_PER_PAGE), ['Earlier events', 'Later events'])}`,
  });
}
