import { canManageTerms, refuse } from '../access.js';
import type { Taxonomy } from '../../db/generated/prisma/enums.js';
import { builder, type Context } from '../builder.js';
import { databaseIdOf } from '../shared/node.js';
import { FieldErrors, InputError, NotFoundError } from '../errors.js';
import { slugClashFilter, slugFromText, withFreeSlug } from '../shared/slugs.js';
import { checkNonEmpty } from '../shared/validate.js';
import { EventCategoryType, EventTagType } from './types.js';

const TermInput = builder.inputType('TermInput', {
  description: 'Fields of a category or tag. On update, fields left out keep their value.',
  fields: (t) => ({
    name: t.field({
      type: 'PlainText',
      description:
        'The name shown to people; required on create. No two categories under one parent (or two tags) may share it, ignoring case.',
    }),
    slug: t.string({ description: 'Generated from the name when absent; `-2`, `-3` … added on clashes.' }),
    description: t.field({
      type: 'HTML',
      description: 'A longer description (HTML), shown on the term’s archive page.',
    }),
    parentId: t.int({ description: 'Categories only: the parent category, or null for a top-level one.' }),
  }),
});

interface TermFields {
  name?: string | null;
  slug?: string | null;
  description?: string | null;
  parentId?: number | null;
}

const labels: Record<Taxonomy, string> = { category: 'Category', tag: 'Tag' };

/**
 * Checks a create (`current` null) or an update. The name must be free under the parent the term will have, so a
 * move to another parent is checked against the names there too.
 */
async function checkTermInput(
  ctx: Context,
  taxonomy: Taxonomy,
  input: TermFields,
  current: { id: number; name: string } | null,
): Promise<void> {
  const id = current?.id ?? null;
  const errors = new FieldErrors();
  if (id === null && !input.name) errors.add('name', 'is required');
  checkNonEmpty(errors, 'name', input.name);
  checkNonEmpty(errors, 'slug', input.slug);
  if (input.parentId != null) {
    if (taxonomy !== 'category') errors.add('parentId', 'tags have no parent');
    else if (input.parentId === id) errors.add('parentId', 'a category cannot be its own parent');
    else if (!(await ctx.db.term.findFirst({ where: { id: input.parentId, taxonomy }, select: { id: true } }))) {
      errors.add('parentId', `no category with ID ${input.parentId}`);
    } else if (id !== null && (await isDescendant(ctx, input.parentId, id))) {
      errors.add('parentId', 'a category cannot move below one of its own descendants');
    }
  }
  errors.throwIfAny();
  const name = input.name ?? current?.name;
  if (name) await refuseDuplicateName(ctx, taxonomy, name, input.parentId ?? null, id);
}

async function isDescendant(ctx: Context, candidate: number, ancestor: number): Promise<boolean> {
  for (let current: number | null = candidate, depth = 0; current !== null && depth < 100; depth++) {
    if (current === ancestor) return true;
    const row: { parentId: number | null } | null = await ctx.db.term.findUnique({
      where: { id: current },
      select: { parentId: true },
    });
    current = row?.parentId ?? null;
  }
  return false;
}

/** WordPress refuses a second term with the same name under the same parent (`term_exists`). */
async function refuseDuplicateName(
  ctx: Context,
  taxonomy: Taxonomy,
  name: string,
  parentId: number | null,
  id: number | null,
) {
  const sameName = await ctx.db.term.findMany({
    where: { taxonomy, parentId, NOT: id === null ? undefined : { id } },
    select: { id: true, name: true },
  });
  const clash = sameName.find((term) => term.name.toLowerCase() === name.trim().toLowerCase());
  if (clash) {
    throw new InputError(
      { name: `a ${taxonomy} with this name already exists (ID ${clash.id})` },
      { termExists: clash.id },
    );
  }
}

export async function createTerm(ctx: Context, taxonomy: Taxonomy, input: TermFields) {
  await checkTermInput(ctx, taxonomy, input, null);
  authorizeTermWrite(ctx);
  const name = input.name!.trim();
  return withFreeSlug(
    slugFromText(input.slug ?? name),
    async (base) =>
      (await ctx.db.term.findMany({ where: { taxonomy, ...slugClashFilter(base) }, select: { slug: true } })).map(
        (t) => t.slug,
      ),
    (slug) =>
      ctx.db.term.create({
        data: { taxonomy, name, slug, description: input.description ?? '', parentId: input.parentId ?? null },
      }),
  );
}

