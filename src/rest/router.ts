import type { GraphQLFormattedError } from 'graphql';
import { DateTime } from 'luxon';
import qs from 'qs';
import type { Config } from '../config.js';
import { htmlSafeJson } from '../content/html.js';
import type { Context } from '../graphql/builder.js';
import { MAX_INPUT_DEPTH, nestedTooDeep } from '../limits/input.js';
import { unexpectedCause } from '../logging/graphql-errors.js';
import type { RequestLog } from '../logging/logger.js';
import {
  executeInProcess,
  isRefusal,
  type RequestContexts,
  type RequestScope,
  type SignInRefusal,
} from '../read/request-contexts.js';
import { NAMESPACE, type RestUrls, restUrls } from '../urls.js';
import { invalidParams, missingParams, RestError, restErrorFromGraphQL } from './errors.js';
import { type Language, LANGUAGES } from './i18n/index.js';
import { parseParams, type DefaultContext } from './params.js';
import type { Endpoint, HttpMethod, RestCall, RestReply, RouteDefinition } from './route.js';
import { namespaceIndex, routeEntry, siteIndex } from './routes/index-route.js';
import { ROUTES } from './routes/table.js';

// REST's HTTP side: where a request points and its parameters (query, body) in, the route found and run, and the
// answer out as WordPress clients expect it (`_fields`, `_envelope`, the Link header).

/** The original product's namespace, answered as an alias so its integrations work unchanged. */
export const ALIAS_NAMESPACES = ['tribe/events/v1'];

/** Where a REST request points: the route below the namespace, and the language segment if any. */
export interface RestTarget {
  /** `''` for the namespace index, else `/events`, `/events/5` … */
  route: string;
  language: Language;
  /** The site index (`/wp-json/`) rather than a namespace. */
  siteIndex: boolean;
}

const QS_OPTIONS = { depth: 5, arrayLimit: 200, parameterLimit: 1000, allowDots: false } as const;

function languageOf(segment: string | undefined): Language {
  const short = segment?.slice(0, 2).toLowerCase();
  return (LANGUAGES as readonly string[]).includes(short ?? '') ? (short as Language) : 'en';
}

function splitNamespace(path: string): string | null {
  const trimmed = path.replace(/\/+$/, '');
  for (const namespace of [NAMESPACE, ...ALIAS_NAMESPACES]) {
    const prefix = `/${namespace}`;
    if (trimmed === prefix) return '';
    if (trimmed.startsWith(`${prefix}/`)) return trimmed.slice(prefix.length);
  }
  return null;
}

/**
 * Finds the REST route in a URL: `/{root}/calendar/events/v1/...`, `/{lang}/{root}/...`, or WordPress's plain form
 * `/?rest_route=/calendar/events/v1/...`. Answers null when the URL is not for the REST API at all.
 */
export function restTarget(url: URL, restRoot: string): RestTarget | null {
  const plain = url.searchParams.get('rest_route');
  if (plain !== null && (url.pathname === '/' || url.pathname === '/index.php')) {
    return targetFrom(plain.startsWith('/') ? plain : `/${plain}`, 'en');
  }
  const match = new RegExp(
    `^(?:/([a-z]{2}(?:[-_][A-Za-z]{2})?))?/${restRoot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/.*)?$`,
  ).exec(url.pathname);
  if (!match) return null;
  return targetFrom(match[2] ?? '/', languageOf(match[1]));
}

function targetFrom(path: string, language: Language): RestTarget {
  if (path === '/' || path === '') return { route: '', language, siteIndex: true };
  const route = splitNamespace(path);
  return route === null ? { route: path, language, siteIndex: false } : { route, language, siteIndex: false };
}

export function isNamespaceRoute(path: string): boolean {
  return splitNamespace(path) !== null;
}

/** Query string parameters, PHP style: `a[]=1&a[]=2`, `venue[city]=Berlin`. */
export function queryParams(url: URL): Record<string, unknown> {
  const params = qs.parse(url.search.replace(/^\?/, ''), QS_OPTIONS) as Record<string, unknown>;
  delete params.rest_route;
  return params;
}

