// The events root fields: the list, one event by ID or slug, and the writes; and a series' recurrence fields with
// its occurrences, which, as every list, are materialised as far as the list reaches first.
import { queryFromInfo } from '@pothos/plugin-prisma';
import { assertReadable, offerPassword } from '../access.js';
import { builder, type Context } from '../builder.js';
import { NotFoundError } from '../errors.js';
import { offsetConnection, SortOrderEnum } from '../shared/connections.js';
import { databaseIdOf, registerNodeReader } from '../shared/node.js';
import { authorizeCreate, authorizeDelete, authorizeUpdate, authorizeMissing } from '../shared/post-permissions.js';
import { notInTrash, trashOrDelete } from '../shared/post-writes.js';
import { modifiedNow } from '../shared/posts.js';
import type { Prisma } from '../../db/generated/prisma/client.js';
import { recurrenceLines } from './columns.js';
import { EventOrderByEnum, type EventsFilter, EventsFilterInput, eventsWhere } from './filter.js';
import { listEvents, materialiseForList } from './list.js';
import { eventsCalendar, EVENTS_ICAL_DESCRIPTION, ICalendarType } from './ical.js';
import { fetchNewImages } from '../media/index.js';
import { checkEventInput, EventInput, newImagesOf } from './input.js';
import { EventType } from './type.js';
import { insertEvent, updateEvent, type AfterWrite } from './write.js';
import { excludeOccurrence, SERIES_TRANSACTION } from './series.js';
import { bringSeriesInLine, defaultReach, followSeriesTasks, markSeriesWritten } from './series-sync.js';
import { queueSeriesTrash, startSeriesDelete, withMoveSettled } from './series-tasks.js';
import { EventScopeEnum, SCOPE_DESCRIPTION, splitSeries } from './split.js';

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

/**
 * In the write's transaction of a series master: its occurrences are to follow it. They are brought in line after the
 * write commits, in short steps (src/graphql/events/series-sync.ts), which the request waits for.
 */
const markSeries =
  (ctx: Context): AfterWrite =>
  (tx, id) =>
    markSeriesWritten(tx, id, defaultReach(ctx));

/**
 * The event a write addresses. Callers who may not write records are refused before they learn whether it exists. An
 * occurrence a split is still moving to its new series is moved first (series-tasks.ts).
 */
async function existingEvent(ctx: Context, id: number) {
  const event = await ctx.db.event.findUnique({ where: { id } });
  if (!event) {
    authorizeMissing(ctx);
    throw new NotFoundError('Event', id);
  }
  return withMoveSettled(ctx, event);
}

const passwordArg = 'The password of a password-protected event; with it, its content is shown.';
const idArg = "The event's global ID or database ID.";

/** A single read with the viewer's visibility: null when there is none, refused when the viewer may not read it. */
async function readEvent(ctx: Context, query: object, where: { id: number } | { slug: string }) {
  const event = await ctx.db.event.findUnique({ ...query, where });
  if (event) assertReadable(ctx, event);
  return event;
}

registerNodeReader('Event', (ctx, id, query) => readEvent(ctx, query, { id }));

builder.queryFields((t) => ({
  event: t.prismaField({
    type: EventType,
    nullable: true,
    description: 'One event by ID, or null when there is none.',
    args: {
      id: t.arg.id({ required: true, description: idArg }),
      password: t.arg.string({ description: passwordArg }),
    },
    resolve: (query, _root, args, ctx) => {
      offerPassword(ctx, args.password);
      return readEvent(ctx, query, { id: databaseIdOf('Event', args.id, 'id') });
    },
  }),
  eventBySlug: t.prismaField({
    type: EventType,
    nullable: true,
    description: 'One event by slug, or null when there is none.',
    args: {
      slug: t.arg.string({ required: true, description: 'The event’s slug, as in its page URL (`/event/<slug>/`).' }),
      password: t.arg.string({ description: passwordArg }),
    },
    resolve: (query, _root, args, ctx) => {
      offerPassword(ctx, args.password);
      return readEvent(ctx, query, { slug: args.slug });
    },
  }),
  events: t.connection(
    {
      type: EventType,
      description:
        'Events by start, then ID, unless `orderBy` says otherwise. Events hidden from listings are left out.',
      args: {
        orderBy: t.arg({ type: EventOrderByEnum, description: 'What to sort by; START when left out.' }),
        order: t.arg({ type: SortOrderEnum, description: 'The direction; ASC when left out.' }),
        filter: t.arg({
          type: EventsFilterInput,
          description: 'Which events to list; without it, every event the viewer may see, from any date.',
        }),
        password: t.arg.string({ description: passwordArg }),
      },
      resolve: async (root, args, ctx, info) => {
        offerPassword(ctx, args.password);
        return listEvents(ctx, info, args, args.filter ?? {}, root);
      },
    },
    {
      description: 'A page of events, with the number of all that match and the iCalendar feed of the list.',
      fields: (c) => ({
        ical: c.field({
          type: ICalendarType,
          description: EVENTS_ICAL_DESCRIPTION,
          resolve: (connection, _args, ctx) => eventsCalendar(ctx, connection.list),
        }),
      }),
    },
    { description: 'An event in a page of the list, with its cursor.' },
  ),
}));

