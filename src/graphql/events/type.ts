// The Event type: its own fields, and its venues and organizers (a venue's and an organizer's `events` are in
// linked-events.ts), so that venues/ and organizers/ need not import events/.
import { abbreviationAt } from '../../time/dates.js';
import { isLocked, readableLinkedPosts } from '../access.js';
import { builder } from '../builder.js';
import { imageOf, MediaType } from '../media/index.js';
import { OrganizerType } from '../organizers/index.js';
import { linkedRecordsOf } from '../shared/linked-records.js';
import { NodeInterface } from '../shared/node.js';
import { contentArgs, postObjectFields, shownContent } from '../shared/post-fields.js';
import { EventCategoryType, EventTagType } from '../terms/types.js';
import { VenueType } from '../venues/index.js';
import { costValues, formattedCost, type CostDetails } from './columns.js';

const CostDetailsType = builder.objectRef<CostDetails>('CostDetails').implement({
  description: 'The currency and numeric values behind the cost text.',
  fields: (t) => ({
    currencySymbol: t.exposeString('currencySymbol', {
      description: 'The currency symbol shown with the amounts (`$`, `€`), or empty.',
    }),
    currencyCode: t.exposeString('currencyCode', {
      description: 'The ISO 4217 currency code (`USD`, `EUR`) as entered, or empty.',
    }),
    currencyPosition: t.exposeString('currencyPosition', { description: '`prefix`, `postfix` or empty.' }),
    values: t.exposeStringList('values', { description: 'Numeric values in the cost, ascending.' }),
  }),
});

