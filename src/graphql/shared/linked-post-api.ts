import { queryFromInfo } from '@pothos/plugin-prisma';
import type { Db, DbTransaction } from '../../db/client.js';
import { lockForWriting } from '../../db/data-version.js';
import { assertReadable, offerPassword, unlockedWhere } from '../access.js';
import type { builder, Context } from '../builder.js';
import { FieldErrors, NotFoundError } from '../errors.js';
import { fetchNewImages, imageIdForWrite, readImageInput, type ImageRef } from '../media/index.js';
import { listOrder, offsetConnection, orderArgs, SortOrderEnum } from './connections.js';
import { describeDuplicateRule, findDuplicateId, type DuplicateRule } from './duplicates.js';
import { checkLinkedPostFilter, linkedPostConditions, withFieldNames } from './linked-posts.js';
import { databaseIdOf, EITHER_ONE_ID, registerNodeReader } from './node.js';
import { authorizeCreate, authorizeDelete, authorizeMissing, authorizeUpdate } from './post-permissions.js';
import { notInTrash, trashOrDelete, updateWithSlug } from './post-writes.js';
import {
  modifiedNow,
  newPostDates,
  PostStatusEnum,
  publicationFromInput,
  type PostStatusValue,
  type PublicationColumns,
} from './posts.js';
import { readableWordSearch, type SearchedFields } from './search.js';
import { slugClashFilter, slugFromText, withFreeSlugIn } from './slugs.js';
import { checkNonEmpty, checkUrl, definedOnly, withoutNulls } from './validate.js';

// Venues and organizers are the "linked posts" of an event (The Events Calendar's term): WordPress posts of their own,
// with the same statuses, authors, passwords, slugs, images and trash, linked to events through a link table. What
// they share lives here once; each module (venues/, organizers/) declares its own fields and checks, and names its root
// fields, each built by a helper here.

/** The columns every linked post has, as read from the database. */
export interface LinkedPostRow {
  id: number;
  slug: string;
  status: PostStatusValue;
  authorId: number | null;
  password: string;
}

/** The input fields every linked post has. */
export interface LinkedPostFields {
  name?: string | null;
  slug?: string | null;
  status?: PostStatusValue | null;
  authorId?: number | null;
  date?: string | null;
  dateUtc?: string | null;
  image?: string | null;
  website?: string | null;
  [field: string]: unknown;
}

export interface CheckedLinkedPost {
  columns: Record<string, unknown>;
  image: ImageRef | null | undefined;
  publication: PublicationColumns | undefined;
}

/** The Prisma delegate of a linked post model, as this module uses it (Venue and Organizer have the same shape). */
interface LinkedPostDelegate {
  findUnique(args: object): Promise<LinkedPostRow | null>;
  findUniqueOrThrow(args: object): Promise<LinkedPostRow>;
  findMany(args: object): Promise<Array<Record<string, unknown>>>;
  count(args: object): Promise<number>;
  create(args: object): Promise<LinkedPostRow>;
  update(args: object): Promise<LinkedPostRow>;
  updateMany(args: object): Promise<{ count: number }>;
  deleteMany(args: object): Promise<{ count: number }>;
}

export interface LinkedPostModel<Fields extends LinkedPostFields> {
  /** `Venue` or `Organizer`: the GraphQL type and the record type in errors. */
  typename: 'Venue' | 'Organizer';
  /** The GraphQL object type (VenueType). */
  type: object;
  /** The GraphQL input type (VenueInput). */
  input: object;
  /** `venue` or `organizer`, and its plural: the words for it in descriptions, and its record type in renumberings. */
  noun: string;
  pluralNoun: string;
  delegate: (db: Db | DbTransaction) => LinkedPostDelegate;
  /** Deletes the record's links to events (when it goes to the trash). */
  unlinkEvents: (db: DbTransaction, id: number) => Promise<unknown>;
  /** The fields `search` looks in: the name for everyone, the rest only where the viewer may read the content. */
  searchFields: SearchedFields;
  searchDescription: string;
  /** Columns that a null clears (the others keep their value on null). */
  nullableColumns: readonly string[];
  /** When a new record duplicates an existing one (The Events Calendar's rule, see duplicates.ts). */
  duplicates: DuplicateRule;
  /** The type's own checks, beyond those every linked post has. */
  checkOwnFields(errors: FieldErrors, field: (name: string) => string, input: Fields): void;
}

