import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type ExecutionResult, execute } from 'graphql';
import type { Context } from '../graphql/context.js';
import { schema } from '../graphql/schema.js';
import { inProcessRoot } from '../graphql/shared/connections.js';

/** Runs one of the typed operations in process against the schema, as REST and the public pages do. */
export async function executeInProcess<Result, Variables>(
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
  context: Context,
): Promise<ExecutionResult<Result>> {
  return (await execute({
    schema,
    document,
    variableValues: variables as Record<string, unknown>,
    contextValue: context,
    rootValue: inProcessRoot(variables),
  })) as ExecutionResult<Result>;
}
