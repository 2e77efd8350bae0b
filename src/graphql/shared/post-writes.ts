import { AlreadyTrashedError } from '../errors.js';
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
 * deletes for good and answers the record as it was.
 */
export async function trashOrDelete<T>(options: {
  recordType: string;
  id: number;
  status: string;
  force: boolean;
  snapshot: () => Promise<T>;
  remove: () => Promise<unknown>;
  trash: () => Promise<T>;
}): Promise<T> {
  if (options.force) {
    const snapshot = await options.snapshot();
    await options.remove();
    return snapshot;
  }
  if (options.status === 'trash') throw new AlreadyTrashedError(options.recordType, options.id);
  return options.trash();
}