builder.mutationFields((t) => ({
  createEvent: t.prismaField({
    type: EventType,
    description: 'Creates an event, with new venues, organizers and terms it brings along.',
    args: {
      input: t.arg({
        type: EventInput,
        required: true,
        description: 'The new event: `title`, `startDate` and `endDate` are required.',
      }),
    },
    resolve: async (query, _root, args, ctx) => {
      const checked = await checkEventInput(ctx, args.input, null);
      const stamp = authorizeCreate(ctx, args.input);
      await fetchNewImages(ctx, newImagesOf(checked));
      const series = checked.columns.recurrence ? markSeries(ctx) : undefined;
      const id = await insertEvent(
        ctx,
        args.input,
        { ...checked, columns: { ...checked.columns, ...stamp } },
        { afterWrite: series },
      );
      if (series) await bringSeriesInLine(ctx, id);
      return ctx.db.event.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  updateEvent: t.prismaField({
    type: EventType,
    description: 'Changes an event; fields left out keep their value.',
    args: {
      id: t.arg.id({ required: true, description: idArg }),
      input: t.arg({
        type: EventInput,
        required: true,
        description: 'The fields to change; those left out keep their value.',
      }),
      scope: t.arg({ type: EventScopeEnum, description: SCOPE_DESCRIPTION }),
    },
    resolve: async (query, _root, args, ctx) => {
      let current = await existingEvent(ctx, databaseIdOf('Event', args.id, 'id'));
      const scope = args.scope ?? 'THIS';
      if (current.recurringEventId && scope === 'FOLLOWING') {
        authorizeUpdate(ctx, current, args.input);
        const id = await splitSeries(ctx, current, args.input);
        return ctx.db.event.findUniqueOrThrow({ ...query, where: { id } });
      }
      if (current.recurringEventId && scope === 'ALL') current = await existingEvent(ctx, current.recurringEventId);
      const id = current.id;
      const checked = await checkEventInput(ctx, args.input, current);
      const { status: _requested, ...columns } = checked.columns;
      const allowed = authorizeUpdate(ctx, current, args.input);
      await fetchNewImages(ctx, newImagesOf(checked));
      // An occurrence changed on its own is an exception: later series edits leave it as it is.
      const exception = current.recurringEventId ? { detached: true } : {};
      const series = current.recurrence !== '' || checked.columns.recurrence !== undefined;
      await updateEvent(
        ctx,
        id,
        current.slug,
        args.input,
        { ...checked, columns: { ...columns, ...allowed, ...exception } },
        { afterWrite: series ? markSeries(ctx) : undefined },
      );
      if (series) await bringSeriesInLine(ctx, id);
      return ctx.db.event.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  deleteEvent: t.prismaField({
    type: EventType,
    description: 'Moves the event to the trash, or deletes it for good with `force`.',
    args: {
      id: t.arg.id({ required: true, description: idArg }),
      force: t.arg.boolean({ defaultValue: false, description: 'Delete for good instead of moving to the trash.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const id = databaseIdOf('Event', args.id, 'id');
      const current = await existingEvent(ctx, id);
      authorizeDelete(ctx, current);
      if (current.recurringEventId) {
        const snapshot = await ctx.db.event.findUniqueOrThrow({ ...query, where: { id } });
        await ctx.db.$transaction((tx) => excludeOccurrence(tx, current), SERIES_TRANSACTION);
        return snapshot;
      }
      return trashOrDelete({
        recordType: 'Event',
        id,
        status: current.status,
        force: args.force ?? false,
        snapshot: () => ctx.db.event.findUniqueOrThrow({ ...query, where: { id } }),
        // A series: the master goes first, its occurrences follow in steps (series-tasks.ts).
        remove: async () => {
          const series =
            current.isSeriesMaster ||
            (await ctx.db.event.findFirst({ where: { recurringEventId: id }, select: { id: true } }));
          if (!series) return (await ctx.db.event.deleteMany({ where: { id } })).count;
          if (!(await startSeriesDelete(ctx.db, id))) return 0;
          await followSeriesTasks(ctx);
          return 1;
        },
        trash: async () => {
          const { count } = await ctx.db.$transaction(async (tx) => {
            const trashed = await tx.event.updateMany({
              where: notInTrash(id),
              data: { status: 'trash', ...modifiedNow(ctx) },
            });
            // A series goes to the trash with its occurrences.
            if (trashed.count) await queueSeriesTrash(tx, id);
            return trashed;
          });
          if (count) await followSeriesTasks(ctx);
          return count === 0 ? null : ctx.db.event.findUniqueOrThrow({ ...query, where: { id } });
        },
      });
    },
  }),
}));
