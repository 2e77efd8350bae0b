import { GraphQLError, type ASTNode, type ASTVisitor, type ValidationContext } from 'graphql';

/**
 * The most items one list parameter or GraphQL list input may hold (IDs, slugs, statuses, linked records). Every list
 * becomes a SQL `IN (…)` and Prisma sends SQLite at most 999 bound values per statement; an events filter combines
 * five lists in one statement, so each stays at 100 (the largest GraphQL page, too).
 */
export const MAX_LIST_ITEMS = 100;

/**
 * The deepest nesting of lists and objects in a JSON body, a query parameter or GraphQL variables. The deepest input
 * the API takes is a few levels (an event's venue inside a list); everything past this is refused before any code
 * that recurses over a value (graphql-js's coercion, Prisma, the serializers) can overflow the stack on it.
 */
export const MAX_INPUT_DEPTH = 32;

/** What makes a value unfit to reach the database, or null: an over-long list, text with a NUL character, deep nesting. */
type Problem = 'list' | 'nul' | 'depth';

/** PostgreSQL text cannot hold U+0000 (SQLite can); refusing it on both keeps the engines alike. */
const hasNul = (text: string) => text.includes('\u0000');

const childPath = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * The first problem in a value from a request (query, form, JSON or GraphQL variables) and where it is, or null.
 * Walks the value with an explicit stack, so no nesting can overflow the call stack.
 */
export function unsafeInput(value: unknown, path = ''): { problem: Problem; path: string } | null {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.value === 'string') {
      if (hasNul(next.value)) return { problem: 'nul', path: next.path };
      continue;
    }
    if (next.value === null || typeof next.value !== 'object') continue;
    if (next.depth >= MAX_INPUT_DEPTH) return { problem: 'depth', path: next.path };
    if (Array.isArray(next.value) && next.value.length > MAX_LIST_ITEMS) return { problem: 'list', path: next.path };
    const entries = Object.entries(next.value);
    // Pushed in reverse so that the first problem in reading order is the one reported.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i]!;
      pending.push({ value: item, path: childPath(next.path, key), depth: next.depth + 1 });
    }
  }
  return null;
}

/** Whether a value nests lists and objects more than MAX_INPUT_DEPTH levels deep (walked without recursion). */
export function nestedTooDeep(value: unknown): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const containers = level.filter((item): item is object => item !== null && typeof item === 'object');
    if (containers.length > 0 && depth >= MAX_INPUT_DEPTH) return true;
    level = containers.flatMap((container) => Object.values(container));
  }
  return false;
}

const RULES: Record<Problem, string> = {
  list: `a list may hold at most ${MAX_LIST_ITEMS} items`,
  nul: 'text may not contain the NUL character (U+0000)',
  depth: `values may be nested at most ${MAX_INPUT_DEPTH} levels deep`,
};

/** Why a value is unsafe, as a sentence for an error message: `$filter.include: a list may hold at most 100 items.` */
export function unsafeInputMessage(found: { problem: Problem; path: string }, prefix = ''): string {
  return `${prefix}${found.path}: ${RULES[found.problem]}.`;
}

/** The refusal of GraphQL variables that hold unsafe input, or null. */
export function unsafeVariablesError(variables: unknown): GraphQLError | null {
  const found = unsafeInput(variables ?? {});
  return found ? new GraphQLError(unsafeInputMessage(found, '$'), { extensions: { code: 'BAD_USER_INPUT' } }) : null;
}

/** A validation rule refusing the same unsafe input written into the document itself. */
export function SafeLiteralsRule(context: ValidationContext): ASTVisitor {
  const refuse = (problem: Problem, node: ASTNode) =>
    context.reportError(new GraphQLError(`Argument value: ${RULES[problem]}.`, { nodes: node }));
  return {
    ListValue: (node) => void (node.values.length > MAX_LIST_ITEMS && refuse('list', node)),
    StringValue: (node) => void (hasNul(node.value) && refuse('nul', node)),
  };
}
