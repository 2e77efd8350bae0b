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
import { checkEmail } from '../shared/validate.js';

export const OrganizerType = builder.prismaObject('Organizer', {
  description: 'Who runs events.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    ...linkedPostObjectFields(t, 'Organizer'),
    email: t.string({
      description:
        'The contact e-mail address; empty when there is none or while the organizer is locked (`isLocked`).',
      resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? '' : organizer.email),
    }),
  }),
});

export const OrganizerInput = builder.inputType('OrganizerInput', {
  description: 'Fields of an organizer. On update, fields left out keep their value.',
  fields: (t) => ({
    ...linkedPostInputFields(t, 'organizer'),
    email: t.string({
      description: 'The contact e-mail address (checked as WordPress’s `is_email` checks it); empty to remove.',
    }),
  }),
});

export type OrganizerFields = typeof OrganizerInput.$inferInput;

export const organizerModel: LinkedPostModel<OrganizerFields> = {
  typename: 'Organizer',
  type: OrganizerType,
  input: OrganizerInput,
  noun: 'organizer',
  pluralNoun: 'organizers',
  delegate: (db) => db.organizer as never,
  unlinkEvents: (db, id) => db.eventOrganizer.deleteMany({ where: { organizerId: id } }) as never,
  searchFields: { open: ['name'], withheld: ['description', 'excerpt', 'phone', 'email', 'website'] },
  searchDescription: `Words, each found in any of the name, description, excerpt, phone, e-mail or website; ${SEARCH_WORDS}`,
  nullableColumns: ['authorId'],
  // TEC's duplicate fields (Tribe__Events__Organizer::get_duplicate_post_fields and _custom_fields).
  duplicates: { same: ['description', 'excerpt', 'phone', 'email', 'website'] },
  checkOwnFields(errors, field, input) {
    checkEmail(errors, field('email'), input.email);
  },
};

registerLinkedPostNode(organizerModel);

builder.queryFields((t) => ({
  organizer: linkedPostByIdField(t, organizerModel),
  organizerBySlug: linkedPostBySlugField(t, organizerModel),
  organizers: linkedPostListField(t, organizerModel),
  matchingOrganizer: matchingLinkedPostField(t, organizerModel),
}));

builder.mutationFields((t) => ({
  createOrganizer: createLinkedPostField(t, organizerModel),
  updateOrganizer: updateLinkedPostField(t, organizerModel),
  deleteOrganizer: deleteLinkedPostField(t, organizerModel),
}));

/** Checks an organizer input (reads only) and returns the columns to write, less slug and image. */
export const checkOrganizerInput = (ctx: Context, input: OrganizerFields, creating: boolean, prefix = '') =>
  checkLinkedPostInput(organizerModel, ctx, input, creating, prefix);
