import { queryFromInfo } from '@pothos/plugin-prisma';
import type { DbTransaction } from '../../db/client.js';
import type { Prisma } from '../../db/generated/prisma/client.js';
import { assertReadable, isLocked, offerPassword } from '../access.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { FieldErrors, NotFoundError } from '../errors.js';
import { imageIdForWrite, MediaType, readImageInput } from '../media/index.js';
import { offsetConnection } from '../shared/connections.js';
import { checkLinkedPostFilter, linkedPostConditions, withFieldNames } from '../shared/linked-posts.js';
import { authorizeCreate, authorizeDelete, authorizeUpdate, authorizeMissing } from '../shared/post-permissions.js';
import { trashOrDelete, updateWithSlug } from '../shared/post-writes.js';
import { modifiedNow, newPostDates, PostStatusEnum, publicationFromInput } from '../shared/posts.js';
import { literalTextSearch } from '../shared/search.js';
import { slugClashFilter, slugFromText, withFreeSlugIn } from '../shared/slugs.js';
import { checkEmail, checkNonEmpty, checkUrl, definedOnly, withoutNulls } from '../shared/validate.js';
import { UserType } from '../users/index.js';

const PASSWORD_ARG = 'The password of a password-protected organizer; with it, its content is shown.';

export const OrganizerType = builder.prismaObject('Organizer', {
  description: 'Who runs events.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    description: t.string({ resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? '' : organizer.description) }),
    excerpt: t.string({ resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? '' : organizer.excerpt) }),
    status: t.expose('status', { type: PostStatusEnum }),
    authorId: t.exposeInt('authorId', { nullable: true }),
    author: t.relation('author', { type: UserType, nullable: true }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
    publishedLocal: t.expose('publishedLocal', { type: 'WallClock', description: 'Publication date in the site time zone.' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime' }),
    modifiedLocal: t.expose('modifiedLocal', { type: 'WallClock' }),
    phone: t.string({ resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? '' : organizer.phone) }),
    website: t.string({ resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? '' : organizer.website) }),
    email: t.string({ resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? '' : organizer.email) }),
    image: t.field({
      type: MediaType,
      nullable: true,
      select: { image: true },
      resolve: (organizer, _args, ctx) => (isLocked(ctx, organizer) ? null : organizer.image),
    }),
    hasPassword: t.boolean({ select: { password: true }, resolve: (organizer) => organizer.password !== '' }),
    isLocked: t.boolean({
      description: 'Whether the content is withheld: password-protected, and neither the password was given nor may the viewer edit it.',
      resolve: (organizer, _args, ctx) => isLocked(ctx, organizer),
    }),
  }),
});

export const OrganizerInput = builder.inputType('OrganizerInput', {
  description: 'Fields of an organizer. On update, fields left out keep their value.',
  fields: (t) => ({
    name: t.field({ type: 'PlainText' }),
    slug: t.string(),
    description: t.field({ type: 'HTML' }),
    excerpt: t.field({ type: 'HTML' }),
    status: t.field({ type: PostStatusEnum }),
    authorId: t.int(),
    date: t.field({ type: 'DateInput', description: 'Publication date in the site time zone.' }),
    dateUtc: t.field({ type: 'DateInput', description: 'Publication date in UTC.' }),
    phone: t.field({ type: 'PlainText' }),
    website: t.string(),
    email: t.string(),
    image: t.string({ description: 'The ID of a known image or an http(s) URL; empty to remove.' }),
    password: t.string(),
  }),
});

export type OrganizerFields = typeof OrganizerInput.$inferInput;

