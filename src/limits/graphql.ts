import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { NoSchemaIntrospectionCustomRule, type GraphQLError, type ValidationContext } from 'graphql';
import type { Limits } from '../config.js';
import { listItemsError } from './lists.js';

// A refused document is reported as a validation error of the operation (HTTP 400 like any other), rather than
// thrown out of validation.
const reportAsValidationError = (context: ValidationContext | null, error: GraphQLError) => context?.reportError(error);
const reported = { propagateOnRejection: false, onReject: [reportAsValidationError] };

/** An Envelop plugin, as GraphQL Yoga takes them. */
type EnvelopPlugin = ReturnType<typeof EnvelopArmorPlugin>;

/**
 * The limits on documents sent to /graphql (graphql-armor, list sizes, introspection when switched off). REST runs its
 * own operations in process, outside GraphQL Yoga, so these never apply to them (its list parameters are held to
 * MAX_LIST_ITEMS when they are read).
 */
export function graphqlLimitPlugins(limits: Limits['graphql']): EnvelopPlugin[] {
  const armor = EnvelopArmorPlugin({
    maxDepth: { n: limits.maxDepth, ...reported },
    maxAliases: { n: limits.maxAliases, ...reported },
    maxDirectives: { n: limits.maxDirectives, ...reported },
    costLimit: { maxCost: limits.maxCost, ...reported },
    // Counted while parsing, before there is a validation context: the parser's own syntax error.
    maxTokens: { n: limits.maxTokens },
    // "Did you mean …?" names fields, which is what switching introspection off is meant to hide.
    blockFieldSuggestion: { enabled: !limits.introspection },
  });
  const listItems: EnvelopPlugin = {
    onExecute({ args, setResultAndStopExecution }) {
      const error = listItemsError(args.document, args.variableValues);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
  const noIntrospection: EnvelopPlugin = {
    onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule),
  };
  return limits.introspection ? [armor, listItems] : [armor, listItems, noIntrospection];
}
