import { queryFromInfo } from '@pothos/plugin-prisma';
import type { Prisma } from '../../db/generated/prisma/client.js';
import type { Taxonomy } from '../../db/generated/prisma/enums.js';
import { builder, type Context } from '../builder.js';
import { FieldErrors } from '../errors.js';
import { offsetConnection, SortOrderEnum, type SortOrder } from '../shared/connections.js';
import { databaseIdOf, EITHER_ID, EITHER_ONE_ID, referencedIds, registerNodeReader } from '../shared/node.js';
import { literalTextSearch } from '../shared/search.js';
import { EventCategoryType, EventTagType } from './types.js';

export const TermOrderByEnum = builder.enumType('TermOrderBy', {
  description: 'What a list of categories or tags is sorted by (REST `orderby`); ties are broken by database ID.',
  values: {
    ID: { value: 'id', description: 'The database ID.' },
    NAME: { value: 'name', description: 'The name, ignoring case and accents, as WordPress sorts it.' },
    SLUG: { value: 'slug', description: 'The slug.' },
    DESCRIPTION: { value: 'description', description: 'The description text (HTML as stored).' },
    PARENT: {
      value: 'parentId',
      description: 'The parent category’s database ID; top-level categories come first in either direction.',
    },
    COUNT: { value: 'count', description: 'How many published events carry the term (`count`).' },
  } as const,
});

type TermOrderBy = 'id' | 'name' | 'slug' | 'description' | 'parentId' | 'count';

export interface TermListFilter {
  search?: string | null;
  include?: number[] | null;
  exclude?: number[] | null;
  hideEmpty?: boolean | null;
  parent?: number | null;
  event?: number | null;
  slug?: string | null;
  /** The argument each reference was given as (`includeIds` or the older `include` …), for error messages. */
  given?: Partial<Record<'include' | 'exclude' | 'parent' | 'event', string>>;
}

/** The list's arguments: each reference by an `ID` argument, or by its older `Int` one (deprecated). */
interface TermListArgs {
  search?: string | null;
  includeIds?: readonly (string | number)[] | null;
  include?: readonly number[] | null;
  excludeIds?: readonly (string | number)[] | null;
  exclude?: readonly number[] | null;
  hideEmpty?: boolean | null;
  parentId?: string | number | null;
  parent?: number | null;
  eventId?: string | number | null;
  event?: number | null;
  slug?: string | null;
}

/** The arguments as database IDs (global or database IDs taken), or a BAD_USER_INPUT naming the argument. */
function termListFilter(typename: 'EventCategory' | 'EventTag', args: TermListArgs): TermListFilter {
  const errors = new FieldErrors();
  const include = referencedIds(errors, typename, 'includeIds', args.includeIds, 'include', args.include);
  const exclude = referencedIds(errors, typename, 'excludeIds', args.excludeIds, 'exclude', args.exclude);
  const [event] = referencedIds(errors, 'Event', 'eventId', args.eventId, 'event', args.event) ?? [];
  // `parentId: 0` (or "0") asks for top-level categories, as `parent: 0` does.
  const topLevel = args.parentId != null && String(args.parentId).trim() === '0';
  if (topLevel && args.parent != null) errors.add('parentId', 'give `parentId` or `parent`, not both');
  const [parent] = topLevel
    ? [0]
    : (referencedIds(errors, 'EventCategory', 'parentId', args.parentId, 'parent', args.parent) ?? []);
  errors.throwIfAny();
  const nameOf = (field: string, older: string, given: unknown) => (given != null ? field : older);
  return {
    search: args.search,
    hideEmpty: args.hideEmpty,
    slug: args.slug,
    include,
    exclude,
    parent,
    event,
    given: {
      include: nameOf('includeIds', 'include', args.includeIds),
      exclude: nameOf('excludeIds', 'exclude', args.excludeIds),
      parent: nameOf('parentId', 'parent', args.parentId),
      event: nameOf('eventId', 'event', args.eventId),
    },
  };
}

async function checkTermIds(
  ctx: Context,
  taxonomy: Taxonomy,
  errors: FieldErrors,
  field: string,
  ids: number[] | null | undefined,
) {
  if (!ids?.length) return;
  const found = await ctx.db.term.findMany({ where: { taxonomy, id: { in: ids } }, select: { id: true } });
  const known = new Set(found.map((term) => term.id));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length) errors.add(field, `no ${taxonomy} with ID ${missing.join(', ')}`);
}

