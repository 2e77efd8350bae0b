import slugify from 'slugify';
import { invalidField } from '../errors.js';

/** WordPress-like slug: lower case, accents folded, anything else becomes a hyphen. */
export function slugFromText(text: string): string {
  const slug = slugify(text, { lower: true, strict: true, trim: true });
  return slug === '' ? 'untitled' : slug.slice(0, 190);
}

export function validateSlug(field: string, slug: string): string {
  const clean = slugFromText(slug);
  if (slug.trim() === '') throw invalidField(field, 'must not be empty');
  return clean;
}

/** The first of `base`, `base-2`, `base-3` … not in `taken`. */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** Slugs that could clash with `base`: itself and its numbered forms. */
export function slugClashFilter(base: string) {
  return { OR: [{ slug: base }, { slug: { startsWith: `${base}-` } }] };
}

/** A unique-index refusal on a slug: SQLite names the columns, PostgreSQL the index (`Event_slug_key`). */
function isSlugConflict(error: unknown): boolean {
  const e = error as {
    code?: string;
    meta?: {
      target?: unknown;
      driverAdapterError?: { cause?: { constraint?: { fields?: string[]; index?: string } } };
    };
  };
  if (e?.code !== 'P2002') return false;
  const constraint = e.meta?.driverAdapterError?.cause?.constraint;
  return JSON.stringify([constraint?.fields, constraint?.index, e.meta?.target]).includes('slug');
}

/**
 * Runs `write` with a free slug. Another writer may take the same slug between the check and the insert (several
 * processes share the database); the unique index then refuses it and the next free slug is tried.
 */
export async function withFreeSlug<T>(
  base: string,
  takenSlugs: (base: string) => Promise<string[]>,
  write: (slug: string) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const slug = firstFreeSlug(base, await takenSlugs(base));
    try {
      return await write(slug);
    } catch (error) {
      if (!isSlugConflict(error) || attempt >= 20) throw error;
    }
  }
}

/**
 * Like withFreeSlug, for a write inside a transaction: there a refused insert ends the whole transaction
 * (PostgreSQL), so no retry is made here; the conflict reaches whoever runs the transaction, which retries it whole.
 */
export async function withFreeSlugIn<T>(
  inTransaction: boolean,
  base: string,
  takenSlugs: (base: string) => Promise<string[]>,
  write: (slug: string) => Promise<T>,
): Promise<T> {
  if (!inTransaction) return withFreeSlug(base, takenSlugs, write);
  return write(firstFreeSlug(base, await takenSlugs(base)));
}
