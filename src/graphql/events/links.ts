import { isLocked } from '../access.js';
import { builder } from '../builder.js';
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

builder.prismaObjectField(VenueType, 'events', (t) =>
  t.field({
    type: [EventType],
    description: 'Events held here, by start.',
    select: (_args, _ctx, nested) => ({
      events: { select: { event: nested(true) }, orderBy: [{ event: { startsAt: 'asc' } }, { eventId: 'asc' }] },
    }),
    resolve: (venue) => venue.events.map((link) => link.event),
  }),
);

builder.prismaObjectField(OrganizerType, 'events', (t) =>
  t.field({
    type: [EventType],
    description: 'Events this organizer runs, by start.',
    select: (_args, _ctx, nested) => ({
      events: { select: { event: nested(true) }, orderBy: [{ event: { startsAt: 'asc' } }, { eventId: 'asc' }] },
    }),
    resolve: (organizer) => organizer.events.map((link) => link.event),
  }),
);