/** Checks the filter's references and turns it into a Prisma condition. */
export async function termListWhere(
  ctx: Context,
  taxonomy: Taxonomy,
  filter: TermListFilter,
): Promise<Prisma.TermWhereInput> {
  const errors = new FieldErrors();
  const given = { include: 'include', exclude: 'exclude', parent: 'parent', event: 'event', ...filter.given };
  await checkTermIds(ctx, taxonomy, errors, given.include, filter.include);
  await checkTermIds(ctx, taxonomy, errors, given.exclude, filter.exclude);
  if (filter.parent != null && filter.parent !== 0)
    await checkTermIds(ctx, 'category', errors, given.parent, [filter.parent]);
  if (filter.event != null && !(await ctx.db.event.findUnique({ where: { id: filter.event }, select: { id: true } }))) {
    errors.add(given.event, `no event with ID ${filter.event}`);
  }
  if (filter.search !== undefined && filter.search !== null && filter.search.trim() === '')
    errors.add('search', 'must not be empty');
  if (filter.slug !== undefined && filter.slug !== null && filter.slug.trim() === '')
    errors.add('slug', 'must not be empty');
  errors.throwIfAny();
  const conditions: Prisma.TermWhereInput[] = [{ taxonomy }];
  if (filter.search) {
    const others = [...conditions];
    conditions.push(
      (await literalTextSearch(ctx.config.engine, filter.search, ['name', 'slug'], (match, select) =>
        ctx.db.term.findMany({ where: { AND: [...others, match as Prisma.TermWhereInput] }, select }),
      )) as Prisma.TermWhereInput,
    );
  }
  if (filter.include?.length) conditions.push({ id: { in: filter.include } });
  if (filter.exclude?.length) conditions.push({ id: { notIn: filter.exclude } });
  if (filter.hideEmpty ?? true) conditions.push({ eventCount: { gt: 0 } });
  if (filter.parent != null) conditions.push({ parentId: filter.parent === 0 ? null : filter.parent });
  if (filter.event != null) conditions.push({ events: { some: { eventId: filter.event } } });
  if (filter.slug) conditions.push({ slug: filter.slug });
  return { AND: conditions };
}

function termOrder(orderBy: Exclude<TermOrderBy, SortedHere>, order: SortOrder): Prisma.TermOrderByWithRelationInput[] {
  if (orderBy === 'id') return [{ id: order }];
  if (orderBy === 'parentId') return [{ parentId: { sort: order, nulls: 'first' } }, { id: order }];
  if (orderBy === 'count') return [{ eventCount: order }, { id: order }];
  return [{ [orderBy]: order }, { id: order }];
}

/**
 * The list's order. `order` and `orderBy` have defaults, but a client may still send null for them explicitly
 * (GraphQL applies a default only to an argument left out): refused, naming the argument.
 */
function termOrdering(args: { order?: unknown; orderBy?: unknown }): { order: SortOrder; orderBy: TermOrderBy } {
  const errors = new FieldErrors();
  if (args.order === null) errors.add('order', 'must be ASC or DESC, not null');
  if (args.orderBy === null) errors.add('orderBy', 'must be one of the TermOrderBy values, not null');
  errors.throwIfAny();
  return { order: args.order as SortOrder, orderBy: args.orderBy as TermOrderBy };
}

/** The order SQL cannot give portably: `name`. */
type SortedHere = 'name';
const sortedHere = (orderBy: TermOrderBy): orderBy is SortedHere => orderBy === 'name';

/** Names compare as WordPress's MySQL collation does: ignoring case and accents ("apple" before "Zebra"). */
const nameCollator = new Intl.Collator('en', { sensitivity: 'base' });

/**
 * A page of terms by name, sorted here rather than in SQL (SQLite's and PostgreSQL's default collations do not ignore
 * case), ties broken by ID in the same direction: the names of all matching terms are read, sorted, and the page is
 * then loaded.
 */
async function termPageSortedHere(
  ctx: Context,
  where: Prisma.TermWhereInput,
  order: SortOrder,
  page: { offset: number; limit: number },
  query: object,
) {
  const direction = order === 'asc' ? 1 : -1;
  const terms = await ctx.db.term.findMany({ where, select: { id: true, name: true } });
  const pageIds = terms
    .sort((a, b) => direction * (nameCollator.compare(a.name, b.name) || a.id - b.id))
    .slice(page.offset, page.offset + page.limit)
    .map((term) => term.id);
  const rows = await ctx.db.term.findMany({ ...query, where: { id: { in: pageIds } } });
  const byId = new Map(rows.map((term) => [term.id, term]));
  return pageIds.flatMap((id) => byId.get(id) ?? []);
}

