import type { Context } from '../graphql/builder.js';
import {
  RestEventListDocument,
  type EventsFilter,
  type RestEventFragment,
} from '../read/operations/generated/graphql.js';
import { pageVariables } from '../graphql/shared/connections.js';
import { runPageQuery } from './data.js';
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