/** Checks an organizer input (reads only) and returns the columns to write, less slug and image. */
export async function checkOrganizerInput(ctx: Context, input: OrganizerFields, creating: boolean, prefix = '') {
  const errors = new FieldErrors();
  const field = (name: string) => (prefix ? `${prefix}.${name}` : name);
  if (creating && !input.name?.trim()) errors.add(field('name'), 'is required');
  checkNonEmpty(errors, field('name'), input.name);
  checkNonEmpty(errors, field('slug'), input.slug);
  checkUrl(errors, field('website'), input.website);
  checkEmail(errors, field('email'), input.email);
  if (input.authorId != null && !(await ctx.db.user.findUnique({ where: { id: input.authorId }, select: { id: true } }))) {
    errors.add(field('authorId'), `no user with ID ${input.authorId}`);
  }
  const publication = withFieldNames(errors, field, (inner) => publicationFromInput(ctx, { date: input.date, dateUtc: input.dateUtc }, inner));
  const image = await readImageInput(ctx, errors, field('image'), input.image);
  errors.throwIfAny();
  const { date: _date, dateUtc: _dateUtc, image: _image, slug: _slug, name, authorId, ...rest } = input;
  // null leaves a column that cannot be null as it is; it clears the author.
  const columns = definedOnly({ ...withoutNulls(rest), name: name?.trim(), authorId, ...(publication ?? {}) });
  return { columns, image, publication };
}

async function takenOrganizerSlugs(db: DbTransaction, base: string, exceptId?: number) {
  const rows = await db.organizer.findMany({ where: { ...slugClashFilter(base), NOT: exceptId ? { id: exceptId } : undefined }, select: { slug: true } });
  return rows.map((row) => row.slug);
}

/** Creates an organizer from checked input. Used by createOrganizer and by events that bring new organizers along. */
export async function insertOrganizer(
  ctx: Context,
  db: DbTransaction,
  input: OrganizerFields,
  checked: Awaited<ReturnType<typeof checkOrganizerInput>>,
) {
  const stamp = authorizeCreate(ctx, input);
  const imageId = await imageIdForWrite(db, checked.image);
  // Inside an event's transaction (db is not ctx.db) a slug clash is retried by the event's write.
  return withFreeSlugIn(
    db !== ctx.db,
    slugFromText(input.slug ?? input.name!),
    (base) => takenOrganizerSlugs(db, base),
    (slug) =>
      db.organizer.create({
        data: {
          ...(checked.columns as Prisma.OrganizerUncheckedCreateInput),
          ...stamp,
          name: input.name!.trim(),
          slug,
          imageId,
          ...newPostDates(ctx, checked.publication),
        },
      }),
  );
}

async function existingOrganizer(ctx: Context, id: number) {
  const organizer = await ctx.db.organizer.findUnique({ where: { id } });
  if (!organizer) {
    authorizeMissing(ctx);
    throw new NotFoundError('Organizer', id);
  }
  return organizer;
}

