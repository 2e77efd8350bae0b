// The schema's lists: Relay connections over offset queries (pages by cursor, or by number in process), and their
// order (the sort direction, each list's `orderBy` enum).
import { offsetForArgs, offsetToCursor } from '@pothos/plugin-relay';
import { builder } from '../builder.js';
import { FieldErrors, invalidField } from '../errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './page-size.js';

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  before?: string | null;
  after?: string | null;
}

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE };

/**
 * A page asked for by number in this process (REST's and the public pages' `page`/`per_page`): its size is the
 * operation's `first`, its offset is given to the list field as the operation's root value, so that no cursor is
 * written and read back within one process. Clients over HTTP page with Relay cursors (`first`/`after`), unchanged:
 * they cannot set a root value. The variables of such an operation (one with a single root list field) carry the
 * offset under PAGE_OFFSET, beside `first`; the in-process executors pass it on as the root value (inProcessRoot).
 */
export const PAGE_OFFSET = Symbol('page offset');

export interface InProcessRoot {
  pageOffset: number;
}

/** The variables of a page by number: `first`, and the offset for inProcessRoot. */
export function pageVariables(page: number, perPage: number): { first: number; [PAGE_OFFSET]: number } {
  return { first: perPage, [PAGE_OFFSET]: (page - 1) * perPage };
}

/** The root value an in-process operation is executed with: the page offset its variables carry, if any. */
export function inProcessRoot(variables: unknown): InProcessRoot | undefined {
  const offset = (variables as { [PAGE_OFFSET]?: number } | null)?.[PAGE_OFFSET];
  return offset === undefined ? undefined : { pageOffset: offset };
}

/** The page offset a list field is given by an in-process caller (0 for clients over HTTP). */
const pageOffsetOf = (root: unknown) => (root as Partial<InProcessRoot> | null | undefined)?.pageOffset ?? 0;

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
 * `root` is the field's root value: a root field's page starts at the offset an in-process caller gives there.
 */
export async function offsetConnection<T>(
  args: PageArgs,
  count: () => Promise<number>,
  load: (page: { offset: number; limit: number }) => Promise<T[]>,
  root?: unknown,
) {
  checkPageArgs(args);
  let counted: Promise<number> | undefined;
  const totalCount = () => (counted ??= count());
  // With `last` and no `before`, the page ends at the end of the list: its length must be known first.
  const total = args.last != null && args.before == null ? await totalCount() : undefined;
  const window = offsetForArgs({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, totalCount: total });
  const offset = window.offset + pageOffsetOf(root);
  const nodes = await load({ offset, limit: window.limit });
  const edges = nodes
    .slice(0, window.expectedSize)
    .map((node, index) => ({ cursor: offsetToCursor(offset + index), node }));
  const pageInfo = {
    startCursor: offsetToCursor(offset),
    endCursor: offsetToCursor(offset + edges.length - 1),
    hasPreviousPage: offset > 0,
    hasNextPage: window.hasNextPage(nodes.length),
  };
  return { edges, pageInfo, totalCount };
}

/**
 * The rows to load for a connection planned into its parent's query (a venue's events): the same page as
 * offsetConnection's, or null when the arguments are wrong (the resolver then refuses them: see loadedConnection).
 * `last` needs `before` here, since the total is not known while the page is planned.
 */
export function plannedPage(args: PageArgs): { skip: number; take: number } | null {
  try {
    checkPageArgs(args);
    if (args.last != null && args.before == null) return null;
    const page = offsetForArgs({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE });
    return { skip: page.offset, take: page.limit };
  } catch {
    return null;
  }
}

/** Where a connection's records are in its selection (`nodes`, and `edges { node }`), for a nested Prisma selection. */
export const connectionNodes = (typename: string) => ({
  getType: () => typename,
  paths: [[{ name: 'nodes' }], [{ name: 'edges' }, { name: 'node' }]],
});

/**
 * A relation's page for the parent's query: the records' planned selection (`nested(true, connectionNodes(…))`), in
 * `orderBy`, in plannedPage's window. Asked for `totalCount` alone, the selection is empty, which Prisma refuses.
 */
export function plannedRelation(args: PageArgs, selected: unknown, extra: { where?: object; orderBy: object[] }) {
  return { ...nonEmptySelection(selected), ...extra, ...(plannedPage(args) ?? { skip: 0, take: 0 }) };
}

/** A planned selection Prisma accepts: asked for nothing but `totalCount`, the records' selection is empty. */
export function nonEmptySelection(selected: unknown): object {
  const { select } = selected as { select?: object };
  return select && Object.keys(select).length === 0 ? { select: { id: true } } : (selected as object);
}

/** The connection over rows loaded with the parent by plannedPage's window, and their total. */
export function loadedConnection<T>(args: PageArgs, rows: T[], total: number) {
  checkPageArgs(args);
  if (args.last != null && args.before == null) {
    throw invalidField('last', 'needs `before` on this connection (or page forwards with `first`)');
  }
  const { offset, expectedSize, hasPreviousPage, hasNextPage } = offsetForArgs({
    args,
    defaultSize: DEFAULT_PAGE_SIZE,
    maxSize: MAX_PAGE_SIZE,
  });
  const edges = rows.slice(0, expectedSize).map((node, index) => ({ cursor: offsetToCursor(offset + index), node }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      hasPreviousPage,
      hasNextPage: hasNextPage(rows.length),
    },
    totalCount: () => Promise.resolve(total),
  };
}

export const SortOrderEnum = builder.enumType('SortOrder', {
  description: 'The direction of a list order (REST `order=asc|desc`).',
  values: {
    ASC: { value: 'asc', description: 'Ascending: A to Z, smallest first.' },
    DESC: { value: 'desc', description: 'Descending: Z to A, largest first.' },
  } as const,
});

export type SortOrder = 'asc' | 'desc';

/**
 * An `orderBy` argument of a list: the columns a client may sort by (each GraphQL value names its column) and the
 * list's default. The ID breaks ties in the same direction, so pages never overlap.
 */
export function orderArgs<Column extends string>(
  name: string,
  description: string,
  columns: Record<string, { value: Column; description: string }>,
) {
  return builder.enumType(name, {
    description,
    values: columns as Record<string, { value: Column; description: string }>,
  });
}

export function listOrder(column: string, order: SortOrder): Array<Record<string, SortOrder>> {
  return [{ [column]: order }, { id: order }];
}
