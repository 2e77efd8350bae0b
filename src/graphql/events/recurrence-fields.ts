import { queryFromInfo } from '@pothos/plugin-prisma';
import type { Prisma } from '../../db/generated/prisma/client.js';
import { builder, type Context } from '../builder.js';
import { offsetConnection } from '../shared/connections.js';
import { eventsWhere, windowReach, type EventsFilter } from './filter.js';
import { recurrenceLines } from './columns.js';
import { defaultReach } from './series.js';
import { extendSeriesFor } from './series-sync.js';
import { EventType } from './type.js';

/**
 * Before a list reads occurrences: every series is materialised as far as the list's window reaches, and at least to
 * the horizon (RECURRENCE_HORIZON_DAYS from now), or the list is refused with a retryable 503 (extendSeriesFor).
 */
export async function materialiseForList(ctx: Context, filter: EventsFilter) {
  if (filter.expandRecurring === false) return;
  const horizon = defaultReach(ctx);
  const window = windowReach(ctx, filter);
  await extendSeriesFor(ctx, window && window > horizon ? window : horizon);
}

builder.prismaObjectFields(EventType, (t) => ({
  recurrence: t.stringList({
    description:
      'A series master’s RFC 5545 recurrence lines (`RRULE:…`, `EXDATE…`, `RDATE…`), as Google Calendar shows them; ' +
      'empty for an event on its own and for an occurrence (see `series`).',
    resolve: (event) => recurrenceLines(event.recurrence),
  }),
  recurringEventId: t.exposeInt('recurringEventId', {
    nullable: true,
    description:
      'For an occurrence of a recurring series: the database ID of the series (its master event); null otherwise.',
  }),
  series: t.relation('series', {
    nullable: true,
    description:
      'For an occurrence of a recurring series: the series (its master event, with `recurrence`); null otherwise.',
  }),
  originalStart: t.expose('originalStartsAt', {
    type: 'DateTime',
    nullable: true,
    description:
      'For an occurrence: its start as the series’ rule gave it (RFC 5545 RECURRENCE-ID), even after it was moved; null otherwise.',
  }),
  originalStartLocal: t.expose('originalStartLocal', {
    type: 'WallClock',
    nullable: true,
    description:
      'For an occurrence: `originalStart` in the event’s time zone (REST `original_start_date`); null otherwise.',
  }),
  isException: t.exposeBoolean('detached', {
    description: 'For an occurrence: whether it was changed on its own, so that edits of the series leave it as it is.',
  }),
}));

builder.prismaObjectField(EventType, 'occurrences', (t) =>
  t.connection(
    {
      type: EventType,
      description:
        'The occurrences of the series this event is (or belongs to), by start; empty for an event on its own. Unbounded ' +
        'series have occurrences in any window: they are added as far as the window reaches.',
      args: {
        startDate: t.arg({
          type: 'DateInput',
          description: 'Occurrences starting on or after this day (whole days in the event’s zone).',
        }),
        endDate: t.arg({ type: 'DateInput', description: 'Occurrences ending on or before this day.' }),
      },
      resolve: async (event, args, ctx, info) => {
        const seriesId = event.recurrence !== '' ? event.id : event.recurringEventId;
        const filter: EventsFilter = { startDate: args.startDate, endDate: args.endDate };
        if (seriesId !== null) await materialiseForList(ctx, filter);
        const where: Prisma.EventWhereInput = {
          AND: [await eventsWhere(ctx, filter), { recurringEventId: seriesId ?? -1 }],
        };
        return offsetConnection(
          args,
          async () => (seriesId === null ? 0 : ctx.db.event.count({ where })),
          async ({ offset, limit }) =>
            seriesId === null
              ? []
              : ctx.db.event.findMany({
                  ...queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }),
                  where,
                  orderBy: [{ startsAt: 'asc' }, { id: 'asc' }],
                  skip: offset,
                  take: limit,
                }),
        );
      },
    },
    { description: 'A page of the occurrences of a recurring series, with their number.' },
    { description: 'An occurrence in a page, with its cursor.' },
  ),
);
