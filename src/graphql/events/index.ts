import { queryFromInfo } from '@pothos/plugin-prisma';
import { VersionedMemo } from '../../db/data-version.js';
import { assertReadable, offerPassword } from '../access.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { NotFoundError } from '../errors.js';
import { offsetConnection } from '../shared/connections.js';
import { authorizeCreate, authorizeDelete, authorizeUpdate, authorizeMissing } from '../shared/post-permissions.js';
import { trashOrDelete } from '../shared/post-writes.js';
import { modifiedNow } from '../shared/posts.js';
import { EventsFilterInput, eventsWhere } from './filter.js';
import { eventsCalendar, EVENTS_ICAL_DESCRIPTION, ICalendarType } from './ical.js';
import { checkEventInput, EventInput } from './input.js';
import { EventType } from './type.js';
import { insertEvent, updateEvent } from './write.js';

/** The event a write addresses. Callers who may not write records are refused before they learn whether it exists. */
async function existingEvent(ctx: Context, id: number) {
  const event = await ctx.db.event.findUnique({ where: { id } });
  if (!event) {
    authorizeMissing(ctx);
    throw new NotFoundError('Event', id);
  }
  return event;
}

/** List totals by filter: counting a wide window is the costliest part of a list, and is redone only after writes. */
const listCounts = new VersionedMemo<number>(1000);

/** The events list's order, which its iCalendar feed keeps. */
const EVENT_ORDER = [{ startsAt: 'asc' as const }, { id: 'asc' as const }];

const passwordArg = 'The password of a password-protected event; with it, its content is shown.';

builder.queryFields((t) => ({
  event: t.prismaField({
    type: EventType,
    nullable: true,
    description: 'One event by ID, or null when there is none.',
    args: { id: t.arg.int({ required: true }), password: t.arg.string({ description: passwordArg }) },
    resolve: async (query, _root, args, ctx) => {
      offerPassword(ctx, args.password);
      const event = await ctx.db.event.findUnique({ ...query, where: { id: args.id } });
      if (event) assertReadable(ctx, event);
      return event;
    },
  }),
  eventBySlug: t.prismaField({
    type: EventType,
    nullable: true,
    args: { slug: t.arg.string({ required: true }), password: t.arg.string({ description: passwordArg }) },
    resolve: async (query, _root, args, ctx) => {
      offerPassword(ctx, args.password);
      const event = await ctx.db.event.findUnique({ ...query, where: { slug: args.slug } });
      if (event) assertReadable(ctx, event);
      return event;
    },
  }),
  events: t.connection({
    type: EventType,
    description: 'Events by start, then ID. Events hidden from listings are left out.',
    args: { filter: t.arg({ type: EventsFilterInput }), password: t.arg.string({ description: passwordArg }) },
    resolve: async (_root, args, ctx, info) => {
      offerPassword(ctx, args.password);
      const where = await eventsWhere(ctx, args.filter ?? {});
      const connection = await offsetConnection(
        args,
        async () => listCounts.get(JSON.stringify(where), await ctx.dataVersion(), () => ctx.db.event.count({ where })),
        ({ offset, limit }) =>
          ctx.db.event.findMany({
            ...queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }),
            where,
            orderBy: EVENT_ORDER,
            skip: offset,
            take: limit,
          }),
      );
      return { ...connection, list: { where, orderBy: EVENT_ORDER } };
    },
  }, {
    fields: (c) => ({
      ical: c.field({ type: ICalendarType, description: EVENTS_ICAL_DESCRIPTION, resolve: (connection, _args, ctx) => eventsCalendar(ctx, connection.list) }),
    }),
  }),
}));

builder.mutationFields((t) => ({
  createEvent: t.prismaField({
    type: EventType,
    args: { input: t.arg({ type: EventInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const checked = await checkEventInput(ctx, args.input, null);
      const stamp = authorizeCreate(ctx, args.input);
      const id = await insertEvent(ctx, args.input, { ...checked, columns: { ...checked.columns, ...stamp } });
      return ctx.db.event.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  updateEvent: t.prismaField({
    type: EventType,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: EventInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const current = await existingEvent(ctx, args.id);
      const checked = await checkEventInput(ctx, args.input, current);
      const { status: _requested, ...columns } = checked.columns;
      const allowed = authorizeUpdate(ctx, current, args.input);
      await updateEvent(ctx, args.id, current.slug, args.input, { ...checked, columns: { ...columns, ...allowed } });
      return ctx.db.event.findUniqueOrThrow({ ...query, where: { id: args.id } });
    },
  }),
  deleteEvent: t.prismaField({
    type: EventType,
    description: 'Moves the event to the trash, or deletes it for good with `force`.',
    args: { id: t.arg.int({ required: true }), force: t.arg.boolean({ defaultValue: false }) },
    resolve: async (query, _root, args, ctx) => {
      const current = await existingEvent(ctx, args.id);
      authorizeDelete(ctx, current);
      return trashOrDelete({
        recordType: 'Event',
        id: args.id,
        status: current.status,
        force: args.force ?? false,
        snapshot: () => ctx.db.event.findUniqueOrThrow({ ...query, where: { id: args.id } }),
        remove: () => ctx.db.event.delete({ where: { id: args.id } }),
        trash: () => ctx.db.event.update({ ...query, where: { id: args.id }, data: { status: 'trash', ...modifiedNow(ctx) } }),
      });
    },
  }),
}));
