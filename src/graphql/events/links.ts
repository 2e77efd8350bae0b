import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import type { Prisma } from '../../db/generated/prisma/client.js';
import { isLocked, listVisibility, readableLinkedPosts } from '../access.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { offsetConnection, type PageArgs } from '../shared/connections.js';
import { OrganizerType } from '../organizers/index.js';
import { VenueType } from '../venues/index.js';
import { EVENT_ORDER } from './order.js';
import { EventType } from './type.js';

// The fields that cross between events and their venues and organizers live here, so neither module imports the
// other.

// Each loads through the link table in the same planned query as its event (no N+1).
builder.prismaObjectFields(EventType, (t) => ({
  venues: t.field({
    type: [VenueType],
    description: 'Where the event happens: its venues that the viewer may read, in the order they were given.',
    select: (_args, _ctx, nested) => ({ venues: { select: { venue: nested(true) }, orderBy: [{ position: 'asc' }, { venueId: 'asc' }] } }),
    resolve: (event, _args, ctx) => (isLocked(ctx, event) ? [] : readableLinkedPosts(ctx, event.venues.map((link) => link.venue))),
  }),
  organizers: t.field({
    type: [OrganizerType],
    description: 'Who runs the event: its organizers that the viewer may read, in the order they were given.',
    select: (_args, _ctx, nested) => ({
      organizers: { select: { organizer: nested(true) }, orderBy: [{ position: 'asc' }, { organizerId: 'asc' }] },
    }),
    resolve: (event, _args, ctx) => (isLocked(ctx, event) ? [] : readableLinkedPosts(ctx, event.organizers.map((link) => link.organizer))),
  }),
}));

/** The events of one venue or organizer that a list would show this viewer (trash never), as a Relay connection. */
async function linkedEvents(ctx: Context, args: PageArgs, info: GraphQLResolveInfo, linked: Prisma.EventWhereInput) {
  const { statuses, condition } = listVisibility(ctx, undefined, 'events');
  const where: Prisma.EventWhereInput = { AND: [linked, { status: { in: statuses } }, condition] };
  return offsetConnection(
    args,
    () => ctx.db.event.count({ where }),
    ({ offset, limit }) =>
      ctx.db.event.findMany({ ...queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }), where, orderBy: EVENT_ORDER, skip: offset, take: limit }),
  );
}

builder.prismaObjectField(VenueType, 'events', (t) =>
  t.connection({
    type: EventType,
    description: 'Events held here that the viewer may see, by start.',
    resolve: (venue, args, ctx, info) => linkedEvents(ctx, args, info, { venues: { some: { venueId: venue.id } } }),
  },
  { description: 'A page of the events at a venue, with the number of all of them.' },
  { description: 'An event in a page of a venue’s events, with its cursor.' }),
);

builder.prismaObjectField(OrganizerType, 'events', (t) =>
  t.connection({
    type: EventType,
    description: 'Events this organizer runs that the viewer may see, by start.',
    resolve: (organizer, args, ctx, info) => linkedEvents(ctx, args, info, { organizers: { some: { organizerId: organizer.id } } }),
  },
  { description: 'A page of the events of an organizer, with the number of all of them.' },
  { description: 'An event in a page of an organizer’s events, with its cursor.' }),
);
