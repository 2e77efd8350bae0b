import { abbreviationAt } from '../../time/dates.js';
import { isLocked } from '../access.js';
import { builder } from '../builder.js';
import { MediaType } from '../media/index.js';
import { databaseIdField, globalIdField, NodeInterface } from '../shared/node.js';
import { PostStatusEnum } from '../shared/posts.js';
import { EventCategoryType, EventTagType } from '../terms/types.js';
import { UserType } from '../users/index.js';
import { costValues, type CostDetails } from './cost.js';

const CostDetailsType = builder.objectRef<CostDetails>('CostDetails').implement({
  description: 'The currency and numeric values behind the cost text.',
  fields: (t) => ({
    currencySymbol: t.exposeString('currencySymbol'),
    currencyCode: t.exposeString('currencyCode'),
    currencyPosition: t.exposeString('currencyPosition', { description: '`prefix`, `postfix` or empty.' }),
    values: t.exposeStringList('values', { description: 'Numeric values in the cost, ascending.' }),
  }),
});

const TERM_ORDER = [{ term: { name: 'asc' as const } }, { termId: 'asc' as const }];

export const EventType = builder.prismaObject('Event', {
  description: 'A calendar event.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('Event')),
    databaseId: t.exposeInt('id', databaseIdField('Event')),
    title: t.exposeString('title'),
    description: t.string({ description: 'HTML; empty while password-protected.', resolve: (e, _a, ctx) => (isLocked(ctx, e) ? '' : e.description) }),
    excerpt: t.string({ resolve: (event, _args, ctx) => (isLocked(ctx, event) ? '' : event.excerpt) }),
    slug: t.exposeString('slug'),
    status: t.expose('status', { type: PostStatusEnum }),
    authorId: t.exposeInt('authorId', { nullable: true }),
    author: t.relation('author', { type: UserType, nullable: true }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
    publishedLocal: t.expose('publishedLocal', { type: 'WallClock', description: 'Publication date in the site time zone.' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
    modifiedLocal: t.expose('modifiedLocal', { type: 'WallClock' }),
    timezone: t.exposeString('timezone', { description: 'IANA time zone of the event, e.g. `Europe/Berlin`.' }),
    timezoneAbbreviation: t.string({
      description: 'The zone abbreviation at the start (`CET`), or its offset (`UTC+2`).',
      select: { startLocal: true, timezone: true },
      resolve: (event) => abbreviationAt(event.timezone, event.startLocal),
    }),
    startsAt: t.expose('startsAt', { type: 'DateTime' }),
    endsAt: t.expose('endsAt', { type: 'DateTime' }),
    startsAtLocal: t.expose('startLocal', { type: 'WallClock', description: "Start in the event's time zone." }),
    endsAtLocal: t.expose('endLocal', { type: 'WallClock', description: "End in the event's time zone." }),
    allDay: t.exposeBoolean('allDay'),
    cost: t.string({ resolve: (event, _args, ctx) => (isLocked(ctx, event) ? '' : event.cost) }),
    costDetails: t.field({
      type: CostDetailsType,
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
    website: t.string({ resolve: (event, _args, ctx) => (isLocked(ctx, event) ? '' : event.website) }),
    image: t.field({
      type: MediaType,
      nullable: true,
      select: { image: true },
      resolve: (event, _args, ctx) => (isLocked(ctx, event) ? null : event.image),
    }),
    showMap: t.exposeBoolean('showMap'),
    showMapLink: t.exposeBoolean('showMapLink'),
    hideFromListings: t.exposeBoolean('hideFromListings'),
    sticky: t.exposeBoolean('sticky'),
    featured: t.exposeBoolean('featured'),
    hasPassword: t.boolean({
      description: 'Whether the event is password-protected (the password itself is never returned).',
      select: { password: true },
      resolve: (event) => event.password !== '',
    }),
    isLocked: t.boolean({
      description: 'Whether the content is withheld: password-protected, and neither the password was given nor may the viewer edit it.',
      resolve: (event, _args, ctx) => isLocked(ctx, event),
    }),
    ticketed: t.exposeBoolean('ticketed'),
    parentId: t.exposeInt('parentId', { nullable: true }),
    parent: t.relation('parent', { nullable: true }),
    // Both read the one `terms` link list, planned into the event's query with the terms' own relations (a category's
    // parent and children), so a page costs the same statements whatever its size.
    categories: t.field({
      type: [EventCategoryType],
      select: (_args, _ctx, nested) => ({ terms: { select: { term: nested(true) }, orderBy: TERM_ORDER } }),
      resolve: (event, _args, ctx) => (isLocked(ctx, event) ? [] : event.terms.map((link) => link.term).filter((term) => term.taxonomy === 'category')),
    }),
    tags: t.field({
      type: [EventTagType],
      select: (_args, _ctx, nested) => ({ terms: { select: { term: nested(true) }, orderBy: TERM_ORDER } }),
      resolve: (event, _args, ctx) => (isLocked(ctx, event) ? [] : event.terms.map((link) => link.term).filter((term) => term.taxonomy === 'tag')),
    }),
  }),
});