/** A venue or organizer model where its own input type does not matter. */
export type AnyLinkedPostModel = LinkedPostModel<LinkedPostFields>;

/**
 * Checks a linked post's input (reads only) and returns the columns to write, less slug and image. `prefix` names the
 * fields when the record comes nested in an event (`venues.0.name`).
 */
export async function checkLinkedPostInput<Fields extends LinkedPostFields>(
  model: LinkedPostModel<Fields>,
  ctx: Context,
  input: Fields,
  creating: boolean,
  prefix = '',
): Promise<CheckedLinkedPost> {
  const errors = new FieldErrors();
  const field = (name: string) => (prefix ? `${prefix}.${name}` : name);
  if (creating && !input.name?.trim()) errors.add(field('name'), 'is required');
  checkNonEmpty(errors, field('name'), input.name);
  checkNonEmpty(errors, field('slug'), input.slug);
  checkUrl(errors, field('website'), input.website);
  model.checkOwnFields(errors, field, input);
  if (
    input.authorId != null &&
    !(await ctx.db.user.findUnique({ where: { id: input.authorId }, select: { id: true } }))
  ) {
    errors.add(field('authorId'), `no user with ID ${input.authorId}`);
  }
  const publication = withFieldNames(errors, field, (inner) =>
    publicationFromInput(ctx, { date: input.date, dateUtc: input.dateUtc }, inner),
  );
  const image = await readImageInput(ctx, errors, field('image'), input.image);
  errors.throwIfAny();
  const { date: _date, dateUtc: _dateUtc, image: _image, slug: _slug, name, ...rest } = input;
  const clearable = Object.fromEntries(model.nullableColumns.map((column) => [column, rest[column]]));
  const columns = definedOnly({ ...withoutNulls(rest), ...clearable, name: name?.trim(), ...(publication ?? {}) });
  return { columns, image, publication };
}

async function takenSlugs(delegate: LinkedPostDelegate, base: string, exceptId?: number): Promise<string[]> {
  const rows = await delegate.findMany({
    where: { ...slugClashFilter(base), NOT: exceptId ? { id: exceptId } : undefined },
    select: { slug: true },
  });
  return rows.map((row) => row.slug as string);
}

/** Creates a linked post from checked input: by its own create mutation, or inside an event's write (`db`). */
export async function insertLinkedPost<Fields extends LinkedPostFields>(
  model: LinkedPostModel<Fields>,
  ctx: Context,
  db: DbTransaction,
  input: Fields,
  checked: CheckedLinkedPost,
): Promise<LinkedPostRow> {
  const stamp = authorizeCreate(ctx, input);
  const imageId = await imageIdForWrite(db, checked.image);
  const delegate = model.delegate(db);
  // Inside an event's transaction (db is not ctx.db) a slug clash is retried by the event's write.
  return withFreeSlugIn(
    db !== ctx.db,
    slugFromText(input.slug ?? input.name!),
    (base) => takenSlugs(delegate, base),
    (slug) =>
      delegate.create({
        data: {
          ...checked.columns,
          ...stamp,
          name: input.name!.trim(),
          slug,
          imageId,
          ...newPostDates(ctx, checked.publication),
        },
      }),
  );
}

/**
 * Inside a writing transaction: the ID of the existing record a new one from `input` would duplicate, else of the one
 * created. The transaction first takes the data-version row's write lock (every writing transaction takes it, see
 * db/data-version.ts), so concurrent creates, in this process or another on the same database, look for a duplicate
 * one after the other and the second finds the first's record.
 */
export async function insertUnlessDuplicate<Fields extends LinkedPostFields>(
  model: LinkedPostModel<Fields>,
  ctx: Context,
  tx: DbTransaction,
  input: Fields,
  checked: CheckedLinkedPost,
): Promise<number> {
  authorizeCreate(ctx, input);
  await lockForWriting(tx);
  const existing = await findDuplicateId(ctx, model.delegate(tx), model.duplicates, input);
  return existing ?? (await insertLinkedPost(model, ctx, tx, input, checked)).id;
}

