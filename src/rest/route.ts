import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Context } from '../graphql/builder.js';
import type { ErrorMapping } from './errors.js';
import type { ParamDeclaration, ParamValues } from './params.js';
import type { Language } from './i18n/index.js';
import type { RestUrls } from '../urls.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const READABLE: readonly HttpMethod[] = ['GET'];
export const CREATABLE: readonly HttpMethod[] = ['POST'];
export const EDITABLE: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH'];
export const DELETABLE: readonly HttpMethod[] = ['DELETE'];

export interface RestReply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Set for a text body sent as it is (an iCalendar feed) rather than as JSON. */
  contentType?: string;
}

/** What a handler gets: its coerced parameters and a way to run GraphQL operations in process. */
export interface RestCall<D extends ParamDeclaration> {
  params: ParamValues<D>;
  /** Parameters the client actually sent (defaults excluded). */
  sent: ReadonlySet<string>;
  /** The sent parameters' values before coercion. */
  sentAs: Readonly<Record<string, unknown>>;
  context: Context;
  urls: RestUrls;
  language: Language;
  run<TResult, TVariables>(
    document: TypedDocumentNode<TResult, TVariables>,
    variables: TVariables,
    errors?: ErrorMapping,
  ): Promise<TResult>;
}

export interface Endpoint<D extends ParamDeclaration = ParamDeclaration> {
  methods: readonly HttpMethod[];
  params: D;
  /** The media type of a successful answer when it is not JSON (documented by /doc). */
  mediaType?: string;
  handle(call: RestCall<D>): Promise<RestReply>;
}

export interface RouteDefinition {
  /** WordPress's route pattern below the namespace, e.g. `/events/(?P<id>\d+)`. */
  pattern: string;
  // biome-ignore lint/suspicious/noExplicitAny: each endpoint declares its own parameters; a route holds any of them.
  endpoints: Endpoint<any>[];
}

/** Declares an endpoint; the parameter declaration types its handler's `params`. */
export function endpoint<D extends ParamDeclaration>(definition: Endpoint<D>): Endpoint<D> {
  return definition;
}
