import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  valueFromAST,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../graphql/shared/connections.js';

/**
 * How many items a list field that is not a connection is taken to hold (an event's venues, organizers, categories,
 * tags): such lists have no page size to read, and are short in practice.
 */
export const ASSUMED_LIST_SIZE = 5;

export const QUERY_TOO_COSTLY = 'QUERY_TOO_COSTLY';

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  /** The operation's variables, coerced: a page size passed as a variable counts as its value. */
  variables: Record<string, unknown>;
  /** Each named fragment's cost by the page it is spread in: spreads of spreads cost one walk each, not one per path. */
  fragmentCosts: Map<string, number>;
}

type FieldsOwner = GraphQLObjectType | GraphQLInterfaceType;
const hasFields = (type: GraphQLNamedType | undefined | null): type is FieldsOwner =>
  isObjectType(type) || isInterfaceType(type);

/** A connection, recognised by its shape (or its name), whatever field returns it. */
function isConnection(type: GraphQLNamedType): boolean {
  if (!hasFields(type)) return false;
  const fields = type.getFields();
  return type.name.endsWith('Connection') || ('edges' in fields && 'pageInfo' in fields);
}

/** The page a connection field asks for: its `first` or `last` (the larger), else the default; at most the maximum. */
function pageSize(node: FieldNode, field: GraphQLField<unknown, unknown>, walk: Walk): number {
  const sizes = ['first', 'last'].flatMap((name) => {
    const definition = field.args.find((arg) => arg.name === name);
    const argument = node.arguments?.find((arg) => arg.name.value === name);
    if (!definition || !argument) return [];
    const value: unknown = valueFromAST(argument.value, definition.type, walk.variables);
    return typeof value === 'number' ? [value] : [];
  });
  const size = sizes.length > 0 ? Math.max(...sizes) : DEFAULT_PAGE_SIZE;
  return Math.min(Math.max(size, 0), MAX_PAGE_SIZE);
}

/**
 * The cost of a field: 1 for the field and 1 for each field below it, times the items of each list on the way. The
 * lists directly inside a connection (`edges`, `nodes`) hold `page` items; any other list ASSUMED_LIST_SIZE.
 * Introspection and `__typename` are free: they answer from the schema, not the database.
 */
function fieldCost(node: FieldNode, parent: GraphQLNamedType | undefined, page: number | null, walk: Walk): number {
  if (node.name.value.startsWith('__') || !hasFields(parent)) return 0;
  const field = parent.getFields()[node.name.value];
  if (!field) return 0;
  const items = isListType(getNullableType(field.type)) ? (page ?? ASSUMED_LIST_SIZE) : 1;
  const type = getNamedType(field.type);
  const innerPage = isConnection(type) ? pageSize(node, field, walk) : null;
  return items * (1 + (node.selectionSet ? selectionCost(node.selectionSet, type, innerPage, walk) : 0));
}

/** The cost of a selection set, its fragments (named and inline) followed: every branch counts. */
function selectionCost(
  selectionSet: SelectionSetNode,
  parent: GraphQLNamedType | undefined,
  page: number | null,
  walk: Walk,
): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      total += fieldCost(selection, parent, page, walk);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const type = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : parent;
      total += selectionCost(selection.selectionSet, type ?? undefined, page, walk);
    } else {
      total += fragmentCost(selection.name.value, page, walk);
    }
  }
  return total;
}

function fragmentCost(name: string, page: number | null, walk: Walk): number {
  const key = `${name}/${page}`;
  const known = walk.fragmentCosts.get(key);
  if (known !== undefined) return known;
  const fragment = walk.fragments.get(name);
  const cost = fragment
    ? selectionCost(
        fragment.selectionSet,
        walk.schema.getType(fragment.typeCondition.name.value) ?? undefined,
        page,
        walk,
      )
    : 0;
  walk.fragmentCosts.set(key, cost);
  return cost;
}

/**
 * The estimated cost of running one operation of a validated document with its coerced variables: roughly the
 * number of fields its answer can hold (docs/limits-and-security.md).
 */
export function operationCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: readonly FragmentDefinitionNode[],
  variables: Record<string, unknown>,
): number {
  const walk: Walk = {
    schema,
    fragments: new Map(fragments.map((fragment) => [fragment.name.value, fragment])),
    variables,
    fragmentCosts: new Map(),
  };
  return selectionCost(operation.selectionSet, schema.getRootType(operation.operation) ?? undefined, null, walk);
}

export class QueryTooCostlyError extends GraphQLError {
  constructor(cost: number, maxCost: number) {
    super(
      `The query's estimated cost is ${cost}, more than the limit of ${maxCost}: ask for smaller pages (first/last) or fewer nested lists.`,
      { extensions: { code: QUERY_TOO_COSTLY, cost, maxCost, http: { status: 400 } } },
    );
  }
}
