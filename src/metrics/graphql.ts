import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ServiceMetrics } from './metrics.js';

/** Counts and times each query and mutation /graphql executes, by operation name and type. */
export function operationMetrics(metrics: ServiceMetrics): Plugin {
  return {
    onExecute({ args }) {
      const started = performance.now();
      const operation = getOperationAST(args.document, args.operationName);
      return {
        onExecuteDone({ result }) {
          const failed = 'errors' in result && (result.errors?.length ?? 0) > 0;
          const seconds = (performance.now() - started) / 1000;
          metrics.observeOperation(operation?.name?.value, operation?.operation ?? 'unknown', seconds, failed);
        },
      };
    },
  };
}