/** Categories and tags are written by users who may both write records and manage terms (editors and up). */
function authorizeTermWrite(ctx: Context): void {
  if (!canManageTerms(ctx.viewer.user)) refuse(ctx);
}

async function existingTerm(ctx: Context, taxonomy: Taxonomy, id: number) {
  const term = await ctx.db.term.findFirst({ where: { id, taxonomy } });
  if (!term) throw new NotFoundError(labels[taxonomy], id);
  return term;
}

export async function updateTerm(ctx: Context, taxonomy: Taxonomy, id: number, input: TermFields) {
  const current = await existingTerm(ctx, taxonomy, id);
  await checkTermInput(
    ctx,
    taxonomy,
    {
      ...input,
      name: input.name ?? undefined,
      parentId: input.parentId === undefined ? current.parentId : input.parentId,
    },
    current,
  );
  authorizeTermWrite(ctx);
  const data = {
    name: input.name?.trim() ?? undefined,
    description: input.description ?? undefined,
    parentId: input.parentId,
  };
  if (!input.slug || slugFromText(input.slug) === current.slug) return ctx.db.term.update({ where: { id }, data });
  return withFreeSlug(
    slugFromText(input.slug),
    async (base) =>
      (
        await ctx.db.term.findMany({
          where: { taxonomy, id: { not: id }, ...slugClashFilter(base) },
          select: { slug: true },
        })
      ).map((t) => t.slug),
    (slug) => ctx.db.term.update({ where: { id }, data: { ...data, slug } }),
  );
}

/**
 * Deletes for good (terms have no trash) and answers the deleted term as it was, its `count` included. As in
 * WordPress, the children of a deleted category move to its parent (to the top level when it had none).
 */
export async function deleteTerm(ctx: Context, taxonomy: Taxonomy, id: number, query: object = {}) {
  const { parentId } = await existingTerm(ctx, taxonomy, id);
  authorizeTermWrite(ctx);
  // The answer is read before the delete: its relations (parent, children) and its `count` as they were.
  const term = await ctx.db.term.findUniqueOrThrow({ ...query, where: { id } });
  await ctx.db.$transaction([
    ctx.db.term.updateMany({ where: { parentId: id }, data: { parentId } }),
    ctx.db.term.delete({ where: { id } }),
  ]);
  return term;
}

function defineTermMutations(
  taxonomy: Taxonomy,
  typeName: 'EventCategory' | 'EventTag',
  type: typeof EventCategoryType,
) {
  const idArg = `The ${taxonomy}'s global ID or database ID.`;
  builder.mutationFields((t) => ({
    [`create${typeName}`]: t.field({
      type,
      description: `Creates a ${taxonomy}.`,
      args: {
        input: t.arg({ type: TermInput, required: true, description: `The new ${taxonomy}: \`name\` is required.` }),
      },
      resolve: (_root, args, ctx) => createTerm(ctx, taxonomy, args.input),
    }),
    [`update${typeName}`]: t.field({
      type,
      description: `Changes a ${taxonomy}; fields left out keep their value.`,
      args: {
        id: t.arg.id({ required: true, description: idArg }),
        input: t.arg({
          type: TermInput,
          required: true,
          description: 'The fields to change; those left out keep their value.',
        }),
      },
      resolve: (_root, args, ctx) => updateTerm(ctx, taxonomy, databaseIdOf(typeName, args.id, 'id'), args.input),
    }),
    [`delete${typeName}`]: t.prismaField({
      type,
      description:
        'Deletes the term for good and answers it as it was.' +
        (taxonomy === 'category' ? ' Its children move to its parent.' : ''),
      args: { id: t.arg.id({ required: true, description: idArg }) },
      resolve: (query, _root, args, ctx) => deleteTerm(ctx, taxonomy, databaseIdOf(typeName, args.id, 'id'), query),
    }),
  }));
}

defineTermMutations('category', 'EventCategory', EventCategoryType);
defineTermMutations('tag', 'EventTag', EventTagType as unknown as typeof EventCategoryType);