export const EventType = builder.prismaObject('Event', {
  description: 'A calendar event.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    ...postObjectFields(t, 'Event'),
    title: t.exposeString('title', {
      description: 'The event title (plain text); shown even while the event is locked.',
    }),
    description: t.string({
      description: 'The long description (HTML); empty while the event is locked.',
      args: contentArgs,
      resolve: (event, { format }, ctx) => (isLocked(ctx, event) ? '' : shownContent(event.description, format)),
    }),
    excerpt: t.string({
      description: 'The short description (HTML); empty when there is none or while the event is locked.',
      args: contentArgs,
      resolve: (event, { format }, ctx) => (isLocked(ctx, event) ? '' : shownContent(event.excerpt, format)),
    }),
    timezone: t.exposeString('timezone', { description: 'IANA time zone of the event, e.g. `Europe/Berlin`.' }),
    timezoneAbbreviation: t.string({
      description: 'The zone abbreviation at the start (`CET`), or its offset (`UTC+2`).',
      select: { startsAt: true, timezone: true },
      resolve: (event) => abbreviationAt(event.timezone, event.startsAt),
    }),
    startsAt: t.expose('startsAt', {
      type: 'DateTime',
      description: 'The start as an instant (REST `utc_start_date`); lists are ordered by it.',
    }),
    endsAt: t.expose('endsAt', { type: 'DateTime', description: 'The end as an instant (REST `utc_end_date`).' }),
    startsAtLocal: t.expose('startLocal', { type: 'WallClock', description: "Start in the event's time zone." }),
    endsAtLocal: t.expose('endLocal', { type: 'WallClock', description: "End in the event's time zone." }),
    allDay: t.exposeBoolean('allDay', {
      description:
        'Whether the event lasts whole days: it starts at 00:00:00 on its first day and ends at 23:59:59 on its last.',
    }),
    cost: t.string({
      description:
        'The cost as entered (`$10 - $20`, `20€`, `Free`); empty when there is none or while the event is locked. REST ' +
        '`cost` shows it formatted from `costDetails` (`$10 – $20`, "Free" for 0).',
      resolve: (event, _args, ctx) => (isLocked(ctx, event) ? '' : event.cost),
    }),
    costDetails: t.field({
      type: CostDetailsType,
      description: 'The currency and the amounts of `cost`; all empty while the event is locked.',
      select: { cost: true, currencySymbol: true, currencyCode: true, currencyPosition: true },
      resolve: (event, _args, ctx) =>
        isLocked(ctx, event)
          ? { currencySymbol: '', currencyCode: '', currencyPosition: '', values: [] }
          : {
              currencySymbol: event.currencySymbol,
              currencyCode: event.currencyCode,
              currencyPosition: event.currencyPosition,
              values: costValues(event.cost),
            },
    }),
    formattedCost: t.string({
      description:
        'The cost as shown (REST `cost`): a plain amount or range with the currency symbol in place (the event’s, or the ' +
        'site’s DEFAULT_CURRENCY_SYMBOL where it sets none) and joined by an en dash (`$10 – $20`), 0 as "Free"; other ' +
        'text as entered. Empty when there is none or while the event is locked.',
      select: { cost: true, currencySymbol: true, currencyPosition: true },
      resolve: (event, _args, ctx) =>
        isLocked(ctx, event)
          ? ''
          : formattedCost(
              event.cost,
              {
                currencySymbol: event.currencySymbol,
                currencyPosition: event.currencyPosition,
                values: costValues(event.cost),
              },
              ctx.config.defaultCurrency,
            ),
    }),
    website: t.string({
      description:
        'The event’s own website URL; empty when none is set (REST `website` then gives the event page) or while the event is locked.',
      resolve: (event, _args, ctx) => (isLocked(ctx, event) ? '' : event.website),
    }),
    image: t.field({
      type: MediaType,
      nullable: true,
      description: 'The featured image; null when there is none or while the event is locked.',
      select: { imageId: true },
      resolve: (event, _args, ctx) => (isLocked(ctx, event) ? null : imageOf(ctx, event.imageId)),
    }),
    showMap: t.exposeBoolean('showMap', { description: 'Whether the event page shows a map of the venue.' }),
    showMapLink: t.exposeBoolean('showMapLink', {
      description: 'Whether the event page shows a link to a map of the venue.',
    }),
    hideFromListings: t.exposeBoolean('hideFromListings', {
      description:
        'Whether the event is left out of the `events` list and its feeds (TEC’s “hide from event listings”); it can still be read by ID or slug.',
    }),
    sticky: t.exposeBoolean('sticky', {
      description: 'Whether the event sticks to the top of its day in month views (TEC’s “sticky in month view”).',
    }),
    featured: t.exposeBoolean('featured', {
      description: 'Whether the event is featured (filter lists with `featured: true`).',
    }),
    ticketed: t.exposeBoolean('ticketed', {
      description: 'Whether the event has tickets (the flag Event Tickets sets; REST `ticketed`).',
    }),
    parentId: t.exposeInt('parentId', {
      nullable: true,
      description: 'The database ID of the parent event of a recurring series; null for an event on its own.',
    }),
    parent: t.relation('parent', {
      nullable: true,
      description: 'The parent event of a recurring series; null for an event on its own.',
    }),
    // Both read the event's links, then its terms by ID (src/graphql/shared/linked-records.ts): a statement each for
    // a whole page, whatever its size.
    categories: t.prismaField({
      type: [EventCategoryType],
      description: 'The event’s categories, by name; empty while the event is locked.',
      resolve: async (query, event, _args, ctx) =>
        isLocked(ctx, event)
          ? []
          : (await linkedRecordsOf(ctx, event.id, 'term', query)).filter((term) => term.taxonomy === 'category'),
    }),
    tags: t.prismaField({
      type: [EventTagType],
      description: 'The event’s tags, by name; empty while the event is locked.',
      resolve: async (query, event, _args, ctx) =>
        isLocked(ctx, event)
          ? []
          : (await linkedRecordsOf(ctx, event.id, 'term', query)).filter((term) => term.taxonomy === 'tag'),
    }),
  }),
});

// ---------------------------------------------------------------------------------------------------------------
// Links: the fields that cross between events and their venues and organizers

// Each reads the event's links and then the linked records, a statement each for a whole page (no N+1).
builder.prismaObjectFields(EventType, (t) => ({
  venues: t.prismaField({
    type: [VenueType],
    description: 'Where the event happens: its venues that the viewer may read, in the order they were given.',
    resolve: async (query, event, _args, ctx) =>
      isLocked(ctx, event) ? [] : readableLinkedPosts(ctx, await linkedRecordsOf(ctx, event.id, 'venue', query)),
  }),
  organizers: t.prismaField({
    type: [OrganizerType],
    description: 'Who runs the event: its organizers that the viewer may read, in the order they were given.',
    resolve: async (query, event, _args, ctx) =>
      isLocked(ctx, event) ? [] : readableLinkedPosts(ctx, await linkedRecordsOf(ctx, event.id, 'organizer', query)),
  }),
}));
