import { type DocumentNode, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { inSpan, tracingOn } from './tracing.js';

/** Runs a GraphQL execution inside a span named for its operation (`graphql query RestEvents`). */
export function inOperationSpan<T>(
  document: DocumentNode,
  operationName: string | null | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return run();
  const operation = getOperationAST(document, operationName);
  const type = operation?.operation ?? 'unknown';
  const name = operation?.name?.value;
  return inSpan(
    name ? `graphql ${type} ${name}` : `graphql ${type}`,
    { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) },
    run,
  );
}

/** /graphql's executions in their spans, so that their statements' spans nest below them. */
export function tracedOperations(): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      if (!tracingOn()) return;
      setExecuteFn((args) => inOperationSpan(args.document, args.operationName, async () => executeFn(args)));
    },
  };
}
