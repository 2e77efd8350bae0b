import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { NoSchemaIntrospectionCustomRule, type GraphQLError, type ValidationContext } from 'graphql';
import type { Limits } from '../config.js';
import { SafeLiteralsRule, unsafeVariablesError } from './input.js';

// A refused document is reported as a validation error of the operation (HTTP 400 like any other), rather than
// thrown out of validation.
const reportAsValidationError = (context: ValidationContext | null, error: GraphQLError) => context?.reportError(error);
const reported = { propagateOnRejection: false, onReject: [reportAsValidationError] };

/** An Envelop plugin, as GraphQL Yoga takes them. */
type EnvelopPlugin = ReturnType<typeof EnvelopArmorPlugin>;

/**
 * The limits on documents sent to /graphql: graphql-armor, list sizes and NUL characters in the input, introspection
 * when switched off. REST runs its own operations in process, outside GraphQL Yoga, so these never apply to them (its
 * parameters are held to the same input rules when they are read).
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
  const safeInput: EnvelopPlugin = {
    onValidate: ({ addValidationRule }) => addValidationRule(SafeLiteralsRule),
    onExecute({ args, setResultAndStopExecution }) {
      const error = unsafeVariablesError(args.variableValues);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
  const noIntrospection: EnvelopPlugin = {
    onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule),
  };
  return limits.introspection ? [armor, safeInput] : [armor, safeInput, noIntrospection];
}
