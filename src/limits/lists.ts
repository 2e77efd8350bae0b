import { GraphQLError, visit, type DocumentNode } from 'graphql';

/**
 * The most items one list parameter or GraphQL list input may hold (IDs, slugs, statuses, linked records). Every list
 * becomes a SQL `IN (…)` and Prisma sends SQLite at most 999 bound values per statement; an events filter combines
 * five lists in one statement, so each stays at 100 (the largest GraphQL page, too).
 */
export const MAX_LIST_ITEMS = 100;

/** Where a list longer than MAX_LIST_ITEMS is in a request's variables (`filter.include`), or null. */
function longListIn(value: unknown, path: string): string | null {
  if (Array.isArray(value)) {
    if (value.length > MAX_LIST_ITEMS) return path;
    for (const [index, item] of value.entries()) {
      const found = longListIn(item, `${path}.${index}`);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = longListIn(item, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}

function longListLiteralIn(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    ListValue(node) {
      if (node.values.length > MAX_LIST_ITEMS) found = true;
    },
  });
  return found;
}

/** The refusal of a GraphQL request whose variables or literals hold a list longer than MAX_LIST_ITEMS, or null. */
export function listItemsError(document: DocumentNode, variables: unknown): GraphQLError | null {
  const variable = longListIn(variables ?? {}, '');
  if (variable === null && !longListLiteralIn(document)) return null;
  const where = variable === null ? 'an argument' : `$${variable}`;
  return new GraphQLError(`A list may hold at most ${MAX_LIST_ITEMS} items; ${where} holds more.`, { extensions: { code: 'BAD_USER_INPUT' } });
}
