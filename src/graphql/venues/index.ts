import { isLocked } from '../access.js';
import { builder, type Context } from '../builder.js';
import {
  checkLinkedPostInput,
  createLinkedPostField,
  deleteLinkedPostField,
  type LinkedPostModel,
  linkedPostByIdField,
  linkedPostBySlugField,
  linkedPostListField,
  matchingLinkedPostField,
  registerLinkedPostNode,
  updateLinkedPostField,
} from '../shared/linked-post-api.js';
import { linkedPostInputFields, linkedPostObjectFields } from '../shared/post-fields.js';
import { NodeInterface } from '../shared/node.js';
import { SEARCH_WORDS } from '../shared/search.js';
import { checkLatitude, checkLongitude } from '../shared/validate.js';

const LOCKED = 'empty when there is none or while the venue is locked (`isLocked`)';

export const VenueType = builder.prismaObject('Venue', {
  description: 'Where events happen.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    ...linkedPostObjectFields(t, 'Venue'),
    address: t.string({
      description: `The street address; ${LOCKED}.`,
      resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.address),
    }),
    city: t.string({
      description: `The city; ${LOCKED}.`,
      resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.city),
    }),
    country: t.string({
      description: `The country, as entered (a name, not a code); ${LOCKED}.`,
      resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.country),
    }),
    province: t.string({
      description: `The province or region outside the United States (TEC’s \`_VenueProvince\`); ${LOCKED}.`,
      resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.province),
    }),
    state: t.exposeString('state', {
      description: 'The US state (TEC’s `_VenueState`, usually its two-letter code), or empty.',
    }),
    zip: t.string({
      description: `The postal code; ${LOCKED}.`,
      resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.zip),
    }),
    stateProvince: t.string({
      description: `The state or province as one value (TEC’s \`_VenueStateProvince\`, REST \`stateprovince\`); ${LOCKED}.`,
      resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? '' : venue.stateProvince),
    }),
    showMap: t.exposeBoolean('showMap', { description: 'Whether events at this venue show a map of it.' }),
    showMapLink: t.exposeBoolean('showMapLink', {
      description: 'Whether events at this venue show a link to a map of it.',
    }),
    latitude: t.float({
      nullable: true,
      description:
        'Latitude in decimal degrees (WGS 84, REST `geo_lat`); null when unknown or while the venue is locked.',
      resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? null : venue.latitude),
    }),
    longitude: t.float({
      nullable: true,
      description:
        'Longitude in decimal degrees (WGS 84, REST `geo_lng`); null when unknown or while the venue is locked.',
      resolve: (venue, _args, ctx) => (isLocked(ctx, venue) ? null : venue.longitude),
    }),
  }),
});

export const VenueInput = builder.inputType('VenueInput', {
  description: 'Fields of a venue. On update, fields left out keep their value.',
  fields: (t) => ({
    ...linkedPostInputFields(t, 'venue'),
    address: t.field({ type: 'PlainText', description: 'The street address.' }),
    city: t.field({ type: 'PlainText', description: 'The city.' }),
    country: t.field({ type: 'PlainText', description: 'The country, as people should read it.' }),
    province: t.field({ type: 'PlainText', description: 'The province or region, outside the United States.' }),
    state: t.field({ type: 'PlainText', description: 'The US state (usually its two-letter code).' }),
    zip: t.field({ type: 'PlainText', description: 'The postal code.' }),
    stateProvince: t.field({
      type: 'PlainText',
      description: 'The state or province as one value (REST `stateprovince`).',
    }),
    showMap: t.boolean({ description: 'Show a map of the venue with its events; true on create when left out.' }),
    showMapLink: t.boolean({
      description: 'Show a link to a map of the venue with its events; true on create when left out.',
    }),
    latitude: t.float({
      description:
        'Latitude in decimal degrees, -90 to 90; give it with `longitude`, or both null to remove the point.',
    }),
    longitude: t.float({
      description:
        'Longitude in decimal degrees, -180 to 180; give it with `latitude`, or both null to remove the point.',
    }),
  }),
});

export type VenueFields = typeof VenueInput.$inferInput;

export const venueModel: LinkedPostModel<VenueFields> = {
  typename: 'Venue',
  type: VenueType,
  input: VenueInput,
  noun: 'venue',
  pluralNoun: 'venues',
  delegate: (db) => db.venue as never,
  unlinkEvents: (db, id) => db.eventVenue.deleteMany({ where: { venueId: id } }),
  // `state` stays shown on a locked venue (as in the original's REST shape); the rest is withheld.
  searchFields: {
    open: ['name', 'state'],
    withheld: ['description', 'excerpt', 'address', 'city', 'province', 'stateProvince', 'zip', 'phone'],
  },
  searchDescription: `Words, each found in any of the name, description, excerpt, address, city, province, state, stateProvince, zip or phone; ${SEARCH_WORDS}`,
  nullableColumns: ['authorId', 'latitude', 'longitude'],
  // TEC's duplicate fields (Tribe__Events__Venue::get_duplicate_post_fields and _custom_fields).
  duplicates: {
    same: ['description', 'excerpt', 'city', 'province', 'state', 'stateProvince', 'zip', 'phone'],
    words: 'address',
  },
  checkOwnFields(errors, field, input) {
    checkLatitude(errors, field('latitude'), input.latitude);
    checkLongitude(errors, field('longitude'), input.longitude);
    // Both or neither, and both numbers or both null (cleared): never half a point.
    const half = halfOfPoint(input.latitude, input.longitude);
    if (half) errors.add(field(half), 'latitude and longitude go together');
  },
};

/**
 * The coordinate given without the other, or as a number where the other is cleared; null for a whole point or none.
 * The error names it, so that a REST client is told of a parameter it sent.
 */
function halfOfPoint(latitude: number | null | undefined, longitude: number | null | undefined) {
  if ((latitude === undefined) !== (longitude === undefined)) return latitude === undefined ? 'longitude' : 'latitude';
  if (latitude !== undefined && (latitude === null) !== (longitude === null)) {
    return latitude === null ? 'longitude' : 'latitude';
  }
  return null;
}

registerLinkedPostNode(venueModel);

builder.queryFields((t) => ({
  venue: linkedPostByIdField(t, venueModel),
  venueBySlug: linkedPostBySlugField(t, venueModel),
  venues: linkedPostListField(t, venueModel),
  matchingVenue: matchingLinkedPostField(t, venueModel),
}));

builder.mutationFields((t) => ({
  createVenue: createLinkedPostField(t, venueModel),
  updateVenue: updateLinkedPostField(t, venueModel),
  deleteVenue: deleteLinkedPostField(t, venueModel),
}));

/** Checks a venue input (reads only) and returns the columns to write, less slug and image. */
export const checkVenueInput = (ctx: Context, input: VenueFields, creating: boolean, prefix = '') =>
  checkLinkedPostInput(venueModel, ctx, input, creating, prefix);
