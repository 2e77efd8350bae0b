import { resolveOffsetConnection } from '@pothos/plugin-relay';

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  before?: string | null;
  after?: string | null;
}

export const MAX_PAGE_SIZE = 100;

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
  const connection = await resolveOffsetConnection({ args, defaultSize: 20, maxSize: MAX_PAGE_SIZE, totalCount: total }, load);
  return { ...connection, totalCount };
}
