import { listVisibility, readableWhere } from '../access.js';
import type { Context } from '../builder.js';
import { FieldErrors, InputError } from '../errors.js';
import { referencedIds } from './node.js';
import type { PostStatusValue } from './posts.js';

/** Filters venues and organizers share: the link table is `events` on both models. */
export interface LinkedPostFilter {
  search?: string | null;
  eventId?: string | number | null;
  /** Deprecated in the schema for `eventId`; the event's database ID once checked. */
  event?: number | null;
  hasEvents?: boolean | null;
  onlyWithUpcoming?: boolean | null;
  statuses?: PostStatusValue[] | null;
}

/** Statuses of an event that count as "having events" (WordPress leaves out drafts and pending ones). */
const LIVE_EVENT_STATUSES: PostStatusValue[] = ['publish', 'future', 'private'];

/** Checks the filter; answers it with `event` the database ID that `eventId` or `event` named. */
export async function checkLinkedPostFilter<Filter extends LinkedPostFilter>(
  ctx: Context,
  filter: Filter,
): Promise<Filter> {
  const errors = new FieldErrors();
  if (filter.search !== undefined && filter.search !== null && filter.search.trim() === '')
    errors.add('search', 'must not be empty');
  const [event] = referencedIds(errors, 'Event', 'eventId', filter.eventId, 'event', filter.event) ?? [];
  errors.throwIfAny();
  if (event != null && !(await ctx.db.event.findUnique({ where: { id: event }, select: { id: true } })))
    errors.add(filter.eventId != null ? 'eventId' : 'event', `no event with ID ${event}`);
  errors.throwIfAny();
  return { ...filter, event };
}

/** The conditions on the link table and status, as a Prisma `where` fragment for Venue or Organizer. */
export function linkedPostConditions(ctx: Context, filter: LinkedPostFilter) {
  const { statuses, condition } = listVisibility(ctx, filter.statuses, 'statuses');
  const conditions: object[] = [{ status: { in: statuses } }, condition];
  if (filter.event != null) conditions.push({ events: { some: { eventId: filter.event } } });
  if (filter.hasEvents === true)
    conditions.push({ events: { some: { event: { status: { in: LIVE_EVENT_STATUSES } } } } });
  if (filter.hasEvents === false)
    conditions.push({ events: { none: { event: { status: { in: LIVE_EVENT_STATUSES } } } } });
  if (filter.onlyWithUpcoming) {
    // The statuses asked for are those of the venue or organizer; its events count as for hasEvents, and only those the
    // viewer may read: an upcoming private event must not tell a reader who may not see it that the venue is busy.
    const upcoming = { startsAt: { gte: ctx.now() }, status: { in: LIVE_EVENT_STATUSES } };
    conditions.push({ events: { some: { event: { AND: [upcoming, readableWhere(ctx)] } } } });
  }
  return conditions;
}

/**
 * Runs a check that reports on unprefixed field names (`date`) and adds what it reports to `errors` under the names
 * `field` gives them (`venues.0.date` when the venue comes nested in an event).
 */
export function withFieldNames<T>(
  errors: FieldErrors,
  field: (name: string) => string,
  check: (inner: FieldErrors) => T,
): T {
  const inner = new FieldErrors();
  const result = check(inner);
  try {
    inner.throwIfAny();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    for (const [name, message] of Object.entries(error.fields)) errors.add(field(name), message);
  }
  return result;
}
