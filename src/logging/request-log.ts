import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import type { RequestHead } from '../http/request-head.js';
import type { Logger } from './logger.js';

/** What a handler may tell the request's log line. */
export interface RequestLog {
  readonly id: string;
  /** Keeps an error nobody meant to answer with; the request's line carries it, with its stack and causes. */
  unexpected(error: unknown): void;
  /** Notes the codes of the errors the request was answered with (GraphQL's `extensions.code`), for its line. */
  answeredWith(codes: readonly string[]): void;
  /** Notes why the request was refused without being served (a rate limit), for its line's `reason`. */
  refused(reason: RefusalReason): void;
}

/**
 * Why a request was refused rather than served: the load shedder's reasons (src/limits/admission.ts, logged by
 * src/limits/refusals.ts), too many failed sign-ins, too many wrong passwords of protected records.
 */
export type RefusalReason = 'client_over_share' | 'overloaded' | 'sign_in_failures' | 'password_guesses';

export const REQUEST_ID_HEADER = 'X-Request-ID';

/** An incoming ID is kept when it is short and made of characters a log query can take as they are. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:+=/-]{1,128}$/;

export function requestIdOf(request: RequestHead): string {
  const incoming = request.headers.get(REQUEST_ID_HEADER);
  return incoming !== null && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** The path as logged: never the query string (it can carry a record's password), but WordPress's `rest_route`. */
export function loggedPath(request: RequestHead): string {
  const url = new URL(request.url);
  const restRoute = url.searchParams.get('rest_route');
  return restRoute === null ? url.pathname : `${url.pathname}?rest_route=${restRoute}`;
}

function withRequestId(response: Response, id: string): Response {
  try {
    response.headers.set(REQUEST_ID_HEADER, id);
    return response;
  } catch {
    // Immutable headers (a Response.error() or a fetched response): answer a copy.
    const copy = new Response(response.body, response);
    copy.headers.set(REQUEST_ID_HEADER, id);
    return copy;
  }
}

const internalError = () =>
  new Response(
    JSON.stringify({ code: 'internal_error', message: 'The request could not be completed.', data: { status: 500 } }),
    {
      status: 500,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    },
  );

/**
 * Wraps the fetch handler: gives each request an ID (the client's sane `X-Request-ID`, or a new UUID), answers it
 * in `X-Request-ID`, and writes one line per request. A request that failed unexpectedly (an error thrown out of the
 * handler, or one a handler reported) is logged once, on that line, at level error with the error; a 5xx answered on
 * purpose (a timeout, a retryable refusal) at warn; others at info.
 */
export function withRequestLog<Rest extends unknown[]>(
  logger: Logger,
  handle: (request: Request, log: RequestLog, ...rest: Rest) => Promise<Response>,
) {
  return async (request: Request, ...rest: Rest): Promise<Response> => {
    const started = performance.now();
    const errors: unknown[] = [];
    const errorCodes = new Set<string>();
    let reason: RefusalReason | undefined;
    const log: RequestLog = {
      id: requestIdOf(request),
      unexpected: (error) => void errors.push(error),
      answeredWith: (codes) => codes.forEach((code) => errorCodes.add(code)),
      refused: (why) => void (reason = why),
    };
    let response: Response;
    try {
      response = await handle(request, log, ...rest);
    } catch (error) {
      errors.push(error);
      response = internalError();
    }
    const line = {
      requestId: log.id,
      method: request.method,
      path: loggedPath(request),
      status: response.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      ...(errorCodes.size > 0 ? { errorCodes: [...errorCodes] } : {}),
      ...(reason ? { reason } : {}),
    };
    if (errors.length > 0) {
      const [err, ...otherErrors] = errors;
      logger.error(
        { ...line, err, ...(otherErrors.length ? { otherErrors: otherErrors.map(serializeError) } : {}) },
        'request failed',
      );
    } else if (response.status >= 500) {
      // Answered so on purpose (a timeout, occurrences still being added, a process shutting down): worth a look.
      logger.warn(line, 'request');
    } else {
      logger.info(line, 'request');
    }
    return withRequestId(response, log.id);
  };
}

const serializeError = (error: unknown) => (error instanceof Error ? pino.stdSerializers.err(error) : error);