builder.queryFields((t) => ({
  organizer: t.prismaField({
    type: OrganizerType,
    nullable: true,
    args: { id: t.arg.int({ required: true }), password: t.arg.string({ description: PASSWORD_ARG }) },
    resolve: async (query, _root, args, ctx) => {
      offerPassword(ctx, args.password);
      const record = await ctx.db.organizer.findUnique({ ...query, where: { id: args.id } });
      if (record) assertReadable(ctx, record);
      return record;
    },
  }),
  organizerBySlug: t.prismaField({
    type: OrganizerType,
    nullable: true,
    args: { slug: t.arg.string({ required: true }), password: t.arg.string({ description: PASSWORD_ARG }) },
    resolve: async (query, _root, args, ctx) => {
      offerPassword(ctx, args.password);
      const record = await ctx.db.organizer.findUnique({ ...query, where: { slug: args.slug } });
      if (record) assertReadable(ctx, record);
      return record;
    },
  }),
  organizers: t.connection({
    type: OrganizerType,
    description: 'Organizers, newest publication first.',
    args: {
      search: t.arg.string({ description: 'Part of the name, description, excerpt, phone, e-mail or website.' }),
      event: t.arg.int({ description: 'Only the organizers of this event.' }),
      hasEvents: t.arg.boolean({ description: 'true: only organizers with events; false: only those without.' }),
      onlyWithUpcoming: t.arg.boolean({ description: 'Only organizers with events starting from now.' }),
      statuses: t.arg({ type: [PostStatusEnum], description: 'Defaults to published only for readers, every status but trash for writers.' }),
      password: t.arg.string({ description: PASSWORD_ARG }),
    },
    resolve: async (_root, args, ctx, info) => {
      offerPassword(ctx, args.password);
      await checkLinkedPostFilter(ctx, args);
      const conditions = linkedPostConditions(ctx, args) as Prisma.OrganizerWhereInput[];
      if (args.search) {
        const fields = ['name', 'description', 'excerpt', 'phone', 'email', 'website'];
        const others = [...conditions];
        conditions.push(
          (await literalTextSearch(ctx.config.engine, args.search, fields, (match, select) =>
            ctx.db.organizer.findMany({ where: { AND: [...others, match as Prisma.OrganizerWhereInput] }, select }),
          )) as Prisma.OrganizerWhereInput,
        );
      }
      const where: Prisma.OrganizerWhereInput = { AND: conditions };
      return offsetConnection(
        args,
        () => ctx.db.organizer.count({ where }),
        ({ offset, limit }) =>
          ctx.db.organizer.findMany({
            ...queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }),
            where,
            orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }],
            skip: offset,
            take: limit,
          }),
      );
    },
  }),
}));

builder.mutationFields((t) => ({
  createOrganizer: t.prismaField({
    type: OrganizerType,
    args: { input: t.arg({ type: OrganizerInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const checked = await checkOrganizerInput(ctx, args.input, true);
      const organizer = await insertOrganizer(ctx, ctx.db, args.input, checked);
      return ctx.db.organizer.findUniqueOrThrow({ ...query, where: { id: organizer.id } });
    },
  }),
  updateOrganizer: t.prismaField({
    type: OrganizerType,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: OrganizerInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const current = await existingOrganizer(ctx, args.id);
      const checked = await checkOrganizerInput(ctx, args.input, false);
      const { status: _requested, ...columns } = checked.columns;
      const allowed = authorizeUpdate(ctx, current, args.input);
      const imageId = await imageIdForWrite(ctx.db, checked.image);
      const data = { ...columns, ...allowed, ...(imageId === undefined ? {} : { imageId }), ...modifiedNow(ctx) } as Prisma.OrganizerUncheckedUpdateInput;
      return updateWithSlug(current.slug, args.input.slug, (base) => takenOrganizerSlugs(ctx.db, base, args.id), (slug) =>
        ctx.db.organizer.update({ ...query, where: { id: args.id }, data: { ...data, slug } }),
      );
    },
  }),
  deleteOrganizer: t.prismaField({
    type: OrganizerType,
    description: 'Moves the organizer to the trash (and off its events), or deletes it for good with `force`.',
    args: { id: t.arg.int({ required: true }), force: t.arg.boolean({ defaultValue: false }) },
    resolve: async (query, _root, args, ctx) => {
      const current = await existingOrganizer(ctx, args.id);
      authorizeDelete(ctx, current);
      return trashOrDelete({
        recordType: 'Organizer',
        id: args.id,
        status: current.status,
        force: args.force ?? false,
        snapshot: () => ctx.db.organizer.findUniqueOrThrow({ ...query, where: { id: args.id } }),
        remove: () => ctx.db.organizer.delete({ where: { id: args.id } }),
        trash: async () => {
          const [, organizer] = await ctx.db.$transaction([
            ctx.db.eventOrganizer.deleteMany({ where: { organizerId: args.id } }),
            ctx.db.organizer.update({ ...query, where: { id: args.id }, data: { status: 'trash', ...modifiedNow(ctx) } }),
          ]);
          return organizer;
        },
      });
    },
  }),
}));
