import { formattedContent } from '../../content/html.js';
import { isLocked } from '../access.js';
import { builder } from '../builder.js';
import { imageOf, MediaType } from '../media/index.js';
import { UserType } from '../users/index.js';
import type { InputFieldBuilder, PrismaFieldBuilder } from './field-builders.js';
import { databaseIdField, globalIdField } from './node.js';
import { POST_INPUT_DESCRIPTIONS, PostStatusEnum, postFieldDescriptions } from './posts.js';
import { pageFields } from './uri.js';

// GraphQL fields that events, venues and organizers (WordPress posts all three) declare alike: each type module spreads
// them into its object or input type and adds its own.

const IS_LOCKED_DESCRIPTION =
  'Whether the content is withheld: password-protected, and neither the password was given nor may the viewer edit it.';

type PostTypeName = 'Event' | 'Venue' | 'Organizer';

// Descriptions and excerpts: HTML, returned as WordPress shows it or as stored.

export const ContentFormatEnum = builder.enumType('ContentFormat', {
  description: 'How a description or excerpt is returned.',
  values: {
    RENDERED: {
      description:
        'Formatted as WordPress shows it (`wpautop`: paragraphs in `<p>`, single newlines as `<br />`), as REST returns it.',
    },
    RAW: { description: 'As stored: the HTML the writer sent, after the sanitizer.' },
  } as const,
});

/** The `format` argument of description and excerpt fields. */
export const contentArgs = builder.args((t) => ({
  format: t.field({
    type: ContentFormatEnum,
    defaultValue: 'RENDERED',
    required: true,
    description: 'RENDERED (the default) or RAW.',
  }),
}));

export function shownContent(stored: string, format: 'RENDERED' | 'RAW'): string {
  return format === 'RAW' ? stored : formattedContent(stored);
}

/**
 * `t` is the field builder of EventType, VenueType or OrganizerType. The three models have these columns and relations
 * alike, so Venue's builder type describes each (Pothos gives no type for "any of these models' builders").
 */
export const asPostFieldBuilder = (t: object) => t as PrismaFieldBuilder<'Venue'>;

/** The output fields every post type has: IDs, slug, status, author, dates and the password lock. */
export function postObjectFields(t: object, typename: PostTypeName) {
  const fields = asPostFieldBuilder(t);
  const kind = typename.toLowerCase() as Lowercase<PostTypeName>;
  const d = postFieldDescriptions(kind);
  return {
    id: fields.globalID(globalIdField(typename)),
    databaseId: fields.exposeInt('id', databaseIdField(typename)),
    slug: fields.exposeString('slug', { description: d.slug }),
    ...pageFields(t, kind),
    status: fields.expose('status', { type: PostStatusEnum, description: d.status }),
    authorId: fields.exposeInt('authorId', { nullable: true, description: d.authorId }),
    author: fields.relation('author', { type: UserType, nullable: true, description: d.author }),
    publishedAt: fields.expose('publishedAt', { type: 'DateTime', description: d.publishedAt }),
    publishedLocal: fields.expose('publishedLocal', {
      type: 'WallClock',
      description: 'Publication date in the site time zone.',
    }),
    modifiedAt: fields.expose('modifiedAt', { type: 'DateTime', description: d.modifiedAt }),
    modifiedLocal: fields.expose('modifiedLocal', { type: 'WallClock', description: d.modifiedLocal }),
    hasPassword: fields.boolean({
      description: d.hasPassword,
      select: { password: true },
      resolve: (post) => post.password !== '',
    }),
    isLocked: fields.boolean({
      description: IS_LOCKED_DESCRIPTION,
      resolve: (post, _args, ctx) => isLocked(ctx, post),
    }),
  };
}

/** The output fields of a venue or organizer: those of every post, and the name, content and contact they share. */
export function linkedPostObjectFields(t: object, typename: 'Venue' | 'Organizer') {
  const fields = asPostFieldBuilder(t);
  const d = postFieldDescriptions(typename === 'Venue' ? 'venue' : 'organizer');
  return {
    ...postObjectFields(t, typename),
    name: fields.exposeString('name', { description: d.name }),
    description: fields.string({
      description: d.description,
      args: contentArgs,
      resolve: (post, { format }, ctx) => (isLocked(ctx, post) ? '' : shownContent(post.description, format)),
    }),
    excerpt: fields.string({
      description: d.excerpt,
      args: contentArgs,
      resolve: (post, { format }, ctx) => (isLocked(ctx, post) ? '' : shownContent(post.excerpt, format)),
    }),
    phone: fields.string({
      description: d.phone,
      resolve: (post, _args, ctx) => (isLocked(ctx, post) ? '' : post.phone),
    }),
    website: fields.string({
      description: d.website,
      resolve: (post, _args, ctx) => (isLocked(ctx, post) ? '' : post.website),
    }),
    image: fields.field({
      type: MediaType,
      nullable: true,
      description: d.image,
      select: { imageId: true },
      resolve: (post, _args, ctx) => (isLocked(ctx, post) ? null : imageOf(ctx, post.imageId)),
    }),
  };
}

/** The input fields of a venue or organizer that are the same for both. */
export function linkedPostInputFields(t: InputFieldBuilder, noun: 'venue' | 'organizer') {
  return {
    name: t.field({ type: 'PlainText', description: `The ${noun} name; required on create, and never empty.` }),
    slug: t.string({ description: 'Generated from the name when absent; `-2`, `-3` … added on clashes.' }),
    description: t.field({ type: 'HTML', description: POST_INPUT_DESCRIPTIONS.description }),
    excerpt: t.field({ type: 'HTML', description: POST_INPUT_DESCRIPTIONS.excerpt }),
    status: t.field({ type: PostStatusEnum, description: POST_INPUT_DESCRIPTIONS.status }),
    authorId: t.int({ description: POST_INPUT_DESCRIPTIONS.authorId }),
    date: t.field({ type: 'DateInput', description: 'Publication date in the site time zone.' }),
    dateUtc: t.field({ type: 'DateInput', description: 'Publication date in UTC.' }),
    phone: t.field({ type: 'PlainText', description: 'The phone number, as people should read it.' }),
    website: t.string({ description: POST_INPUT_DESCRIPTIONS.website }),
    image: t.string({ description: 'The ID of a known image or an http(s) URL; empty to remove.' }),
    password: t.string({ description: POST_INPUT_DESCRIPTIONS.password }),
  };
}
