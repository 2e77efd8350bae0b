import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { NotFoundError } from '../errors.js';
import { offsetConnection } from '../shared/connections.js';
import { trashOrDelete } from '../shared/post-writes.js';
import { modifiedNow } from '../shared/posts.js';
import { EventsFilterInput, eventsWhere } from './filter.js';
import { checkEventInput, EventInput } from './input.js';
import { EventType } from './type.js';
import { insertEvent, updateEvent } from './write.js';

async function existingEvent(ctx: Context, id: number) {
  const event = await ctx.db.event.findUnique({ where: { id } });
  if (!event) throw new NotFoundError('Event', id);
  return event;
}

builder.queryFields((t) => ({
  event: t.prismaField({
    type: EventType,
    nullable: true,
    description: 'One event by ID, or null when there is none.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.db.event.findUnique({ ...query, where: { id: args.id } }),
  }),
  eventBySlug: t.prismaField({
    type: EventType,
    nullable: true,
    args: { slug: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.db.event.findUnique({ ...query, where: { slug: args.slug } }),
  }),
  events: t.connection({
    type: EventType,
    description: 'Events by start, then ID. Events hidden from listings are left out.',
    args: { filter: t.arg({ type: EventsFilterInput }) },
    resolve: async (_root, args, ctx, info) => {
      const where = await eventsWhere(ctx, args.filter ?? {});
      return offsetConnection(
        args,
        () => ctx.db.event.count({ where }),
        ({ offset, limit }) =>
          ctx.db.event.findMany({
            ...queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }),
            where,
            orderBy: [{ startsAt: 'asc' }, { id: 'asc' }],
            skip: offset,
            take: limit,
          }),
      );
    },
  }),
}));

builder.mutationFields((t) => ({
  createEvent: t.prismaField({
    type: EventType,
    args: { input: t.arg({ type: EventInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const checked = await checkEventInput(ctx, args.input, null);
      const id = await insertEvent(ctx, args.input, checked);
      return ctx.db.event.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  updateEvent: t.prismaField({
    type: EventType,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: EventInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const current = await existingEvent(ctx, args.id);
      const checked = await checkEventInput(ctx, args.input, current);
      await updateEvent(ctx, args.id, current.slug, args.input, checked);
      return ctx.db.event.findUniqueOrThrow({ ...query, where: { id: args.id } });
    },
  }),
  deleteEvent: t.prismaField({
    type: EventType,
    description: 'Moves the event to the trash, or deletes it for good with `force`.',
    args: { id: t.arg.int({ required: true }), force: t.arg.boolean({ defaultValue: false }) },
    resolve: async (query, _root, args, ctx) => {
      const current = await existingEvent(ctx, args.id);
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
