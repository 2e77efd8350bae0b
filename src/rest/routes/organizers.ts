import {
  RestCreateOrganizerDocument,
  RestDeleteOrganizerDocument,
  RestOrganizerByIdDocument,
  RestOrganizerBySlugDocument,
  RestOrganizerListDocument,
  RestUpdateOrganizerDocument,
  type OrganizerInput,
  type RestOrganizerFragment,
} from '../../read/operations/generated/graphql.js';
import type { RouteDefinition } from '../route.js';
import { lockedOrganizerToTec, organizerToTec } from '../../read/serialize.js';
import { ORGANIZER_FIELDS } from './linked-input.js';
import { linkedListParams, linkedPostRoutes, type LinkedOperations, type LinkedPostKind } from './linked-posts.js';
import { FieldMap, POST_STATUSES, type ParamDeclaration } from '../params.js';

export const organizerListParams = linkedListParams('organizers');

/** Organizer write parameters in TEC's order, then this service's additions (excerpt, slug). */
export const organizerWriteParams = {
  author: { type: 'integer', min: 1, description: 'post.author' },
  date: { type: 'date', description: 'post.date' },
  date_utc: { type: 'date', description: 'post.date_utc' },
  organizer: { type: 'string', nonEmpty: true, description: 'organizer.organizer' },
  description: { type: 'string', description: 'organizer.description' },
  excerpt: { type: 'string', description: 'organizer.excerpt' },
  slug: { type: 'string', nonEmpty: true, description: 'organizer.slug' },
  status: { type: 'string', enum: POST_STATUSES, description: 'post.status' },
  phone: { type: 'string', description: 'organizer.phone' },
  website: { type: 'string', description: 'organizer.website' },
  email: { type: 'string', description: 'organizer.email' },
  image: { type: 'string', description: 'post.image' },
} satisfies ParamDeclaration;

const organizerOperations: LinkedOperations<RestOrganizerFragment> = {
  async list(call, variables, errors) {
    const data = await call.run(RestOrganizerListDocument, variables, errors);
    return { total: data.organizers.totalCount, records: data.organizers.edges.map((edge) => edge.node) };
  },
  async byId(call, id, password, errors) {
    return (await call.run(RestOrganizerByIdDocument, { id, password }, errors)).organizer;
  },
  async bySlug(call, slug, password, errors) {
    return (await call.run(RestOrganizerBySlugDocument, { slug, password }, errors)).organizerBySlug;
  },
  async create(call, input, errors) {
    return (await call.run(RestCreateOrganizerDocument, { input: input as OrganizerInput }, errors)).createOrganizer;
  },
  async update(call, id, input, errors) {
    return (await call.run(RestUpdateOrganizerDocument, { id, input: input as OrganizerInput }, errors))
      .updateOrganizer;
  },
  async remove(call, id, force, errors) {
    return (await call.run(RestDeleteOrganizerDocument, { id, force }, errors)).deleteOrganizer;
  },
};

/** How the REST routes read, write and show organizers. */
export const organizerKind: LinkedPostKind<RestOrganizerFragment> = {
  plural: 'organizers',
  singular: 'organizer',
  writeParams: organizerWriteParams,
  fields: new FieldMap(ORGANIZER_FIELDS),
  operations: organizerOperations,
  serialize: organizerToTec,
  serializeLocked: lockedOrganizerToTec,
};

export const organizerRoutes: RouteDefinition[] = linkedPostRoutes(organizerKind);
