import { DateTime } from 'luxon';
import type { Context } from '../graphql/builder.js';
import type { EventsFilter, RestEventFragment } from '../read/operations/generated/graphql.js';
import { PageRefusal } from './data.js';
import { dayHeading } from './dates.js';
import {
  EVENTS_PER_PAGE,
  eventList,
  eventListItem,
  eventsPage,
  pager,
  readPageNumber,
  upcoming,
} from './event-list.js';
import { html, type Html } from './html.js';
import { pageDocument } from './layout.js';
import type { SitePaths } from './paths.js';

/** A month view shows up to this many events a page (the events connection's largest page). */
const EVENTS_PER_MONTH_PAGE = 100;
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

interface ListQuery {
  page: number;
  /** `YYYY-MM`: the month view; left out, the upcoming events. */
  month?: string;
}

function readListQuery(url: URL): ListQuery {
  const month = url.searchParams.get('month') ?? undefined;
  if (month !== undefined && !MONTH.test(month))
    throw new PageRefusal(400, 'Bad request', '`month` must be a month such as 2030-01.');
  return { page: readPageNumber(url), month };
}

/** Links to the pages before and after this one, the month kept. */
function listPager(paths: SitePaths, query: ListQuery, pages: number, labels: [string, string]): Html {
  return pager(
    (page) =>
      paths.eventsList({ ...(query.month ? { month: query.month } : {}), ...(page > 1 ? { page: String(page) } : {}) }),
    query.page,
    pages,
    labels,
  );
}

async function upcomingPage(paths: SitePaths, query: ListQuery, context: Context): Promise<string> {
  const { events, total } = await eventsPage(upcoming(context), query.page, context);
  const thisMonth = DateTime.fromJSDate(context.now(), { zone: context.config.siteTimezone }).toFormat('yyyy-MM');
  return pageDocument(paths, {
    title: 'Upcoming events',
    body: html`<h1>Upcoming events</h1>
<p><a href="${paths.eventsList({ month: thisMonth })}">Month view</a></p>
${eventList(paths, events)}
${listPager(paths, query, Math.ceil(total / EVENTS_PER_PAGE), ['Earlier events', 'Later events'])}`,
  });
}

/** Events starting in the month, as days of each event's own zone. */
function monthFilter(month: DateTime): EventsFilter {
  return { startsAfter: month.minus({ days: 1 }).toISODate()!, startsBefore: month.endOf('month').toISODate()! };
}

function byDay(events: RestEventFragment[]): Map<string, RestEventFragment[]> {
  const days = new Map<string, RestEventFragment[]>();
  for (const event of events) {
    const day = event.startsAtLocal.slice(0, 10);
    days.set(day, [...(days.get(day) ?? []), event]);
  }
  return days;
}

async function monthPage(paths: SitePaths, query: ListQuery, month: string, context: Context): Promise<string> {
  const first = DateTime.fromFormat(month, 'yyyy-MM', { zone: 'UTC' });
  const { events, total } = await eventsPage(monthFilter(first), query.page, context, EVENTS_PER_MONTH_PAGE);
  const title = `Events in ${first.setLocale('en-GB').toFormat('LLLL yyyy')}`;
  const days = [...byDay(events)];
  return pageDocument(paths, {
    title,
    body: html`<h1>${title}</h1>
<p class="pager"><a href="${paths.eventsList({ month: first.minus({ months: 1 }).toFormat('yyyy-MM') })}">Previous month</a>
<a href="${paths.eventsList({ month: first.plus({ months: 1 }).toFormat('yyyy-MM') })}">Next month</a></p>
${days.length ? days.map(([day, dayEvents]) => html`<h2 class="day">${dayHeading(day)}</h2><ol class="events">${dayEvents.map((event) => eventListItem(paths, event))}</ol>`) : html`<p>No events this month.</p>`}
${listPager(paths, query, Math.ceil(total / EVENTS_PER_MONTH_PAGE), ['Previous page', 'Next page'])}`,
  });
}

/** `/events/`: the upcoming events a page at a time (`?page=`), or one month's grouped by day (`?month=YYYY-MM`). */
export function eventsListPage(url: URL, context: Context, paths: SitePaths): Promise<string> {
  const query = readListQuery(url);
  return query.month ? monthPage(paths, query, query.month, context) : upcomingPage(paths, query, context);
}
