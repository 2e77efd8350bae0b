import { canManageTerms } from '../access.js';
import type { DbTransaction } from '../../db/client.js';
import type { Taxonomy } from '../../db/generated/prisma/enums.js';
import type { Context } from '../builder.js';
import type { FieldErrors } from '../errors.js';
import { isStorableId } from '../shared/ids.js';
import { equalTextCandidates } from '../shared/search.js';
import { firstFreeSlug, slugClashFilter, slugFromText } from '../shared/slugs.js';

const isId = (ref: string) => /^\d+$/.test(ref.trim());

/**
 * Term IDs for a list filter given as IDs or slugs. Every reference must exist; unknown ones are reported on `field`.
 * A slug is matched as given or cleaned as slugs are (`Music` finds `music`), as WordPress sanitizes it.
 */
export async function termIdsForFilter(
  ctx: Context,
  errors: FieldErrors,
  field: string,
  taxonomy: Taxonomy,
  refs: string[],
) {
  const ids = refs.filter(isId).map(Number);
  const slugs = refs.filter((ref) => !isId(ref)).map((ref) => ref.trim());
  const found = await ctx.db.term.findMany({
    where: {
      taxonomy,
      OR: [{ id: { in: ids.filter(isStorableId) } }, { slug: { in: [...slugs, ...slugs.map(slugFromText)] } }],
    },
    select: { id: true, slug: true },
  });
  const missing = [
    ...ids.filter((id) => !found.some((term) => term.id === id)),
    ...slugs.filter((slug) => !found.some((term) => term.slug === slug || term.slug === slugFromText(slug))),
  ];
  if (missing.length) errors.add(field, `no ${taxonomy} ${missing.join(', ')}`);
  return found.map((term) => term.id);
}

export interface TermAssignment {
  ids: number[];
  namesToCreate: string[];
}

/**
 * Reads term references on an event write: IDs must exist; names (or slugs) are matched case-insensitively and
 * created when missing. Nothing is written here.
 */
export async function readTermAssignment(
  ctx: Context,
  errors: FieldErrors,
  field: string,
  taxonomy: Taxonomy,
  refs: string[],
): Promise<TermAssignment> {
  const cleaned = refs.map((ref) => ref.trim()).filter((ref) => ref !== '');
  const ids = cleaned.filter(isId).map(Number);
  const names = cleaned.filter((ref) => !isId(ref));
  const byId = await ctx.db.term.findMany({
    where: { taxonomy, id: { in: ids.filter(isStorableId) } },
    select: { id: true },
  });
  const unknownIds = ids.filter((id) => !byId.some((term) => term.id === id));
  if (unknownIds.length) errors.add(field, `no ${taxonomy} with ID ${unknownIds.join(', ')}`);
  const slugs = names.map(slugFromText);
  // Narrows to a few rows (long names and LIKE's special characters included); the exact case-insensitive
  // comparison below decides.
  const sameName = names.map((name) => equalTextCandidates(ctx.config.engine, 'name', name));
  const candidates = names.length
    ? await ctx.db.term.findMany({
        where: { taxonomy, OR: [{ slug: { in: [...names, ...slugs] } }, ...sameName] },
        select: { id: true, name: true, slug: true },
      })
    : [];
  const assigned = new Set(byId.map((term) => term.id));
  const namesToCreate: string[] = [];
  for (const name of names) {
    const match = candidates.find(
      (term) =>
        term.slug === name || term.name.toLowerCase() === name.toLowerCase() || term.slug === slugFromText(name),
    );
    if (match) assigned.add(match.id);
    else if (!namesToCreate.some((other) => other.toLowerCase() === name.toLowerCase())) namesToCreate.push(name);
  }
  refuseCreationWithoutManageTerms(ctx, errors, field, taxonomy, namesToCreate);
  return { ids: [...assigned], namesToCreate };
}

/**
 * A name that is not a term yet creates one, which needs what creating it directly needs (manage_terms, editors and
 * up), for tags as for categories. WordPress lets anyone who may edit a post create tags by naming them in it, and
 * the original creates any missing term; least privilege keeps one rule: writers assign existing terms only.
 */
function refuseCreationWithoutManageTerms(
  ctx: Context,
  errors: FieldErrors,
  field: string,
  taxonomy: Taxonomy,
  names: string[],
): void {
  if (names.length && !canManageTerms(ctx.viewer.user)) {
    errors.add(
      field,
      `no ${taxonomy} ${names.map((name) => JSON.stringify(name)).join(', ')}; creating one needs the manage_terms capability`,
    );
  }
}

/**
 * Creates the missing terms of an assignment, inside the event's transaction, and answers every term ID to link.
 * A term of the same name found among the slug's clashes is reused. One created by another writer after that read
 * makes the insert of the same slug fail; the event's transaction is then retried whole and finds it.
 */
export async function termIdsForWrite(
  db: DbTransaction,
  taxonomy: Taxonomy,
  assignment: TermAssignment,
): Promise<number[]> {
  const ids = [...assignment.ids];
  for (const name of assignment.namesToCreate) {
    const base = slugFromText(name);
    const clashes = await db.term.findMany({
      where: { taxonomy, ...slugClashFilter(base) },
      select: { id: true, name: true, slug: true },
    });
    const sameName = clashes.find((term) => term.name.toLowerCase() === name.toLowerCase());
    const term =
      sameName ??
      (await db.term.create({
        data: {
          taxonomy,
          name,
          slug: firstFreeSlug(
            base,
            clashes.map((clash) => clash.slug),
          ),
        },
        select: { id: true },
      }));
    ids.push(term.id);
  }
  return ids;
}
