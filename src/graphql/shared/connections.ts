import { offsetToCursor, resolveOffsetConnection } from '@pothos/plugin-relay';
import { FieldErrors } from '../errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './page-size.js';

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  before?: string | null;
  after?: string | null;
}

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE };

/** An offset cursor as plugin-relay writes it (`OffsetConnection:<n>`, base64), read back strictly. */
const OFFSET_CURSOR = /^OffsetConnection:(\d{1,9})$/;

function isOffsetCursor(cursor: string): boolean {
  const decoded = Buffer.from(cursor, 'base64').toString('utf8');
  return OFFSET_CURSOR.test(decoded) && offsetToCursor(Number(OFFSET_CURSOR.exec(decoded)![1])) === cursor;
}

/**
 * Refuses page arguments plugin-relay would fail on with an uncoded error, or pass on to the database: a page size
 * below 0 or above MAX_PAGE_SIZE, `last` without a bound, a cursor this API never wrote.
 */
export function checkPageArgs(args: PageArgs): void {
  const errors = new FieldErrors();
  for (const name of ['first', 'last'] as const) {
    const size = args[name];
    if (size != null && (size < 0 || size > MAX_PAGE_SIZE)) errors.add(name, `must be from 0 to ${MAX_PAGE_SIZE}`);
  }
  for (const name of ['after', 'before'] as const) {
    const cursor = args[name];
    if (cursor != null && !isOffsetCursor(cursor)) errors.add(name, 'is not a cursor of this list');
  }
  errors.throwIfAny();
}

/**
 * A Relay connection over an offset query. `count` runs only when the client asks for `totalCount`, and at most once.
 */
export async function offsetConnection<T>(
  args: PageArgs,
  count: () => Promise<number>,
  load: (page: { offset: number; limit: number }) => Promise<T[]>,
) {
  checkPageArgs(args);
  let counted: Promise<number> | undefined;
  const totalCount = () => (counted ??= count());
  // With `last` and no `before`, the page ends at the end of the list: its length must be known first.
  const total = args.last != null && args.before == null ? await totalCount() : undefined;
  const connection = await resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, totalCount: total }, load);
  return { ...connection, totalCount };
}