/** A single read with the viewer's visibility: null when there is none, refused when the viewer may not read it. */
async function readLinkedPost(delegate: LinkedPostDelegate, ctx: Context, query: object, where: object) {
  const record = await delegate.findUnique({ ...query, where });
  if (record) assertReadable(ctx, record);
  return record;
}

/**
 * A single read by ID. An ID the shared_post_ids migration took from a venue or organizer (because an event, or a
 * venue, had it too) still finds that record: integrations that stored it keep working.
 */
async function readLinkedPostById(model: AnyLinkedPostModel, ctx: Context, query: object, id: number) {
  const record = await readLinkedPost(model.delegate(ctx.db), ctx, query, { id });
  if (record) return record;
  const renumbered = await ctx.db.renumberedRecord.findUnique({
    where: { recordType_oldId: { recordType: model.noun, oldId: id } },
    select: { newId: true },
  });
  return renumbered ? readLinkedPost(model.delegate(ctx.db), ctx, query, { id: renumbered.newId }) : null;
}

/** The record a write addresses. Callers who may not write records are refused before they learn whether it exists. */
async function existingLinkedPost(model: AnyLinkedPostModel, ctx: Context, id: number): Promise<LinkedPostRow> {
  const record = await model.delegate(ctx.db).findUnique({ where: { id } });
  if (!record) {
    authorizeMissing(ctx);
    throw new NotFoundError(model.typename, id);
  }
  return record;
}

const LinkedPostOrderByEnum = orderArgs(
  'LinkedPostOrderBy',
  'What a list of venues or organizers is sorted by (then by ID).',
  {
    PUBLISHED: { value: 'publishedAt', description: 'The publication date (the default, newest first).' },
    MODIFIED: { value: 'modifiedAt', description: 'The last change.' },
    NAME: { value: 'name', description: 'The name (the database collation).' },
    ID: { value: 'id', description: 'The database ID.' },
  },
);

type QueryFieldBuilder = Parameters<Parameters<typeof builder.queryFields>[0]>[0];
type MutationFieldBuilder = Parameters<Parameters<typeof builder.mutationFields>[0]>[0];

const passwordArgDescription = (model: AnyLinkedPostModel) =>
  `The password of a password-protected ${model.noun}; with it, its content is shown.`;
const idArgDescription = (model: AnyLinkedPostModel) => `The ${model.noun}'s global ID or database ID.`;

/** Lets `node(id:)` and `nodes(ids:)` read records of this type. */
export function registerLinkedPostNode(model: AnyLinkedPostModel): void {
  registerNodeReader(model.typename, (ctx, id, query) => readLinkedPostById(model, ctx, query, id));
}

/** The root query field of one record by ID (`venue`, `organizer`). */
export function linkedPostByIdField(t: QueryFieldBuilder, model: AnyLinkedPostModel) {
  return t.prismaField({
    type: model.type as never,
    nullable: true,
    description: `One ${model.noun} by ID, or null when there is none.`,
    args: {
      id: t.arg.id({ required: true, description: idArgDescription(model) }),
      password: t.arg.string({ description: passwordArgDescription(model) }),
    },
    resolve: (query, _root, args, ctx) => {
      offerPassword(ctx, args.password);
      return readLinkedPostById(model, ctx, query, databaseIdOf(model.typename, args.id, 'id')) as never;
    },
  });
}

/** The root query field of one record by slug (`venueBySlug`, `organizerBySlug`). */
export function linkedPostBySlugField(t: QueryFieldBuilder, model: AnyLinkedPostModel) {
  return t.prismaField({
    type: model.type as never,
    nullable: true,
    description: `One ${model.noun} by slug, or null when there is none.`,
    args: {
      slug: t.arg.string({
        required: true,
        description: `The ${model.noun}’s slug, as in its page URL (\`/${model.noun}/<slug>/\`).`,
      }),
      password: t.arg.string({ description: passwordArgDescription(model) }),
    },
    resolve: (query, _root, args, ctx) => {
      offerPassword(ctx, args.password);
      return readLinkedPost(model.delegate(ctx.db), ctx, query, { slug: args.slug }) as never;
    },
  });
}

