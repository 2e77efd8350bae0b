import type { GraphQLFormattedError } from 'graphql';
import { DateTime } from 'luxon';
import type { Config } from '../config.js';
import type { Context } from '../graphql/builder.js';
import { isRefusal, type RequestContexts, type RequestScope, type SignInRefusal } from '../read/request-contexts.js';
import { executeInProcess } from '../read/request-contexts.js';
import { unexpectedCause } from '../logging/graphql-errors.js';
import type { RequestLog } from '../logging/request-log.js';
import { invalidParams, missingParams, RestError, restErrorFromGraphQL } from './errors.js';
import { parseParams, type DefaultContext } from './params.js';
import { bodyParams, queryParams, restTarget, type RestTarget } from './request.js';
import { finishResponse } from './respond.js';
import type { Endpoint, HttpMethod, RestCall, RestReply, RouteDefinition } from './route.js';
import { namespaceIndex, routeEntry, siteIndex } from './routes/index-route.js';
import { ROUTES } from './routes/table.js';
import { restUrls } from '../read/urls.js';

interface CompiledRoute {
  definition: RouteDefinition;
  regex: RegExp;
}

const compile = (definition: RouteDefinition): CompiledRoute => ({
  definition,
  regex: new RegExp(`^${definition.pattern.replace(/\(\?P</g, '(?<')}/?$`),
});

const OVERRIDABLE: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const decoded = (value: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/**
 * The path names the record (`/events/12`, `/venues/by-slug/hall`); the same name sent in the query or body with
 * another value is refused rather than silently overruled (WordPress would let the body win and address another
 * record). A slug changes through the ID route.
 */
function refuseConflictsWithPath(path: Record<string, string>, others: Record<string, unknown>[]) {
  const conflicts: Record<string, string> = {};
  for (const [name, value] of Object.entries(path)) {
    const sent = others.map((params) => params[name]).filter((other) => other !== undefined);
    if (
      sent.some((other) =>
        typeof other !== 'string' && typeof other !== 'number' ? true : decoded(String(other)) !== decoded(value),
      )
    ) {
      conflicts[name] =
        `The path already gives ${name} "${decoded(value)}"; send another value only through the route that addresses the record by ID.`;
    }
  }
  if (Object.keys(conflicts).length) throw invalidParams(conflicts);
}

/** WordPress lets POST stand in for other methods through `_method` or `X-HTTP-Method-Override`. */
function effectiveMethod(request: Request, query: Record<string, unknown>): string {
  const override =
    request.headers.get('x-http-method-override') ?? (typeof query._method === 'string' ? query._method : null);
  if (request.method === 'POST' && override && OVERRIDABLE.includes(override.toUpperCase() as HttpMethod))
    return override.toUpperCase();
  return request.method === 'HEAD' ? 'GET' : request.method;
}

/** Refused credentials, as WordPress answers them. */
function refusedCredentials(refusal: SignInRefusal): RestError {
  if (refusal.refused === 'invalid') return RestError.of('incorrect_password');
  return RestError.of('rest_too_many_requests', {}, refusal.retryAfter).withHeaders({
    'Retry-After': String(refusal.retryAfter),
  });
}

/**
 * The REST face: finds the route, parses its parameters, runs its GraphQL operation, renders the original's JSON.
 * `contexts` signs each request in and makes its GraphQL context.
 */
export function createRestHandler(config: Config, contexts: RequestContexts) {
  const routes = ROUTES.map(compile);
  const urls = restUrls(config);

  async function contextFor(request: Request, scope: RequestScope): Promise<Context> {
    const outcome = await contexts.contextFor(request, scope);
    if (isRefusal(outcome)) throw refusedCredentials(outcome);
    return outcome;
  }

  async function dispatch(
    request: Request,
    target: RestTarget,
    query: Record<string, unknown>,
    log: RequestLog,
    scope: RequestScope,
  ): Promise<RestReply> {
    const method = effectiveMethod(request, query);
    if (target.siteIndex) return { body: siteIndex(urls, ROUTES) };
    if (target.route === '' || target.route === '/') {
      if (method !== 'GET' && method !== 'OPTIONS') throw RestError.of('rest_no_route');
      return { body: namespaceIndex(urls, ROUTES, target.language) };
    }
    for (const { definition, regex } of routes) {
      const match = regex.exec(target.route);
      if (!match) continue;
      const allowed = definition.endpoints.flatMap((e) => e.methods);
      if (method === 'OPTIONS')
        return { body: routeEntry(urls, definition, target.language), headers: { Allow: allowed.join(', ') } };
      const found = definition.endpoints.find((e) => e.methods.includes(method as HttpMethod));
      if (!found) break;
      const allow = { Allow: allowed.join(', ') };
      try {
        const body = await bodyParams(request, config.limits.maxBodyBytes);
        const path = match.groups ?? {};
        refuseConflictsWithPath(path, [query, body]);
        const raw = { ...query, ...body, ...path };
        const reply = await runEndpoint(found, raw, await contextFor(request, scope), target, log);
        return { ...reply, headers: { ...allow, ...reply.headers } };
      } catch (error) {
        // WordPress sends `Allow` on every response of a matched route, errors included.
        if (error instanceof RestError)
          return { status: error.status, body: error.body(), headers: { ...allow, ...error.headers } };
        throw error;
      }
    }
    throw RestError.of('rest_no_route');
  }

  async function runEndpoint(
    found: Endpoint,
    raw: Record<string, unknown>,
    context: Context,
    target: RestTarget,
    log: RequestLog,
  ): Promise<RestReply> {
    const defaults: DefaultContext = {
      // Untracked: a declaration whose default reads the clock says when that changes its answer (routes/events.ts).
      now: DateTime.fromJSDate(context.requestTime),
      siteTimezone: config.siteTimezone,
      readDate: context.readDate,
    };
    const outcome = parseParams(found.params, raw, defaults);
    if (outcome.missing.length) throw missingParams(outcome.missing);
    if (Object.keys(outcome.invalid).length) throw invalidParams(outcome.invalid);
    const call: RestCall<typeof found.params> = {
      params: outcome.values as RestCall<typeof found.params>['params'],
      sent: outcome.sent,
      sentAs: outcome.sentAs,
      context,
      urls,
      language: target.language,
      async run(document, variables, errors = {}) {
        const result = await executeInProcess(document, variables, context);
        if (result.errors?.length) {
          const formatted = result.errors.map((e) => e.toJSON() as GraphQLFormattedError);
          const mapped = restErrorFromGraphQL(formatted, errors);
          for (const error of result.errors) {
            const cause = unexpectedCause(error);
            if (cause !== undefined) log.unexpected(cause);
          }
          throw mapped;
        }
        return result.data as never;
      },
    };
    return found.handle(call);
  }

  return {
    /** Where a URL points in the REST API, or null when it is not for the REST API. */
    targetOf: (url: URL): RestTarget | null => restTarget(url, config.restRoot),

    /** Answers a request for the REST API, at the `target` targetOf found in its `url`. */
    async answer(request: Request, url: URL, target: RestTarget, log: RequestLog, scope: RequestScope) {
      const query = queryParams(url);
      let reply: RestReply;
      try {
        reply = await dispatch(request, target, query, log, scope);
      } catch (error) {
        if (!(error instanceof RestError)) log.unexpected(error);
        const restError = error instanceof RestError ? error : RestError.of('rest_internal_error');
        reply = { status: restError.status, body: restError.body(), headers: restError.headers };
      }
      return finishResponse(query, reply, urls);
    },
  };
}

export type RestHandler = ReturnType<typeof createRestHandler>;
