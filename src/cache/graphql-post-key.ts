import { getOperationAST, parse } from 'graphql';
import type { RequestHead } from '../http/request-head.js';
import type { PostKeys } from './response-cache.js';

/** Bodies larger than this (or of unknown length) are left to GraphQL Yoga, unread here. */
const MAX_BODY_BYTES = 16 * 1024;
/** Documents whose operation type was read, by text and operation name; emptied when full. */
const MAX_DOCUMENTS = 1000;
const isQueryByDocument = new Map<string, boolean>();
/** Bodies whose answer to isQueryBody is kept (at most 2 MB of text); emptied when full. */
const MAX_BODIES = 1000;
const MAX_REMEMBERED_BODY_CHARS = 2048;
const isQueryByBody = new Map<string, boolean>();
/** A document with more tokens is not kept (Yoga applies its own limits when it runs it). */
const MAX_TOKENS = 5000;

/**
 * The response cache's keys of GraphQL POSTs to `path` that only read: a `query` operation (the operation, not the
 * HTTP method, decides), sent as JSON with its text. Null for anything else, which is answered as it always was: a
 * mutation or subscription, an event stream, a persisted operation or automatic persisted query (whose store must
 * see the request), a body that is not JSON, too large or of unknown length, a document that does not parse (Yoga
 * words the error). The one declaration of these rules, whether the body is read on node:http
 * (src/cache/response-cache.ts) or from a Fetch Request.
 */
export function graphqlPostKeys(path: string): PostKeys {
  return { bodyLength: (head) => bodyLengthToRead(head, path), keyOf };
}

/** The body's declared length, when the head leaves the POST a candidate; else null, and the body is not read. */
function bodyLengthToRead(head: RequestHead, path: string): number | null {
  if (pathOf(head.url) !== path) return null;
  if (!head.headers.get('content-type')?.toLowerCase().startsWith('application/json')) return null;
  if (head.headers.get('accept')?.includes('text/event-stream')) return null;
  const length = Number(head.headers.get('content-length') ?? Number.NaN);
  // An empty body is no query: nothing to read.
  return Number.isInteger(length) && length > 0 && length <= MAX_BODY_BYTES ? length : null;
}

/** The path of an absolute URL as RequestHead gives it (`http://host/path?query`), without parsing all of it. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const end = url.indexOf('?', start);
  return url.slice(start, end === -1 ? undefined : end);
}

function keyOf(head: RequestHead, text: string): string | null {
  // The body's own text is the key: writing the variables out again would recurse as deep as a hostile client
  // nested them (Yoga refuses those with its own limits).
  return isQueryBody(text) ? `POST ${head.url}\n${text}` : null;
}

/** Whether a body is a query the cache may answer; remembered by text for the bodies a front end sends again. */
function isQueryBody(text: string): boolean {
  const known = isQueryByBody.get(text);
  if (known !== undefined) return known;
  const body = readJson(text);
  const query =
    !!body &&
    typeof body.query === 'string' &&
    body.extensions === undefined &&
    isQuery(body.query, typeof body.operationName === 'string' ? body.operationName : null);
  if (text.length <= MAX_REMEMBERED_BODY_CHARS) {
    if (isQueryByBody.size >= MAX_BODIES) isQueryByBody.clear();
    isQueryByBody.set(text, query);
  }
  return query;
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
