import { isLocked } from '../access.js';
import { contentArgs, shownContent } from '../shared/content.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { MediaType } from '../media/index.js';
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
import { databaseIdField, globalIdField, NodeInterface } from '../shared/node.js';
import { SEARCH_WORDS } from '../shared/search.js';
import { POST_INPUT_DESCRIPTIONS, PostStatusEnum, postFieldDescriptions } from '../shared/posts.js';
import { checkEmail } from '../shared/validate.js';
import { UserType } from '../users/index.js';

const d = postFieldDescriptions('organizer');

export const OrganizerType = builder.prismaObject('Organizer', {
  description: 'Who runs events.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('Organizer')),
    databaseId: t.exposeInt('id', databaseIdField('Organizer')),
    name: t.exposeString('name', { description: d.name }),
    slug: t.exposeString('slug', { description: d.slug }),
    description: t.string({
      description: d.description,
      args: contentArgs,
      resolve: (organizer, { format }, ctx) =>
        isLocked(ctx, organizer) ? '' : shownContent(organizer.description, format),
    }),
    excerpt: t.string({
      description: d.excerpt,
      args: contentArgs,
      resolve: (organizer, { format }, ctx) =>
        isLocked(ctx, organizer) ? '' : shownContent(organizer.excerpt, format),
    }),
    status: t.expose('status', { type: PostStatusEnum, description: d.status }),
    authorId: t.exposeInt('authorId', { nullable: true, description: d.authorId }),
    author: t.relation('author', { type: UserType, nullable: true, description: d.author }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime', description: d.publishedAt }),
    publishedLocal: t.expose('publishedLocal', {
      type: 'WallClock',
      description: 'Publication date in the site time zone.',
    }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime', description: d.modifiedAt }),
    modifiedLocal: t.expose('modifiedLocal', { type: 'WallClock', description: d.modifiedLocal }),
    phone: t.string({
      description: d.phone,
      resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? '' : organizer.phone),
    }),
    website: t.string({
      description: d.website,
      resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? '' : organizer.website),
    }),
    email: t.string({
      description:
        'The contact e-mail address; empty when there is none or while the organizer is locked (`isLocked`).',
      resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? '' : organizer.email),
    }),
    image: t.field({
      type: MediaType,
      nullable: true,
      description: d.image,
      select: { image: true },
      resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? null : organizer.image),
    }),
    hasPassword: t.boolean({
      description: d.hasPassword,
      select: { password: true },
      resolve: (organizer) => organizer.password !== '',
    }),
    isLocked: t.boolean({
      description:
        'Whether the content is withheld: password-protected, and neither the password was given nor may the viewer edit it.',
      resolve: (organizer, _args, ctx) => isLocked(ctx, organizer),
    }),
  }),
});

export const OrganizerInput = builder.inputType('OrganizerInput', {
  description: 'Fields of an organizer. On update, fields left out keep their value.',
  fields: (t) => ({
    name: t.field({ type: 'PlainText', description: 'The organizer name; required on create, and never empty.' }),
    slug: t.string({ description: 'Generated from the name when absent; `-2`, `-3` … added on clashes.' }),
    description: t.field({ type: 'HTML', description: POST_INPUT_DESCRIPTIONS.description }),
    excerpt: t.field({ type: 'HTML', description: POST_INPUT_DESCRIPTIONS.excerpt }),
    status: t.field({ type: PostStatusEnum, description: POST_INPUT_DESCRIPTIONS.status }),
    authorId: t.int({ description: POST_INPUT_DESCRIPTIONS.authorId }),
    date: t.field({ type: 'DateInput', description: 'Publication date in the site time zone.' }),
    dateUtc: t.field({ type: 'DateInput', description: 'Publication date in UTC.' }),
    phone: t.field({ type: 'PlainText', description: 'The phone number, as people should read it.' }),
    website: t.string({ description: POST_INPUT_DESCRIPTIONS.website }),
    email: t.string({
      description: 'The contact e-mail address (checked as WordPress’s `is_email` checks it); empty to remove.',
    }),
    image: t.string({ description: 'The ID of a known image or an http(s) URL; empty to remove.' }),
    password: t.string({ description: POST_INPUT_DESCRIPTIONS.password }),
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