function defineTermQueries(
  taxonomy: Taxonomy,
  typename: 'EventCategory' | 'EventTag',
  single: string,
  plural: string,
  type: typeof EventCategoryType,
) {
  registerNodeReader(typename, (ctx, id, query) => ctx.db.term.findFirst({ ...query, where: { id, taxonomy } }));
  builder.queryFields((t) => ({
    [single]: t.prismaField({
      type,
      nullable: true,
      description: `One ${taxonomy} by ID, or null when there is none.`,
      args: { id: t.arg.id({ required: true, description: `The ${taxonomy}'s global ID or database ID.` }) },
      resolve: (query, _root, args, ctx) =>
        ctx.db.term.findFirst({ ...query, where: { id: databaseIdOf(typename, args.id, 'id'), taxonomy } }),
    }),
    [plural]: t.connection(
      {
        type,
        description: `${taxonomy === 'category' ? 'Event categories' : 'Event tags'}, name ascending unless asked otherwise.`,
        args: {
          search: t.arg.string({ description: 'Part of the name or slug (case-insensitive).' }),
          includeIds: t.arg.idList({ description: `Only these ${plural}; each must exist. ${EITHER_ID}` }),
          include: t.arg.intList({
            description: 'Only these database IDs; each must exist.',
            deprecationReason: 'Use `includeIds`, which takes global IDs as well.',
          }),
          excludeIds: t.arg.idList({ description: `Not these ${plural}; each must exist. ${EITHER_ID}` }),
          exclude: t.arg.intList({
            description: 'Not these database IDs; each must exist.',
            deprecationReason: 'Use `excludeIds`, which takes global IDs as well.',
          }),
          order: t.arg({
            type: SortOrderEnum,
            defaultValue: 'asc',
            description: 'The direction of `orderBy`; null is refused.',
          }),
          orderBy: t.arg({
            type: TermOrderByEnum,
            defaultValue: 'name',
            description: 'What the list is sorted by; null is refused.',
          }),
          hideEmpty: t.arg.boolean({ defaultValue: true, description: 'Leave out terms no published event carries.' }),
          ...(taxonomy === 'category'
            ? {
                parentId: t.arg.id({
                  description: `Only the children of this category; 0 for top-level categories. ${EITHER_ONE_ID}`,
                }),
                parent: t.arg.int({
                  description: 'Only the children of this category (database ID); 0 for top-level categories.',
                  deprecationReason: 'Use `parentId`, which takes a global ID as well.',
                }),
              }
            : {}),
          eventId: t.arg.id({ description: `Only the terms of this event. ${EITHER_ONE_ID}` }),
          event: t.arg.int({
            description: 'Only the terms of this event (database ID).',
            deprecationReason: 'Use `eventId`, which takes a global ID as well.',
          }),
          slug: t.arg.string({ description: 'Exactly this slug.' }),
        },
        resolve: async (root, args, ctx, info) => {
          const { order, orderBy } = termOrdering(args);
          const where = await termListWhere(ctx, taxonomy, termListFilter(typename, args as TermListArgs));
          const query = () => queryFromInfo({ context: ctx, info, path: ['edges', 'node'] });
          return offsetConnection(
            args,
            () => ctx.db.term.count({ where }),
            ({ offset, limit }) =>
              sortedHere(orderBy)
                ? termPageSortedHere(ctx, where, order, { offset, limit }, query())
                : ctx.db.term.findMany({
                    ...query(),
                    where,
                    orderBy: termOrder(orderBy, order),
                    skip: offset,
                    take: limit,
                  }),
            root,
          );
        },
      },
      {
        description: `A page of ${taxonomy === 'category' ? 'event categories' : 'event tags'}, with the number of all that match.`,
      },
      { description: `A ${taxonomy} in a page of the list, with its cursor.` },
    ),
  }));
}

defineTermQueries('category', 'EventCategory', 'eventCategory', 'eventCategories', EventCategoryType);
defineTermQueries('tag', 'EventTag', 'eventTag', 'eventTags', EventTagType as unknown as typeof EventCategoryType);
