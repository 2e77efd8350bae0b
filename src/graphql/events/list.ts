import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import type { Prisma } from '../../db/generated/prisma/client.js';
import { filterColumns, noteRememberedRead } from '../../db/request-client.js';
import type { Context } from '../builder.js';
import { offsetConnection, type PageArgs, type SortOrder } from '../shared/connections.js';
import { eventOrder, type EventsFilter, eventsWhere, windowReach } from './filter.js';
import { defaultReach, extendSeriesFor, showsSeriesAsFarAsMade } from './series-sync.js';

// The events list as every field that lists events by a filter reads it: the root `events`, and a venue's or an
// organizer's `events` when asked with a filter or an order.

/**
 * Before a list reads occurrences: every series is materialised as far as the list's window reaches, and at least to
 * the horizon (RECURRENCE_HORIZON_DAYS from now), or the list is refused with a retryable 503 (extendSeriesFor).
 */
export async function materialiseForList(ctx: Context, filter: EventsFilter) {
  if (filter.expandRecurring === false) return;
  const horizon = defaultReach(ctx);
  const window = windowReach(ctx, filter);
  await extendSeriesFor(ctx, window && window > horizon ? window : horizon);
  if (window === null) await showsSeriesAsFarAsMade(ctx);
}

/**
 * A page of the events list for `filter` (and, when given, `linked`: only the events linked so), in the order the
 * arguments ask, with its total remembered while nothing it reads changes. The list's `where` and order come along,
 * for its iCalendar feed.
 */
export async function listEvents(
  ctx: Context,
  info: GraphQLResolveInfo,
  args: PageArgs & { orderBy?: string | null; order?: SortOrder | null },
  filter: EventsFilter,
  root?: unknown,
  linked?: Prisma.EventWhereInput,
) {
  await materialiseForList(ctx, filter);
  const filtered = await eventsWhere(ctx, filter);
  const where = linked ? { AND: [filtered, linked] } : filtered;
  const orderBy = eventOrder(args.orderBy, args.order);
  const connection = await offsetConnection(
    args,
    async () => {
      const count = () => ctx.db.event.count({ where });
      const key = `${ctx.config.databaseUrl} ${JSON.stringify(where)}`;
      // A list without an end shows occurrences that series upkeep adds without a change-log entry.
      const columns = ctx.facts.readsUnlogged ? null : filterColumns('Event', where);
      const total = await ctx.counts.get(key, 'event', columns, await ctx.dataVersion(), count);
      noteRememberedRead(ctx.db, 'Event', 'count', { where }, total);
      return total;
    },
    ({ offset, limit }) =>
      ctx.db.event.findMany({
        ...queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }),
        where,
        orderBy,
        skip: offset,
        take: limit,
      }),
    root,
  );
  return { ...connection, list: { where, orderBy } };
}
