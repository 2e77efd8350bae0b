import { queryFromInfo } from '@pothos/plugin-prisma';
import type { Prisma } from '../../db/generated/prisma/client.js';
import type { Taxonomy } from '../../db/generated/prisma/enums.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { FieldErrors } from '../errors.js';
import { offsetConnection } from '../shared/connections.js';
import { SortOrderEnum, type SortOrder } from '../shared/ordering.js';
import { textContains } from '../shared/posts.js';
import { EventCategoryType, EventTagType } from './types.js';

export const TermOrderByEnum = builder.enumType('TermOrderBy', {
  values: {
    ID: { value: 'id' },
    NAME: { value: 'name' },
    SLUG: { value: 'slug' },
    DESCRIPTION: { value: 'description' },
    PARENT: { value: 'parentId' },
    COUNT: { value: 'count' },
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
}

const publishedEvent = { event: { status: 'publish' as const } };

async function checkTermIds(ctx: Context, taxonomy: Taxonomy, errors: FieldErrors, field: string, ids: number[] | null | undefined) {
  if (!ids?.length) return;
  const found = await ctx.db.term.findMany({ where: { taxonomy, id: { in: ids } }, select: { id: true } });
  const known = new Set(found.map((term) => term.id));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length) errors.add(field, `no ${taxonomy} with ID ${missing.join(', ')}`);
}

/** Checks the filter's references and turns it into a Prisma condition. */
export async function termListWhere(ctx: Context, taxonomy: Taxonomy, filter: TermListFilter): Promise<Prisma.TermWhereInput> {
  const errors = new FieldErrors();
  await checkTermIds(ctx, taxonomy, errors, 'include', filter.include);
  await checkTermIds(ctx, taxonomy, errors, 'exclude', filter.exclude);
  if (filter.parent != null) await checkTermIds(ctx, 'category', errors, 'parent', [filter.parent]);
  if (filter.event != null && !(await ctx.db.event.findUnique({ where: { id: filter.event }, select: { id: true } }))) {
    errors.add('event', `no event with ID ${filter.event}`);
  }
  if (filter.search !== undefined && filter.search !== null && filter.search.trim() === '') errors.add('search', 'must not be empty');
  if (filter.slug !== undefined && filter.slug !== null && filter.slug.trim() === '') errors.add('slug', 'must not be empty');
  errors.throwIfAny();
  const conditions: Prisma.TermWhereInput[] = [{ taxonomy }];
  if (filter.search) conditions.push({ OR: [{ name: textContains(filter.search) }, { slug: textContains(filter.search) }] });
  if (filter.include?.length) conditions.push({ id: { in: filter.include } });
  if (filter.exclude?.length) conditions.push({ id: { notIn: filter.exclude } });
  if (filter.hideEmpty ?? true) conditions.push({ events: { some: publishedEvent } });
  if (filter.parent != null) conditions.push({ parentId: filter.parent });
  if (filter.event != null) conditions.push({ events: { some: { eventId: filter.event } } });
  if (filter.slug) conditions.push({ slug: filter.slug });
  return { AND: conditions };
}

function termOrder(orderBy: TermOrderBy, order: SortOrder): Prisma.TermOrderByWithRelationInput[] {
  if (orderBy === 'count') return [{ events: { _count: order } }, { id: order }];
  if (orderBy === 'id') return [{ id: order }];
  if (orderBy === 'parentId') return [{ parentId: { sort: order, nulls: 'first' } }, { id: order }];
  return [{ [orderBy]: order }, { id: order }];
}

function defineTermQueries(taxonomy: Taxonomy, single: string, plural: string, type: typeof EventCategoryType) {
  builder.queryFields((t) => ({
    [single]: t.prismaField({
      type,
      nullable: true,
      description: `One ${taxonomy} by ID, or null when there is none.`,
      args: { id: t.arg.int({ required: true }) },
      resolve: (query, _root, args, ctx) => ctx.db.term.findFirst({ ...query, where: { id: args.id, taxonomy } }),
    }),
    [plural]: t.connection({
      type,
      description: `${taxonomy === 'category' ? 'Event categories' : 'Event tags'}, name ascending unless asked otherwise.`,
      args: {
        search: t.arg.string({ description: 'Part of the name or slug (case-insensitive).' }),
        include: t.arg.intList({ description: 'Only these IDs; each must exist.' }),
        exclude: t.arg.intList({ description: 'Not these IDs; each must exist.' }),
        order: t.arg({ type: SortOrderEnum, defaultValue: 'asc' }),
        orderBy: t.arg({ type: TermOrderByEnum, defaultValue: 'name' }),
        hideEmpty: t.arg.boolean({ defaultValue: true, description: 'Leave out terms no published event carries.' }),
        ...(taxonomy === 'category' ? { parent: t.arg.int({ description: 'Only the children of this category.' }) } : {}),
        event: t.arg.int({ description: 'Only the terms of this event.' }),
        slug: t.arg.string({ description: 'Exactly this slug.' }),
      },
      resolve: async (_root, args, ctx, info) => {
        const where = await termListWhere(ctx, taxonomy, args as TermListFilter);
        const orderBy = termOrder(args.orderBy as TermOrderBy, args.order as SortOrder);
        return offsetConnection(
          args,
          () => ctx.db.term.count({ where }),
          ({ offset, limit }) =>
            ctx.db.term.findMany({ ...queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }), where, orderBy, skip: offset, take: limit }),
        );
      },
    }),
  }));
}

defineTermQueries('category', 'eventCategory', 'eventCategories', EventCategoryType);
defineTermQueries('tag', 'eventTag', 'eventTags', EventTagType as unknown as typeof EventCategoryType);
