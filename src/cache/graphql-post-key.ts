import { getOperationAST, parse } from 'graphql';
import type { PostKey } from './response-cache.js';

/** Bodies larger than this (or of unknown length) are left to GraphQL Yoga, unread here. */
const MAX_BODY_BYTES = 16 * 1024;
/** Documents whose operation type was read, by text and operation name; emptied when full. */
const MAX_DOCUMENTS = 1000;
const isQueryByDocument = new Map<string, boolean>();
/** A document with more tokens is not kept (Yoga applies its own limits when it runs it). */
const MAX_TOKENS = 5000;

/**
 * The response cache's key of a GraphQL POST to `path` that only reads: a `query` operation (the operation, not the
 * HTTP method, decides), sent as JSON with its text. Null for anything else, which is answered as it always was: a
 * mutation or subscription, an event stream, a persisted operation or automatic persisted query (whose store must
 * see the request), a body that is not JSON or too large, a document that does not parse (Yoga words the error).
 */
export function graphqlPostKey(path: string): PostKey {
  return async (request) => {
    if (new URL(request.url).pathname !== path) return null;
    if (!request.headers.get('content-type')?.toLowerCase().startsWith('application/json')) return null;
    if (request.headers.get('accept')?.includes('text/event-stream')) return null;
    const length = Number(request.headers.get('content-length') ?? Number.NaN);
    if (!(length <= MAX_BODY_BYTES)) return null;
    const text = await bodyText(request);
    const body = text === null ? null : readJson(text);
    if (!body || typeof body.query !== 'string' || body.extensions !== undefined) return null;
    const operationName = typeof body.operationName === 'string' ? body.operationName : null;
    // The body's own text is the key: writing the variables out again would recurse as deep as a hostile client
    // nested them (Yoga refuses those with its own limits).
    return isQuery(body.query, operationName) ? `POST ${request.url}\n${text}` : null;
  };
}

/** The body, or null when it cannot be read (the client hung up): GraphQL Yoga then answers as it always did. */
async function bodyText(request: Request): Promise<string | null> {
  try {
    return await request.clone().text();
  } catch {
    return null;
  }
}

function readJson(text: string): Record<string, unknown> | null {
  try {
    const body: unknown = JSON.parse(text);
    return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function isQuery(document: string, operationName: string | null): boolean {
  const key = `${operationName ?? ''}\n${document}`;
  let query = isQueryByDocument.get(key);
  if (query === undefined) {
    try {
      query = getOperationAST(parse(document, { maxTokens: MAX_TOKENS }), operationName)?.operation === 'query';
    } catch {
      query = false;
    }
    if (isQueryByDocument.size >= MAX_DOCUMENTS) isQueryByDocument.clear();
    isQueryByDocument.set(key, query);
  }
  return query;
}
