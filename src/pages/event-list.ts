import type { Context } from '../graphql/builder.js';
import {
  RestEventListDocument,
  type EventsFilter,
  type RestEventFragment,
} from '../read/operations/generated/graphql.js';
import { pageVariables } from '../graphql/shared/connections.js';
import { PageRefusal, runPageQuery } from './data.js';
import { eventWhen } from './dates.js';
import { html, type Html } from './html.js';
import type { SitePaths } from './paths.js';

/** Events a list page shows at once (the events connection gives at most 100). */
export const EVENTS_PER_PAGE = 20;

export interface EventsPage {
  events: RestEventFragment[];
  total: number;
}

/** A page of the events the viewer may see that match `filter`, in start order. */
export async function eventsPage(
  filter: EventsFilter,
  page: number,
  context: Context,
  perPage = EVENTS_PER_PAGE,
): Promise<EventsPage> {
  const data = await runPageQuery(RestEventListDocument, { filter, ...pageVariables(page, perPage) }, context);
  return { events: data.events.edges.map((edge) => edge.node), total: data.events.totalCount };
}

/** Events that have not ended yet at the request's time. */
export const upcoming = (context: Context): EventsFilter => ({
  endsAfter: context.now().toISOString(),
  strictDates: true,
});

/** One event in a list: its dates, its title linked to its page, and where. */
export function eventListItem(paths: SitePaths, event: RestEventFragment): Html {
  const venue = event.venues[0];
  return html`<li><span class="muted">${eventWhen(event)}</span><br>
<a href="${paths.page('event', event.slug)}">${event.title}</a>${venue ? html` <span class="muted">at ${venue.name}</span>` : null}</li>`;
}

export function eventList(paths: SitePaths, events: RestEventFragment[]): Html {
  return events.length
    ? html`<ol class="events">${events.map((event) => eventListItem(paths, event))}</ol>`
    : html`<p>No upcoming events.</p>`;
}

/** `?page=`: a whole number from 1 (1 when left out). */
export function readPageNumber(url: URL): number {
  const page = url.searchParams.get('page') ?? '1';
  if (!/^[1-9]\d{0,5}$/.test(page)) throw new PageRefusal(400, 'Bad request', '`page` must be a whole number from 1.');
  return Number(page);
}

/** Links to the pages before and after `page` of `pages`, at the addresses `href` gives. */
export function pager(href: (page: number) => string, page: number, pages: number, labels: [string, string]): Html {
  if (pages <= 1) return html``;
  const link = (to: number, label: string) => html`<a href="${href(to)}">${label}</a>`;
  return html`<p class="pager"><span>${page > 1 ? link(page - 1, labels[0]) : null}</span><span>${page < pages ? link(page + 1, labels[1]) : null}</span></p>`;
}
