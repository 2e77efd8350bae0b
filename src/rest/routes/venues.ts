import {
  RestCreateVenueDocument,
  RestDeleteVenueDocument,
  RestUpdateVenueDocument,
  RestVenueByIdDocument,
  RestVenueBySlugDocument,
  RestVenueListDocument,
  type RestVenueFragment,
  type VenueInput,
} from '../../read/operations/generated/graphql.js';
import type { RouteDefinition } from '../route.js';
import { lockedVenueToTec, venueToTec } from '../../read/serialize.js';
import { VENUE_FIELDS } from './linked-input.js';
import { linkedListParams, linkedPostRoutes, type LinkedOperations, type LinkedPostKind } from './linked-posts.js';
import { FieldMap, POST_STATUSES, type ParamDeclaration } from '../params.js';

export const venueListParams = linkedListParams('venues');

/** Venue write parameters in TEC's order, then this service's additions (excerpt, slug, coordinates). */
export const venueWriteParams = {
  author: { type: 'integer', min: 1, description: 'post.author' },
  date: { type: 'date', description: 'post.date' },
  date_utc: { type: 'date', description: 'post.date_utc' },
  venue: { type: 'string', nonEmpty: true, description: 'venue.venue' },
  description: { type: 'string', description: 'venue.description' },
  excerpt: { type: 'string', description: 'venue.excerpt' },
  slug: { type: 'string', nonEmpty: true, description: 'venue.slug' },
  status: { type: 'string', enum: POST_STATUSES, description: 'post.status' },
  show_map: { type: 'boolean', description: 'venue.show_map' },
  show_map_link: { type: 'boolean', description: 'venue.show_map_link' },
  address: { type: 'string', description: 'venue.address' },
  city: { type: 'string', description: 'venue.city' },
  country: { type: 'string', description: 'venue.country' },
  province: { type: 'string', description: 'venue.province' },
  state: { type: 'string', description: 'venue.state' },
  zip: { type: 'string', description: 'venue.zip' },
  phone: { type: 'string', description: 'venue.phone' },
  stateprovince: { type: 'string', description: 'venue.stateprovince' },
  website: { type: 'string', description: 'venue.website' },
  image: { type: 'string', description: 'post.image' },
  geo_lat: { type: 'number', min: -90, max: 90, description: 'venue.geo_lat' },
  geo_lng: { type: 'number', min: -180, max: 180, description: 'venue.geo_lng' },
} satisfies ParamDeclaration;

const venueOperations: LinkedOperations<RestVenueFragment> = {
  async list(call, variables, errors) {
    const data = await call.run(RestVenueListDocument, variables, errors);
    return { total: data.venues.totalCount, records: data.venues.edges.map((edge) => edge.node) };
  },
  async byId(call, id, password, errors) {
    return (await call.run(RestVenueByIdDocument, { id, password }, errors)).venue;
  },
  async bySlug(call, slug, password, errors) {
    return (await call.run(RestVenueBySlugDocument, { slug, password }, errors)).venueBySlug;
  },
  async create(call, input, errors) {
    return (await call.run(RestCreateVenueDocument, { input: input as VenueInput }, errors)).createVenue;
  },
  async update(call, id, input, errors) {
    return (await call.run(RestUpdateVenueDocument, { id, input: input as VenueInput }, errors)).updateVenue;
  },
  async remove(call, id, force, errors) {
    return (await call.run(RestDeleteVenueDocument, { id, force }, errors)).deleteVenue;
  },
};

/** How the REST routes read, write and show venues. */
export const venueKind: LinkedPostKind<RestVenueFragment> = {
  plural: 'venues',
  singular: 'venue',
  writeParams: venueWriteParams,
  fields: new FieldMap(VENUE_FIELDS),
  operations: venueOperations,
  serialize: venueToTec,
  serializeLocked: lockedVenueToTec,
};

export const venueRoutes: RouteDefinition[] = linkedPostRoutes(venueKind);
