import { GraphQLError } from 'graphql';
import type { Plugin, YogaLogger } from 'graphql-yoga';
import type { Logger, RequestLog } from './logger.js';

/**
 * The cause of an error the API did not mean to answer with: the first error below GraphQL's wrappers that is not a
 * GraphQLError (a database failure, a bug). Undefined for expected errors (bad input, not found, forbidden …).
 */
export function unexpectedCause(error: GraphQLError): unknown {
  let current: unknown = error;
  while (current instanceof GraphQLError) {
    if (current.originalError === undefined) return undefined;
    current = current.originalError;
  }
  return current;
}

/** Reports the unexpected errors of each execution to the request's log (before GraphQL Yoga masks them). */
export function reportUnexpectedErrors(reported: WeakSet<object>): Plugin<{ requestLog: RequestLog }> {
  return {
    onExecute: () => ({
      onExecuteDone({ result, args }) {
        if (!('errors' in result) || !result.errors) return;
        const { requestLog } = args.contextValue;
        for (const error of result.errors) {
          const cause = unexpectedCause(error);
          if (cause === undefined) continue;
          requestLog.unexpected(cause);
          reported.add(error);
        }
      },
    }),
  };
}

/** The codes of the errors in a GraphQL answer (a batch answers several results). */
function errorCodesOf(result: unknown): string[] {
  const results = Array.isArray(result) ? result : [result];
  return results.flatMap((one: { errors?: readonly { extensions?: { code?: unknown } }[] } | null) =>
    (one?.errors ?? []).map((error) =>
      typeof error.extensions?.code === 'string' ? error.extensions.code : 'NO_CODE',
    ),
  );
}

/**
 * Puts the codes of the errors each GraphQL answer carries on its request's log line, whichever stage refused it
 * (parsing, validation, the limits, execution).
 */
export function logErrorCodes(): Plugin<{ requestLog: RequestLog }> {
  return {
    onResultProcess({ result, serverContext }) {
      const codes = errorCodesOf(result);
      if (codes.length > 0) (serverContext as { requestLog?: RequestLog }).requestLog?.answeredWith(codes);
    },
  };
}

/**
 * GraphQL Yoga's own messages, through the service's logger. Yoga logs every error it masks; those already on their
 * request's line (`reported`) are not logged twice.
 */
export function yogaLogger(logger: Logger, reported: WeakSet<object>): YogaLogger {
  const text = (args: unknown[]) => args.map(String).join(' ');
  const at =
    (level: 'debug' | 'info' | 'warn') =>
    (...args: unknown[]) => {
      if (logger.isLevelEnabled(level)) logger[level]({ component: 'graphql-yoga' }, text(args));
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: (...args) => {
      if (args.some((arg) => typeof arg === 'object' && arg !== null && reported.has(arg))) return;
      logger.error(
        { component: 'graphql-yoga', err: args.find((arg) => arg instanceof Error) },
        text(args.filter((arg) => !(arg instanceof Error))) || 'GraphQL Yoga error',
      );
    },
  };
}
