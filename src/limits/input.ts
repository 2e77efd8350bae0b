import { GraphQLError, type ASTNode, type ASTVisitor, type ValidationContext } from 'graphql';

/**
 * The most items one list parameter or GraphQL list input may hold (IDs, slugs, statuses, linked records). Every list
 * becomes a SQL `IN (…)` and Prisma sends SQLite at most 999 bound values per statement; an events filter combines
 * five lists in one statement, so each stays at 100 (the largest GraphQL page, too).
 */
export const MAX_LIST_ITEMS = 100;

/** What makes a value unfit to reach the database, or null: an over-long list, or text with a NUL character. */
type Problem = 'list' | 'nul';

/** PostgreSQL text cannot hold U+0000 (SQLite can); refusing it on both keeps the engines alike. */
const hasNul = (text: string) => text.includes('\u0000');

/** The first problem in a value from a request (query, form, JSON or GraphQL variables) and where it is, or null. */
export function unsafeInput(value: unknown, path = ''): { problem: Problem; path: string } | null {
  if (typeof value === 'string') return hasNul(value) ? { problem: 'nul', path } : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value) && value.length > MAX_LIST_ITEMS) return { problem: 'list', path };
  for (const [key, item] of Object.entries(value)) {
    const found = unsafeInput(item, path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return null;
}

const RULES: Record<Problem, string> = {
  list: `a list may hold at most ${MAX_LIST_ITEMS} items`,
  nul: 'text may not contain the NUL character (U+0000)',
};

/** The refusal of GraphQL variables that hold unsafe input, or null. */
export function unsafeVariablesError(variables: unknown): GraphQLError | null {
  const found = unsafeInput(variables ?? {});
  return found ? new GraphQLError(`$${found.path}: ${RULES[found.problem]}.`, { extensions: { code: 'BAD_USER_INPUT' } }) : null;
}

/** A validation rule refusing the same unsafe input written into the document itself. */
export function SafeLiteralsRule(context: ValidationContext): ASTVisitor {
  const refuse = (problem: Problem, node: ASTNode) => context.reportError(new GraphQLError(`Argument value: ${RULES[problem]}.`, { nodes: node }));
  return {
    ListValue: (node) => void (node.values.length > MAX_LIST_ITEMS && refuse('list', node)),
    StringValue: (node) => void (hasNul(node.value) && refuse('nul', node)),
  };
}
