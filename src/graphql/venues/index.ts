import type { DbTransaction } from '../../db/client.js';
import { isLocked } from '../access.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { MediaType } from '../media/index.js';
import {
  checkLinkedPostInput,
  defineLinkedPostApi,
  insertLinkedPost,
  type CheckedLinkedPost,
  type LinkedPostModel,
} from '../shared/linked-post-api.js';
import { databaseIdField, globalIdField, NodeInterface } from '../shared/node.js';
import { PostStatusEnum } from '../shared/posts.js';
import { checkLatitude, checkLongitude } from '../shared/validate.js';
import { UserType } from '../users/index.js';

export const VenueType = builder.prismaObject('Venue', {
  description: 'Where events happen.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('Venue')),
    databaseId: t.exposeInt('id', databaseIdField('Venue')),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    description: t.string({ resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.description) }),
    excerpt: t.string({ resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.excerpt) }),
    status: t.expose('status', { type: PostStatusEnum }),
    authorId: t.exposeInt('authorId', { nullable: true }),
    author: t.relation('author', { type: UserType, nullable: true }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
    publishedLocal: t.expose('publishedLocal', { type: 'WallClock', description: 'Publication date in the site time zone.' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
    modifiedLocal: t.expose('modifiedLocal', { type: 'WallClock' }),
    address: t.string({ resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.address) }),
    city: t.string({ resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.city) }),
    country: t.string({ resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.country) }),
    province: t.string({ resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.province) }),
    state: t.exposeString('state'),
    zip: t.string({ resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.zip) }),
    phone: t.string({ resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.phone) }),
    stateProvince: t.string({ resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.stateProvince) }),
    website: t.string({ resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.website) }),
    showMap: t.exposeBoolean('showMap'),
    showMapLink: t.exposeBoolean('showMapLink'),
    image: t.field({
      type: MediaType,
      nullable: true,
      select: { image: true },
      resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? null : venue.image),
    }),
    latitude: t.float({ nullable: true, resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? null : venue.latitude) }),
    longitude: t.float({ nullable: true, resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? null : venue.longitude) }),
    hasPassword: t.boolean({ select: { password: true }, resolve: (venue) => venue.password !== '' }),
    isLocked: t.boolean({
      description: 'Whether the content is withheld: password-protected, and neither the password was given nor may the viewer edit it.',
      resolve: (venue, _args, ctx) => isLocked(ctx, venue),
    }),
  }),
});

export const VenueInput = builder.inputType('VenueInput', {
  description: 'Fields of a venue. On update, fields left out keep their value.',
  fields: (t) => ({
    name: t.field({ type: 'PlainText' }),
    slug: t.string(),
    description: t.field({ type: 'HTML' }),
    excerpt: t.field({ type: 'HTML' }),
    status: t.field({ type: PostStatusEnum }),
    authorId: t.int(),
    date: t.field({ type: 'DateInput', description: 'Publication date in the site time zone.' }),
    dateUtc: t.field({ type: 'DateInput', description: 'Publication date in UTC.' }),
    address: t.field({ type: 'PlainText' }),
    city: t.field({ type: 'PlainText' }),
    country: t.field({ type: 'PlainText' }),
    province: t.field({ type: 'PlainText' }),
    state: t.field({ type: 'PlainText' }),
    zip: t.field({ type: 'PlainText' }),
    phone: t.field({ type: 'PlainText' }),
    stateProvince: t.field({ type: 'PlainText' }),
    website: t.string(),
    showMap: t.boolean(),
    showMapLink: t.boolean(),
    image: t.string({ description: 'The ID of a known image or an http(s) URL; empty to remove.' }),
    latitude: t.float(),
    longitude: t.float(),
    password: t.string(),
  }),
});

export type VenueFields = typeof VenueInput.$inferInput;

export const venueModel: LinkedPostModel<VenueFields> = {
  typename: 'Venue',
  type: VenueType,
  input: VenueInput,
  single: 'venue',
  plural: 'venues',
  delegate: (db) => db.venue as never,
  unlinkEvents: (db, id) => db.eventVenue.deleteMany({ where: { venueId: id } }),
  searchFields: ['name', 'description', 'excerpt', 'address', 'city', 'province', 'state', 'stateProvince', 'zip', 'phone'],
  searchDescription: 'Part of the name, description, excerpt, address, city, province, state, zip or phone.',
  nullableColumns: ['authorId', 'latitude', 'longitude'],
  checkOwnFields(errors, field, input) {
    checkLatitude(errors, field('latitude'), input.latitude);
    checkLongitude(errors, field('longitude'), input.longitude);
    // Both or neither, and both numbers or both null (cleared): never half a point.
    const latitudeGiven = input.latitude !== undefined;
    if (latitudeGiven !== (input.longitude !== undefined) || (latitudeGiven && (input.latitude === null) !== (input.longitude === null))) {
      errors.add(field('latitude'), 'latitude and longitude go together');
    }
  },
};

defineLinkedPostApi(venueModel);

/** Checks a venue input (reads only) and returns the columns to write, less slug and image. */
export const checkVenueInput = (ctx: Context, input: VenueFields, creating: boolean, prefix = '') =>
  checkLinkedPostInput(venueModel, ctx, input, creating, prefix);

/** Creates a venue from checked input. Used by createVenue and by events that bring a new venue along. */
export const insertVenue = (ctx: Context, db: DbTransaction, input: VenueFields, checked: CheckedLinkedPost) =>
  insertLinkedPost(venueModel, ctx, db, input, checked);