/** The body as text, read as it arrives and refused (413) once it is longer than `maxBytes`: never held whole. */
async function boundedText(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () => RestError.of('rest_request_too_large', {}, maxBytes);
  if (Number(request.headers.get('content-length') ?? 0) > maxBytes) throw tooLarge();
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Released, not cancelled, past the limit: cancelling the stream would close the connection before the answer.
  const reader = request.body.getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      size += chunk.value.byteLength;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk.value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw RestError.of('rest_invalid_json');
  }
}

/** The body's parameters: JSON, or form-encoded (PHP style). Malformed JSON is refused as WordPress does. */
export async function bodyParams(request: Request, maxBytes: number): Promise<Record<string, unknown>> {
  if (request.method === 'GET' || request.method === 'HEAD') return {};
  const type = request.headers.get('content-type') ?? '';
  const text = await boundedText(request, maxBytes);
  if (text.trim() === '') return {};
  if (type.includes('application/json')) {
    const parsed = parseJson(text);
    if (nestedTooDeep(parsed)) throw RestError.of('rest_body_too_deep', {}, MAX_INPUT_DEPTH);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  }
  if (type.includes('application/x-www-form-urlencoded') || type === '') {
    return qs.parse(text, QS_OPTIONS) as Record<string, unknown>;
  }
  return {};
}

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
    /**
     * The route a target is answered by, as a metrics label: its pattern with names for its parameters
     * (`/events/{id}`), `index` for the site and namespace indexes, `unmatched` for no route.
     */
    routeLabelOf(target: RestTarget): string {
      if (target.siteIndex || target.route === '' || target.route === '/') return 'index';
      const found = routes.find(({ regex }) => regex.test(target.route));
      return found ? found.definition.pattern.replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}') : 'unmatched';
    },

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

/** `a,b.c,b.d` → `{a: true, b: {c: true, d: true}}`; a sub-field of a field already kept whole is ignored. */
type FieldTree = { [key: string]: true | FieldTree };

function fieldTree(fields: string[]): FieldTree {
  const tree: FieldTree = {};
  for (const field of fields) {
    const parts = field.split('.');
    const last = parts.pop()!;
    let node: FieldTree | true = tree;
    for (const part of parts) {
      if (node === true) break;
      node = node[part] === true ? true : (node[part] ??= {});
    }
    if (node !== true) node[last] = true;
  }
  return tree;
}

/**
 * WordPress's `_fields`: keep only the named keys, in the record's own order; dotted names reach into objects. A
 * list is filtered item by item (WordPress does this for a bare list; we also do it for a list inside an object, so
 * `_fields=events.id,total` works on the events envelope).
 */
function pickFields(body: unknown, tree: FieldTree): unknown {
  if (Array.isArray(body)) return body.map((item) => pickFields(item, tree));
  if (!body || typeof body !== 'object') return body;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const rule = tree[key];
    if (rule === undefined) continue;
    result[key] = rule === true ? value : pickFields(value, rule);
  }
  return result;
}

function fieldsParam(query: Record<string, unknown>): string[] | null {
  const raw = query._fields;
  if (raw === undefined) return null;
  const list = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
  return list.map((field) => field.trim()).filter((field) => field !== '');
}

/**
 * Applies `_fields` and `_envelope`, and the headers WordPress REST clients expect; a text reply is sent as it is.
 * ETag, Cache-Control, 304, HEAD, compression and CORS are the HTTP layer's (src/http/representation.ts).
 */
export function finishResponse(query: Record<string, unknown>, reply: RestReply, urls: RestUrls): Response {
  const status = reply.status ?? 200;
  const fields = fieldsParam(query);
  let body = reply.body;
  // As in WordPress: a bare list has each item filtered, an object (a record or an envelope) its own keys.
  if (fields && status < 400) body = pickFields(body, fieldTree(fields));
  const headers: Record<string, string> = {
    'Content-Type': reply.contentType ?? 'application/json; charset=UTF-8',
    Link: `<${urls.root}>; rel="https://api.w.org/"`,
    ...reply.headers,
  };
  if (reply.contentType !== undefined) return new Response(String(body), { status, headers });
  if ('_envelope' in query) {
    return new Response(htmlSafeJson({ body, status, headers: reply.headers ?? {} }), { status: 200, headers });
  }
  return new Response(htmlSafeJson(body), { status, headers });
}
