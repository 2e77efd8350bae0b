import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  type DocumentNode,
  type ExecutionArgs,
  type FragmentDefinitionNode,
  type ValidationContext,
} from 'graphql';
import type { Plugin as YogaPlugin } from 'graphql-yoga';
import type { Limits } from '../config.js';
import { operationCost, QueryTooCostlyError } from './cost.js';
import { checkDocumentBytes, checkDocumentSize, QUERY_TOO_DEEP } from './document.js';
import { SafeLiteralsRule, unsafeVariablesError } from './input.js';
import { guardResponseSize, ResponseBudget, ResponseTooLargeError, setResponseBudget } from './response-size.js';

/** An Envelop plugin, as GraphQL Yoga takes them. */
type EnvelopPlugin = ReturnType<typeof EnvelopArmorPlugin>;

const BAD_USER_INPUT = 'BAD_USER_INPUT';
/** A request refused before or while it executes: 400 whatever the client accepts, as GraphQL Yoga answers bad variables. */
const REFUSAL_STATUS = { status: 400 };

/**
 * A graphql-armor refusal as a validation error of the operation with its own code and without armor's misleading
 * "Syntax Error: " prefix (HTTP 400 like any other validation error), rather than thrown out of validation.
 */
const refusedAs = (code: string) => ({
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(
        new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { nodes: error.nodes, extensions: { code } }),
      ),
  ],
});

/** graphql-js's refusal of a variable's value, with a code and the variable's name. */
function badVariable(error: GraphQLError): GraphQLError {
  const node = error.nodes?.[0];
  const variable = node?.kind === Kind.VARIABLE_DEFINITION ? node.variable.name.value : undefined;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    extensions: { code: BAD_USER_INPUT, variable, http: REFUSAL_STATUS },
  });
}

const fragmentsOf = (document: DocumentNode) =>
  document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);

/**
 * Why an execution must not start, or null: unsafe variables (too deep, long lists, NUL), variables of the wrong
 * types, or a cost past `maxCost` once the variables' page sizes are known.
 */
function executionRefusal(args: ExecutionArgs, maxCost: number): readonly GraphQLError[] | null {
  const unsafe = unsafeVariablesError(args.variableValues);
  if (unsafe) return [new GraphQLError(unsafe.message, { extensions: { ...unsafe.extensions, http: REFUSAL_STATUS } })];
  const operation = getOperationAST(args.document, args.operationName);
  // An operation that cannot be found is graphql-js's to refuse.
  if (!operation) return null;
  const variables = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {}, {
    maxErrors: 20,
  });
  if (variables.errors) return variables.errors.map(badVariable);
  const cost = operationCost(args.schema, operation, fragmentsOf(args.document), variables.coerced);
  return cost > maxCost ? [new QueryTooCostlyError(Math.ceil(cost), maxCost)] : null;
}

/**
 * GRAPHQL_MAX_DOCUMENT_BYTES, checked on the request's parameters: before the document is parsed, registered by an
 * automatic persisted query or kept in a cache. Put before the persisted operations' plugin.
 */
export function documentBytesLimit(limits: Limits['graphql']): YogaPlugin {
  return {
    onParams({ params }) {
      if (typeof params.query === 'string') checkDocumentBytes(params.query, limits.maxDocumentBytes);
    },
  };
}

/**
 * The limits on requests to /graphql: the document's size and nesting (tokens, brackets), graphql-armor's depth,
 * aliases and directives, unsafe literals, introspection when switched off; before execution, the variables and the
 * cost; during it, the size of the answer. REST runs its own operations in process, outside GraphQL Yoga, so these
 * never apply to them (its parameters are held to the same input rules when they are read).
 */
export function graphqlLimitPlugins(limits: Limits['graphql']): EnvelopPlugin[] {
  const armor = EnvelopArmorPlugin({
    maxDepth: { n: limits.maxDepth, ...refusedAs(QUERY_TOO_DEEP) },
    maxAliases: { n: limits.maxAliases, ...refusedAs('TOO_MANY_ALIASES') },
    maxDirectives: { n: limits.maxDirectives, ...refusedAs('TOO_MANY_DIRECTIVES') },
    // Both replaced by ours: armor's cost ignores page sizes given as variables, its token count is a syntax error.
    costLimit: { enabled: false },
    maxTokens: { enabled: false },
    // "Did you mean …?" names fields, which is what switching introspection off is meant to hide.
    blockFieldSuggestion: { enabled: !limits.introspection },
  });
  const documentSize: EnvelopPlugin = {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        checkDocumentSize(typeof source === 'string' ? source : source.body, limits.maxTokens);
        return parseFn(source, options);
      });
    },
  };
  const safeLiterals: EnvelopPlugin = { onValidate: ({ addValidationRule }) => addValidationRule(SafeLiteralsRule) };
  const execution: EnvelopPlugin = {
    onExecute({ args, setResultAndStopExecution }) {
      guardResponseSize(args.schema);
      const refusal = executionRefusal(args, limits.maxCost);
      if (refusal) return setResultAndStopExecution({ errors: refusal });
      const budget = new ResponseBudget(limits.maxResponseFields);
      setResponseBudget(args.contextValue as object, budget);
      return {
        onExecuteDone({ result, setResult }) {
          if (budget.exceeded && 'errors' in result)
            setResult({ errors: [new ResponseTooLargeError(budget.maxFields)] });
        },
      };
    },
  };
  const noIntrospection: EnvelopPlugin = {
    onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule),
  };
  return [documentSize, armor, safeLiterals, execution, ...(limits.introspection ? [] : [noIntrospection])];
}
