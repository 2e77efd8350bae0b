import { createHash } from 'node:crypto';
import { RestError } from '../errors.js';
import {
  RestEventIcalDocument,
  RestEventsIcalDocument,
  type RestEventsIcalQuery,
} from '../../read/operations/generated/graphql.js';
import { endpoint, READABLE, type RestCall, type RestReply, type RouteDefinition } from '../route.js';
import { assertShowable, eventFilterParams, eventPasswordParam, listErrors, listFilter, readErrors } from './events.js';
import { idPathParam, type ParamDeclaration } from '../params.js';

// iCalendar feeds (RFC 5545) of the events list and of one event: the same parameters, operations and visibility
// as their JSON routes, answered with the GraphQL `ical` fields.

const ICAL_MEDIA_TYPE = 'text/calendar; charset=utf-8';

type ICalendar = RestEventsIcalQuery['events']['ical'];

/**
 * A strong ETag of the feed's bytes and the parameters that chose them (so two filters never share one). The feed's
 * bytes change with anything it renders, linked venues, organizers and category names included.
 */
function entityTag(call: RestCall<ParamDeclaration>, text: string): string {
  const params = call.params as Record<string, unknown>;
  const chosen = [...call.sent]
    .filter((name) => name !== 'password')
    .sort()
    .map((name) => [name, params[name]]);
  return `"${createHash('sha256').update(JSON.stringify(chosen)).update('\n').update(text).digest('base64url')}"`;
}

/** The feed with its validators; subscribers revalidate every time (Cache-Control no-cache), which a 304 makes cheap. */
function feedReply<D extends ParamDeclaration>(
  call: RestCall<D>,
  ical: ICalendar,
  headers: Record<string, string> = {},
): RestReply {
  return {
    body: ical.text,
    contentType: ICAL_MEDIA_TYPE,
    headers: {
      ETag: entityTag(call, ical.text),
      ...(ical.lastModified ? { 'Last-Modified': new Date(ical.lastModified).toUTCString() } : {}),
      ...headers,
    },
  };
}

async function eventsFeed(call: RestCall<typeof eventFilterParams>): Promise<RestReply> {
  // A subscription naming a category or tag that no longer exists gets fewer (or no) events, not an error that
  // calendar applications would show as a broken subscription.
  const filter = { ...listFilter(call), unknownTermsMatchNothing: true };
  const data = await call.run(RestEventsIcalDocument, { filter, password: call.params.password }, listErrors);
  return feedReply(call, data.events.ical, { 'X-TEC-Total': String(data.events.totalCount) });
}

const eventFeedParams = { id: idPathParam, password: eventPasswordParam };

async function eventFeed(call: RestCall<typeof eventFeedParams>): Promise<RestReply> {
  const id = call.params.id!;
  const data = await call.run(RestEventIcalDocument, { id, password: call.params.password }, readErrors);
  if (!data.event) throw RestError.of('rest-event-not-found', {}, id);
  assertShowable(data.event);
  return feedReply(call, data.event.ical);
}

// A WordPress route pattern is a regular expression; the unescaped `.` keeps it readable as the documented path.
export const icalRoutes: RouteDefinition[] = [
  {
    pattern: '/events.ics',
    endpoints: [
      endpoint({ methods: READABLE, mediaType: ICAL_MEDIA_TYPE, params: eventFilterParams, handle: eventsFeed }),
    ],
  },
  {
    pattern: '/events/(?P<id>\\d+).ics',
    endpoints: [
      endpoint({ methods: READABLE, mediaType: ICAL_MEDIA_TYPE, params: eventFeedParams, handle: eventFeed }),
    ],
  },
];
