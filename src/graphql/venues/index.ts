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
import { modifiedNow, newPostDates, PostStatusEnum, publicationFromInput } from '../shared/posts.js';
import { literalTextSearch } from '../shared/search.js';
import { authorizeCreate, authorizeDelete, authorizeUpdate, authorizeMissing } from '../shared/post-permissions.js';
import { trashOrDelete, updateWithSlug } from '../shared/post-writes.js';
import { slugClashFilter, slugFromText, withFreeSlugIn } from '../shared/slugs.js';
import { checkLatitude, checkLongitude, checkNonEmpty, checkUrl, definedOnly, withoutNulls } from '../shared/validate.js';
import { UserType } from '../users/index.js';

const PASSWORD_ARG = 'The password of a password-protected venue; with it, its content is shown.';

export const VenueType = builder.prismaObject('Venue', {
  description: 'Where events happen.',
  fields: (t) => ({
    id: t.exposeInt('id'),
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

/** Checks a venue input (reads only) and returns the columns to write, less slug and image. */
export async function checkVenueInput(ctx: Context, input: VenueFields, creating: boolean, prefix = '') {
  const errors = new FieldErrors();
  const field = (name: string) => (prefix ? `${prefix}.${name}` : name);
  if (creating && !input.name?.trim()) errors.add(field('name'), 'is required');
  checkNonEmpty(errors, field('name'), input.name);
  checkNonEmpty(errors, field('slug'), input.slug);
  checkUrl(errors, field('website'), input.website);
  checkLatitude(errors, field('latitude'), input.latitude);
  checkLongitude(errors, field('longitude'), input.longitude);
  // Both or neither, and both numbers or both null (cleared): never half a point.
  const latitudeGiven = input.latitude !== undefined;
  if (latitudeGiven !== (input.longitude !== undefined) || (latitudeGiven && (input.latitude === null) !== (input.longitude === null))) {
    errors.add(field('latitude'), 'latitude and longitude go together');
  }
  if (input.authorId != null && !(await ctx.db.user.findUnique({ where: { id: input.authorId }, select: { id: true } }))) {
    errors.add(field('authorId'), `no user with ID ${input.authorId}`);
  }
  const publication = withFieldNames(errors, field, (inner) => publicationFromInput(ctx, { date: input.date, dateUtc: input.dateUtc }, inner));
  const image = await readImageInput(ctx, errors, field('image'), input.image);
  errors.throwIfAny();
  const { date: _date, dateUtc: _dateUtc, image: _image, slug: _slug, name, authorId, latitude, longitude, ...rest } = input;
  // null leaves a column that cannot be null as it is; it clears the nullable ones (author, coordinates).
  const columns = definedOnly({
    ...withoutNulls(rest),
    name: name?.trim(),
    authorId,
    latitude,
    longitude,
    ...(publication ?? {}),
  });
  return { columns, image, publication };
}

async function takenVenueSlugs(db: DbTransaction, base: string, exceptId?: number) {
  const rows = await db.venue.findMany({ where: { ...slugClashFilter(base), NOT: exceptId ? { id: exceptId } : undefined }, select: { slug: true } });
  return rows.map((row) => row.slug);
}

/** Creates a venue from checked input. Used by createVenue and by events that bring a new venue along. */
export async function insertVenue(ctx: Context, db: DbTransaction, input: VenueFields, checked: Awaited<ReturnType<typeof checkVenueInput>>) {
  const stamp = authorizeCreate(ctx, input);
  const imageId = await imageIdForWrite(db, checked.image);
  // Inside an event's transaction (db is not ctx.db) a slug clash is retried by the event's write.
  return withFreeSlugIn(
    db !== ctx.db,
    slugFromText(input.slug ?? input.name!),
    (base) => takenVenueSlugs(db, base),
    (slug) =>
      db.venue.create({
        data: {
          ...(checked.columns as Prisma.VenueUncheckedCreateInput),
          ...stamp,
          name: input.name!.trim(),
          slug,
          imageId,
          ...newPostDates(ctx, checked.publication),
        },
      }),
  );
}

async function existingVenue(ctx: Context, id: number) {
  const venue = await ctx.db.venue.findUnique({ where: { id } });
  if (!venue) {
    authorizeMissing(ctx);
    throw new NotFoundError('Venue', id);
  }
  return venue;
}

builder.queryFields((t) => ({
  venue: t.prismaField({
    type: VenueType,
    nullable: true,
    args: { id: t.arg.int({ required: true }), password: t.arg.string({ description: PASSWORD_ARG }) },
    resolve: async (query, _root, args, ctx) => {
      offerPassword(ctx, args.password);
      const record = await ctx.db.venue.findUnique({ ...query, where: { id: args.id } });
      if (record) assertReadable(ctx, record);
      return record;
    },
  }),
  venueBySlug: t.prismaField({
    type: VenueType,
    nullable: true,
    args: { slug: t.arg.string({ required: true }), password: t.arg.string({ description: PASSWORD_ARG }) },
    resolve: async (query, _root, args, ctx) => {
      offerPassword(ctx, args.password);
      const record = await ctx.db.venue.findUnique({ ...query, where: { slug: args.slug } });
      if (record) assertReadable(ctx, record);
      return record;
    },
  }),
  venues: t.connection({
    type: VenueType,
    description: 'Venues, newest publication first.',
    args: {
      search: t.arg.string({ description: 'Part of the name, description, excerpt, address, city, province, state, zip or phone.' }),
      event: t.arg.int({ description: 'Only the venues of this event.' }),
      hasEvents: t.arg.boolean({ description: 'true: only venues with events; false: only venues without.' }),
      onlyWithUpcoming: t.arg.boolean({ description: 'Only venues with events starting from now.' }),
      statuses: t.arg({ type: [PostStatusEnum], description: 'Defaults to published only for readers, every status but trash for writers.' }),
      password: t.arg.string({ description: PASSWORD_ARG }),
    },
    resolve: async (_root, args, ctx, info) => {
      offerPassword(ctx, args.password);
      await checkLinkedPostFilter(ctx, args);
      const conditions = linkedPostConditions(ctx, args) as Prisma.VenueWhereInput[];
      if (args.search) {
        const fields = ['name', 'description', 'excerpt', 'address', 'city', 'province', 'state', 'stateProvince', 'zip', 'phone'];
        const others = [...conditions];
        conditions.push(
          (await literalTextSearch(ctx.config.engine, args.search, fields, (match, select) =>
            ctx.db.venue.findMany({ where: { AND: [...others, match as Prisma.VenueWhereInput] }, select }),
          )) as Prisma.VenueWhereInput,
        );
      }
      const where: Prisma.VenueWhereInput = { AND: conditions };
      return offsetConnection(
        args,
        () => ctx.db.venue.count({ where }),
        ({ offset, limit }) =>
          ctx.db.venue.findMany({
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
  createVenue: t.prismaField({
    type: VenueType,
    args: { input: t.arg({ type: VenueInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const checked = await checkVenueInput(ctx, args.input, true);
      const venue = await insertVenue(ctx, ctx.db, args.input, checked);
      return ctx.db.venue.findUniqueOrThrow({ ...query, where: { id: venue.id } });
    },
  }),
  updateVenue: t.prismaField({
    type: VenueType,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: VenueInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const current = await existingVenue(ctx, args.id);
      const checked = await checkVenueInput(ctx, args.input, false);
      const { status: _requested, ...columns } = checked.columns;
      const allowed = authorizeUpdate(ctx, current, args.input);
      const imageId = await imageIdForWrite(ctx.db, checked.image);
      const data = { ...columns, ...allowed, ...(imageId === undefined ? {} : { imageId }), ...modifiedNow(ctx) } as Prisma.VenueUncheckedUpdateInput;
      return updateWithSlug(current.slug, args.input.slug, (base) => takenVenueSlugs(ctx.db, base, args.id), (slug) =>
        ctx.db.venue.update({ ...query, where: { id: args.id }, data: { ...data, slug } }),
      );
    },
  }),
  deleteVenue: t.prismaField({
    type: VenueType,
    description: 'Moves the venue to the trash (and off its events), or deletes it for good with `force`.',
    args: { id: t.arg.int({ required: true }), force: t.arg.boolean({ defaultValue: false }) },
    resolve: async (query, _root, args, ctx) => {
      const current = await existingVenue(ctx, args.id);
      authorizeDelete(ctx, current);
      return trashOrDelete({
        recordType: 'Venue',
        id: args.id,
        status: current.status,
        force: args.force ?? false,
        snapshot: () => ctx.db.venue.findUniqueOrThrow({ ...query, where: { id: args.id } }),
        remove: () => ctx.db.venue.delete({ where: { id: args.id } }),
        trash: async () => {
          const [, venue] = await ctx.db.$transaction([
            ctx.db.eventVenue.deleteMany({ where: { venueId: args.id } }),
            ctx.db.venue.update({ ...query, where: { id: args.id }, data: { status: 'trash', ...modifiedNow(ctx) } }),
          ]);
          return venue;
        },
      });
    },
  }),
}));
