import { AlreadyTrashedError, NotFoundError } from '../errors.js';
import { slugFromText, withFreeSlug } from './slugs.js';

/**
 * Writes an update, moving the slug only when a different one was asked for (and then to a free one).
 */
export function updateWithSlug<T>(
  currentSlug: string,
  requestedSlug: string | null | undefined,
  takenSlugs: (base: string) => Promise<string[]>,
  write: (slug: string | undefined) => Promise<T>,
): Promise<T> {
  const base = requestedSlug ? slugFromText(requestedSlug) : null;
  if (!base || base === currentSlug) return write(undefined);
  return withFreeSlug(base, takenSlugs, (slug) => write(slug));
}

/**
 * DELETE semantics of WordPress posts: the first delete moves to the trash, a second one is refused; `force`
 * deletes for good and answers the record as it was. Both are decided by the database, not by what was read before:
 * `trash` moves the record only if it is not in the trash yet and answers null otherwise, `remove` answers how many
 * rows it deleted. Of concurrent deletes (from any process), exactly one succeeds.
 */
export async function trashOrDelete<T>(options: {
  recordType: string;
  id: number;
  status: string;
  force: boolean;
  snapshot: () => Promise<T>;
  remove: () => Promise<number>;
  trash: () => Promise<T | null>;
}): Promise<T> {
  if (options.force) {
    const snapshot = await options.snapshot();
    if ((await options.remove()) === 0) throw new NotFoundError(options.recordType, options.id);
    return snapshot;
  }
  if (options.status === 'trash') throw new AlreadyTrashedError(options.recordType, options.id);
  const trashed = await options.trash();
  if (trashed === null) throw new AlreadyTrashedError(options.recordType, options.id);
  return trashed;
}

/** The condition of a move to the trash that only one of concurrent deletes may make. */
export const notInTrash = (id: number) => ({ id, status: { not: 'trash' as const } });
