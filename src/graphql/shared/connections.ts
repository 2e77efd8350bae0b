import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './page-size.js';

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  before?: string | null;
  after?: string | null;
}

export { MAX_PAGE_SIZE };

/**
 * A Relay connection over an offset query. `count` runs only when the client asks for `totalCount`, and at most once.
 */
export async function offsetConnection<T>(
  args: PageArgs,
  count: () => Promise<number>,
  load: (page: { offset: number; limit: number }) => Promise<T[]>,
) {
  let counted: Promise<number> | undefined;
  const totalCount = () => (counted ??= count());
  const total = args.last != null && args.before == null ? await totalCount() : undefined;
  const connection = await resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, totalCount: total }, load);
  return { ...connection, totalCount };
}