/** The root query field of the list (`venues`, `organizers`). */
export function linkedPostListField(t: QueryFieldBuilder, model: AnyLinkedPostModel) {
  const { noun, pluralNoun } = model;
  return t.connection(
    {
      type: model.type as never,
      description: `${model.typename}s, newest publication first.`,
      args: {
        search: t.arg.string({ description: model.searchDescription }),
        eventId: t.arg.id({ description: `Only the ${pluralNoun} of this event. ${EITHER_ONE_ID}` }),
        event: t.arg.int({
          description: `Only the ${pluralNoun} of this event (database ID).`,
          deprecationReason: 'Use `eventId`, which takes a global ID as well.',
        }),
        hasEvents: t.arg.boolean({ description: `true: only ${pluralNoun} with events; false: only those without.` }),
        onlyWithUpcoming: t.arg.boolean({
          description: `Only ${pluralNoun} with events starting from now that the viewer may read (published ones for everyone, private ones for those who may read them).`,
        }),
        statuses: t.arg({
          type: [PostStatusEnum],
          description: 'Defaults to published only for readers, every status but trash for writers.',
        }),
        password: t.arg.string({ description: passwordArgDescription(model) }),
        orderBy: t.arg({ type: LinkedPostOrderByEnum, description: 'What to sort by; PUBLISHED when left out.' }),
        order: t.arg({ type: SortOrderEnum, description: 'The direction; DESC when left out.' }),
      },
      resolve: async (root, args, ctx, info) => {
        offerPassword(ctx, args.password);
        const where = await linkedPostListWhere(model, ctx, await checkLinkedPostFilter(ctx, args));
        const delegate = model.delegate(ctx.db);
        return offsetConnection(
          args,
          () => delegate.count({ where }),
          ({ offset, limit }) =>
            delegate.findMany({
              ...queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }),
              where,
              orderBy: listOrder(args.orderBy ?? 'publishedAt', args.order ?? 'desc'),
              skip: offset,
              take: limit,
            }),
          root,
        ) as never;
      },
    },
    { description: `A page of ${pluralNoun}, with the number of all that match.` },
    { description: `A ${noun} in a page of the list, with its cursor.` },
  );
}

/** The root query field that finds what a create would duplicate (`matchingVenue`, `matchingOrganizer`). */
export function matchingLinkedPostField<Fields extends LinkedPostFields>(
  t: QueryFieldBuilder,
  model: LinkedPostModel<Fields>,
) {
  const { noun, typename } = model;
  return t.prismaField({
    type: model.type as never,
    nullable: true,
    description:
      `The existing ${noun} that creating one from this input would duplicate, or null. The input is checked as ` +
      `create${typename} checks it. One matches when ${describeDuplicateRule(model.duplicates)}. The oldest match wins.`,
    args: {
      input: t.arg({
        type: model.input as never,
        required: true,
        description: `The ${noun} you are about to create, as \`create${typename}\` would take it.`,
      }),
    },
    resolve: async (query, _root, args, ctx) => {
      const input = args.input as Fields;
      await checkLinkedPostInput(model, ctx, input, true);
      // Asking what a create would duplicate is part of creating: the same right is needed.
      authorizeCreate(ctx, input);
      const delegate = model.delegate(ctx.db);
      const id = await findDuplicateId(ctx, delegate, model.duplicates, input);
      return (id === null ? null : delegate.findUnique({ ...query, where: { id } })) as never;
    },
  });
}

/** The create mutation (`createVenue`, `createOrganizer`). */
export function createLinkedPostField<Fields extends LinkedPostFields>(
  t: MutationFieldBuilder,
  model: LinkedPostModel<Fields>,
) {
  const { noun, typename } = model;
  return t.prismaField({
    type: model.type as never,
    description: `Creates a ${noun}.`,
    args: {
      input: t.arg({
        type: model.input as never,
        required: true,
        description: `The new ${noun}: \`name\` is required.`,
      }),
      reuseDuplicate: t.arg.boolean({
        defaultValue: false,
        description: `Answer the existing ${noun} this one would duplicate (see \`matching${typename}\`) instead of creating another, as the REST API does. Atomic: concurrent identical creates make one ${noun}.`,
      }),
    },
    resolve: async (query, _root, args, ctx) => {
      const input = args.input as Fields;
      const checked = await checkLinkedPostInput(model, ctx, input, true);
      authorizeCreate(ctx, input);
      await fetchNewImages(ctx, [checked.image]);
      const id = args.reuseDuplicate
        ? await ctx.db.$transaction((tx) => insertUnlessDuplicate(model, ctx, tx, input, checked))
        : (await insertLinkedPost(model, ctx, ctx.db, input, checked)).id;
      return model.delegate(ctx.db).findUniqueOrThrow({ ...query, where: { id } }) as never;
    },
  });
}

