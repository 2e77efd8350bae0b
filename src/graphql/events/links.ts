import { isLocked, listVisibility, readableLinkedPosts } from '../access.js';
import { builder, type Context } from '../builder.js';
import {
  connectionNodes,
  loadedConnection,
  nonEmptySelection,
  plannedRelation,
  type PageArgs,
} from '../shared/connections.js';
import { OrganizerType } from '../organizers/index.js';
import { VenueType } from '../venues/index.js';
import { EventType } from './type.js';

// The fields that cross between events and their venues and organizers live here, so neither module imports the
// other.

// Each loads through the link table in the same planned query as its event (no N+1).
builder.prismaObjectFields(EventType, (t) => ({
  venues: t.field({
    type: [VenueType],
    description: 'Where the event happens: its venues that the viewer may read, in the order they were given.',
    select: (_args, _ctx, nested) => ({
      venues: { select: { venue: nested(true) }, orderBy: [{ position: 'asc' }, { venueId: 'asc' }] },
    }),
    resolve: (event, _args, ctx) =>
      isLocked(ctx, event)
        ? []
        : readableLinkedPosts(
            ctx,
            event.venues.map((link) => link.venue),
          ),
  }),
  organizers: t.field({
    type: [OrganizerType],
    description: 'Who runs the event: its organizers that the viewer may read, in the order they were given.',
    select: (_args, _ctx, nested) => ({
      organizers: { select: { organizer: nested(true) }, orderBy: [{ position: 'asc' }, { organizerId: 'asc' }] },
    }),
    resolve: (event, _args, ctx) =>
      isLocked(ctx, event)
        ? []
        : readableLinkedPosts(
            ctx,
            event.organizers.map((link) => link.organizer),
          ),
  }),
}));

/** The link rows of one venue or organizer to the events a list would show this viewer (trash never). */
function linkedEventsWhere(ctx: Context) {
  const { statuses, condition } = listVisibility(ctx, undefined, 'events');
  // A recurring series shows as its occurrences, as in the events list.
  return { event: { AND: [{ status: { in: statuses } }, condition, { isSeriesMaster: false }] } };
}

const LINKED_EVENT_ORDER = [{ event: { startsAt: 'asc' as const } }, { eventId: 'asc' as const }];

/** The page of link rows (with the events' planned selection) and their count, for the parent's query. */
function linkedEventsSelect(args: PageArgs, ctx: Context, eventSelection: () => unknown) {
  const where = linkedEventsWhere(ctx);
  const page = plannedRelation(
    args,
    { select: { event: nonEmptySelection(eventSelection()) } },
    { where, orderBy: LINKED_EVENT_ORDER },
  );
  return {
    events: page,
    _count: { select: { events: { where } } },
  } as const;
}

/** What linkedEventsSelect loaded on the parent row. */
interface LoadedLinks {
  events: Array<{ event: unknown }>;
  _count: { events: number };
}

const linkedEventsConnection = (args: PageArgs, parent: LoadedLinks) =>
  loadedConnection(
    args,
    parent.events.map((link) => link.event),
    parent._count.events,
  );

// A venue's or organizer's events are a connection planned into the parent's own query, a page per parent (and its
// count), so a list of venues with their events costs the same statements whatever its length.
builder.prismaObjectField(VenueType, 'events', (t) =>
  t.connection(
    {
      type: EventType,
      description: 'Events held here that the viewer may see, by start.',
      select: ((args: PageArgs, ctx: Context, nested: (selection: true, path: unknown) => unknown) =>
        linkedEventsSelect(args, ctx, () => nested(true, connectionNodes('Event')))) as never,
      resolve: (venue, args) => linkedEventsConnection(args, venue as unknown as LoadedLinks) as never,
    },
    { description: 'A page of the events held at a venue, with their number.' },
    { description: 'An event in a page, with its cursor.' },
  ),
);

builder.prismaObjectField(OrganizerType, 'events', (t) =>
  t.connection(
    {
      type: EventType,
      description: 'Events this organizer runs that the viewer may see, by start.',
      select: ((args: PageArgs, ctx: Context, nested: (selection: true, path: unknown) => unknown) =>
        linkedEventsSelect(args, ctx, () => nested(true, connectionNodes('Event')))) as never,
      resolve: (organizer, args) => linkedEventsConnection(args, organizer as unknown as LoadedLinks) as never,
    },
    { description: 'A page of the events an organizer runs, with their number.' },
    { description: 'An event in a page, with its cursor.' },
  ),
);
