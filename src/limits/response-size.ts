import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  GraphQLError,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFieldResolver,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

export const RESPONSE_TOO_LARGE = 'RESPONSE_TOO_LARGE';

export class ResponseTooLargeError extends GraphQLError {
  constructor(maxFields: number) {
    super(
      `The answer would hold more than ${maxFields} fields and was stopped: ask for smaller pages or fewer nested lists.`,
      {
        extensions: { code: RESPONSE_TOO_LARGE, maxFields, http: { status: 400 } },
      },
    );
  }
}

/** The fields one request's answer has grown to, against its limit. */
export class ResponseBudget {
  private used = 0;

  constructor(readonly maxFields: number) {}

  get exceeded(): boolean {
    return this.used > this.maxFields;
  }

  /** Counts `fields` more; throws once the answer is past the limit (and for every list resolved after that). */
  spend(fields: number): void {
    this.used += fields;
    if (this.exceeded) throw new ResponseTooLargeError(this.maxFields);
  }
}

/** The budget of each execution that has one (GraphQL Yoga's); REST's in-process operations have none. */
const budgets = new WeakMap<object, ResponseBudget>();

export function setResponseBudget(context: object, budget: ResponseBudget): void {
  budgets.set(context, budget);
}

export function responseBudgetOf(context: object): ResponseBudget | undefined {
  return budgets.get(context);
}

type Fielded = GraphQLObjectType | GraphQLInterfaceType;
const hasFields = (type: GraphQLNamedType | null | undefined): type is Fielded =>
  isObjectType(type) || isInterfaceType(type);

/**
 * The fields one item of a list holds as selected: each field, and those below it down to the next list (which
 * counts its own items when it resolves). Fragments are followed.
 */
function fieldsPerItem(
  selectionSet: SelectionSetNode | undefined,
  type: GraphQLNamedType,
  info: GraphQLResolveInfo,
): number {
  if (!selectionSet || !hasFields(type)) return 0;
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const field = type.getFields()[selection.name.value];
      const below =
        field && !isListType(getNullableType(field.type))
          ? fieldsPerItem(selection.selectionSet, getNamedType(field.type), info)
          : 0;
      total += 1 + below;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition ? info.schema.getType(selection.typeCondition.name.value) : type;
      if (condition) total += fieldsPerItem(selection.selectionSet, condition, info);
    } else {
      total += fragmentFields(info.fragments[selection.name.value], info);
    }
  }
  return total;
}

/** Per named fragment (of a cached document): its fields, counted once however often it is spread. */
const fragmentSizes = new WeakMap<FragmentDefinitionNode, number>();

function fragmentFields(fragment: FragmentDefinitionNode | undefined, info: GraphQLResolveInfo): number {
  if (!fragment) return 0;
  let size = fragmentSizes.get(fragment);
  if (size === undefined) {
    const condition = info.schema.getType(fragment.typeCondition.name.value);
    size = condition ? fieldsPerItem(fragment.selectionSet, condition, info) : 0;
    fragmentSizes.set(fragment, size);
  }
  return size;
}

/** Per field node of a (cached, reused) document: the fields each item of its list holds. */
const itemSizes = new WeakMap<FieldNode, number>();

function itemSize(info: GraphQLResolveInfo): number {
  const node = info.fieldNodes[0]!;
  let size = itemSizes.get(node);
  if (size === undefined) {
    size = 1 + fieldsPerItem(node.selectionSet, getNamedType(info.returnType), info);
    itemSizes.set(node, size);
  }
  return size;
}

function counted(resolve: GraphQLFieldResolver<unknown, object>): GraphQLFieldResolver<unknown, object> {
  return (source, args, context, info) => {
    const budget = budgets.get(context);
    if (!budget) return resolve(source, args, context, info);
    budget.spend(0);
    const spend = (items: unknown) => {
      if (Array.isArray(items)) budget.spend(items.length * itemSize(info));
      return items;
    };
    const result: unknown = resolve(source, args, context, info);
    return result instanceof Promise ? result.then(spend) : spend(result);
  };
}

const guarded = new WeakSet<GraphQLSchema>();

/**
 * Makes every list field of the schema count its items, and what each holds, against the request's budget, once per
 * schema. A list past the budget throws ResponseTooLargeError, and so does every list resolved after it, so the rest
 * of the execution stops loading. Executions without a budget (REST's) pass straight through.
 */
export function guardResponseSize(schema: GraphQLSchema): void {
  if (guarded.has(schema)) return;
  guarded.add(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (isListType(getNullableType(field.type))) field.resolve = counted(field.resolve ?? defaultFieldResolver);
    }
  }
}