/** The update mutation (`updateVenue`, `updateOrganizer`). */
export function updateLinkedPostField<Fields extends LinkedPostFields>(
  t: MutationFieldBuilder,
  model: LinkedPostModel<Fields>,
) {
  return t.prismaField({
    type: model.type as never,
    description: `Changes a ${model.noun}; fields left out keep their value.`,
    args: {
      id: t.arg.id({ required: true, description: idArgDescription(model) }),
      input: t.arg({
        type: model.input as never,
        required: true,
        description: 'The fields to change; those left out keep their value.',
      }),
    },
    resolve: async (query, _root, args, ctx) => {
      const id = databaseIdOf(model.typename, args.id, 'id');
      const input = args.input as Fields;
      const current = await existingLinkedPost(model, ctx, id);
      const checked = await checkLinkedPostInput(model, ctx, input, false);
      const { status: _requested, ...columns } = checked.columns;
      const allowed = authorizeUpdate(ctx, current, input);
      await fetchNewImages(ctx, [checked.image]);
      const imageId = await imageIdForWrite(ctx.db, checked.image);
      const data = { ...columns, ...allowed, ...(imageId === undefined ? {} : { imageId }), ...modifiedNow(ctx) };
      const delegate = model.delegate(ctx.db);
      return updateWithSlug(
        current.slug,
        input.slug,
        (base) => takenSlugs(delegate, base, id),
        (slug) => delegate.update({ ...query, where: { id }, data: { ...data, slug } }),
      ) as never;
    },
  });
}

/** The delete mutation (`deleteVenue`, `deleteOrganizer`): to the trash, or for good with `force`. */
export function deleteLinkedPostField(t: MutationFieldBuilder, model: AnyLinkedPostModel) {
  return t.prismaField({
    type: model.type as never,
    description: `Moves the ${model.noun} to the trash (and off its events), or deletes it for good with \`force\`.`,
    args: {
      id: t.arg.id({ required: true, description: idArgDescription(model) }),
      force: t.arg.boolean({ defaultValue: false, description: 'Delete for good instead of moving to the trash.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const id = databaseIdOf(model.typename, args.id, 'id');
      const current = await existingLinkedPost(model, ctx, id);
      authorizeDelete(ctx, current);
      const delegate = model.delegate(ctx.db);
      return trashOrDelete({
        recordType: model.typename,
        id,
        status: current.status,
        force: args.force ?? false,
        snapshot: () => delegate.findUniqueOrThrow({ ...query, where: { id } }),
        remove: async () => (await delegate.deleteMany({ where: { id } })).count,
        trash: () =>
          ctx.db.$transaction(async (tx) => {
            const { count } = await model
              .delegate(tx)
              .updateMany({ where: notInTrash(id), data: { status: 'trash', ...modifiedNow(ctx) } });
            if (count === 0) return null;
            await model.unlinkEvents(tx, id);
            return model.delegate(tx).findUniqueOrThrow({ ...query, where: { id } });
          }),
      }) as never;
    },
  });
}

/** The list's condition: status and link filters, and the search over the type's searched fields. */
async function linkedPostListWhere(
  model: AnyLinkedPostModel,
  ctx: Context,
  args: Parameters<typeof linkedPostConditions>[1],
) {
  const conditions = linkedPostConditions(ctx, args);
  if (args.search) {
    const others = [...conditions];
    conditions.push(
      await readableWordSearch(
        ctx.config.engine,
        args.search,
        model.searchFields,
        unlockedWhere(ctx),
        (match, select) => model.delegate(ctx.db).findMany({ where: { AND: [...others, match] }, select }),
      ),
    );
  }
  return { AND: conditions };
}
