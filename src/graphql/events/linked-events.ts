// A venue's and an organizer's `events`. Without arguments (a venue page's upcoming list, a list of venues with
// their events), a connection planned into the parent's own query, a page per parent and its count, so a list of
// venues with their events costs the same statements whatever its length. With a filter or an order, it is the events
// list itself, for the events linked to that venue or organizer: a list read per parent (the filter's own reads, such
// as a search, cannot be planned into the parent's query), which the query's cost counts.
import type { GraphQLResolveInfo } from 'graphql';
import type { Prisma } from '../../db/generated/prisma/client.js';
import { listVisibility } from '../access.js';
import { builder, type Context } from '../builder.js';
import { OrganizerType } from '../organizers/index.js';
import {
  connectionNodes,
  loadedConnection,
  nonEmptySelection,
  plannedRelation,
  type PageArgs,
  type SortOrder,
  SortOrderEnum,
} from '../shared/connections.js';
import { asPostFieldBuilder } from '../shared/post-fields.js';
import { VenueType } from '../venues/index.js';
import { EventOrderByEnum, type EventsFilter, EventsFilterInput } from './filter.js';
import { listEvents } from './list.js';
import { EventType } from './type.js';

/** The link rows of one venue or organizer to the events a list would show this viewer (trash never). */
function linkedEventsWhere(ctx: Context) {
  const { statuses, condition } = listVisibility(ctx, undefined, 'events');
  // A recurring series shows as its occurrences, as in the events list.
  return { event: { AND: [{ status: { in: statuses } }, condition, { isSeriesMaster: false }] } };
}

const LINKED_EVENT_ORDER = [{ event: { startsAt: 'asc' as const } }, { eventId: 'asc' as const }];

/** The page of link rows (with the events' planned selection) and their count, for the parent's query. */
function linkedEventsSelect(args: PageArgs, ctx: Context, eventSelection: () => unknown) {
  // Unbounded: it shows the occurrences made so far, which series upkeep adds to without a change-log entry.
  ctx.facts.readsUnloggedData();
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

interface ListArgs extends PageArgs {
  filter?: EventsFilter | null;
  orderBy?: string | null;
  order?: SortOrder | null;
}

/** Whether the field is asked as a list of its own (a filter or an order), not as the planned page. */
const asList = (args: ListArgs) => args.filter != null || args.orderBy != null || args.order != null;

type Parent = 'venue' | 'organizer';

const LINK: Record<Parent, (id: number) => Prisma.EventWhereInput> = {
  venue: (id) => ({ venues: { some: { venueId: id } } }),
  organizer: (id) => ({ organizers: { some: { organizerId: id } } }),
};

function linkedEventsField(parent: Parent, description: string) {
  return (fields: object) => {
    const t = asPostFieldBuilder(fields);
    return t.connection(
      {
        type: EventType,
        description:
          `${description} Without arguments: by start, every date. With \`filter\`, \`orderBy\` or \`order\`: as ` +
          'the `events` list with that filter (its date window, statuses, search …), for these events only.',
        args: {
          filter: t.arg({ type: EventsFilterInput, description: 'Which of these events to list, as in `events`.' }),
          orderBy: t.arg({ type: EventOrderByEnum, description: 'What to sort by; START when left out.' }),
          order: t.arg({ type: SortOrderEnum, description: 'The direction; ASC when left out.' }),
        },
        select: ((args: ListArgs, ctx: Context, nested: (selection: true, path: unknown) => unknown) =>
          asList(args)
            ? { id: true }
            : linkedEventsSelect(args, ctx, () => nested(true, connectionNodes('Event')))) as never,
        resolve: ((record: { id: number }, args: ListArgs, ctx: Context, info: GraphQLResolveInfo) =>
          asList(args)
            ? listEvents(ctx, info, args, args.filter ?? {}, undefined, LINK[parent](record.id))
            : linkedEventsConnection(args, record as unknown as LoadedLinks)) as never,
      },
      {
        description: `A page of the events ${parent === 'venue' ? 'held at a venue' : 'an organizer runs'}, with their number.`,
      },
      { description: 'An event in a page, with its cursor.' },
    );
  };
}

builder.prismaObjectField(VenueType, 'events', linkedEventsField('venue', 'Events held here that the viewer may see.'));
builder.prismaObjectField(
  OrganizerType,
  'events',
  linkedEventsField('organizer', 'Events this organizer runs that the viewer may see.'),
);
