import type { PostStatus } from '../../db/generated/prisma/enums.js';
import { canReadPost } from '../../auth/permissions.js';
import { isLocked } from '../access.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { OrganizerType } from '../organizers/index.js';
import { VenueType } from '../venues/index.js';
import { EventType } from './type.js';

// The fields that cross between events and their venues and organizers live here, so neither module imports the
// other. Each loads through the link table in the same planned query as its parent (no N+1).

builder.prismaObjectFields(EventType, (t) => ({
  venues: t.field({
    type: [VenueType],
    select: (_args, _ctx, nested) => ({ venues: { select: { venue: nested(true) }, orderBy: [{ position: 'asc' }, { venueId: 'asc' }] } }),
    resolve: (event, _args, ctx) => (isLocked(ctx, event) ? [] : event.venues.map((link) => link.venue)),
  }),
  organizers: t.field({
    type: [OrganizerType],
    select: (_args, _ctx, nested) => ({
      organizers: { select: { organizer: nested(true) }, orderBy: [{ position: 'asc' }, { organizerId: 'asc' }] },
    }),
    resolve: (event, _args, ctx) => (isLocked(ctx, event) ? [] : event.organizers.map((link) => link.organizer)),
  }),
}));

/** The linked events a viewer may see, as a list shows them: not trashed, and published or readable by the viewer. */
function visibleEvents<E extends { status: PostStatus; authorId: number | null }>(ctx: Context, links: { event: E }[]): E[] {
  return links.map((link) => link.event).filter((event) => event.status !== 'trash' && canReadPost(ctx.viewer.user, event));
}

builder.prismaObjectField(VenueType, 'events', (t) =>
  t.field({
    type: [EventType],
    description: 'Events held here, by start.',
    select: (_args, _ctx, nested) => ({
      events: { select: { event: nested(true) }, orderBy: [{ event: { startsAt: 'asc' } }, { eventId: 'asc' }] },
    }),
    resolve: (venue, _args, ctx) => visibleEvents(ctx, venue.events),
  }),
);

builder.prismaObjectField(OrganizerType, 'events', (t) =>
  t.field({
    type: [EventType],
    description: 'Events this organizer runs, by start.',
    select: (_args, _ctx, nested) => ({
      events: { select: { event: nested(true) }, orderBy: [{ event: { startsAt: 'asc' } }, { eventId: 'asc' }] },
    }),
    resolve: (organizer, _args, ctx) => visibleEvents(ctx, organizer.events),
  }),
);
