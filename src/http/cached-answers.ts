import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { CacheLookup, ResponseCache } from '../cache/response-cache.js';
import type { Logger } from '../logging/logger.js';
import { loggedPath, REQUEST_ID_HEADER, requestIdOf } from '../logging/request-log.js';
import type { Cors } from './cors.js';
import { keepReadBody, readDeclaredBody } from './request-body.js';
import { headOf } from './request-head.js';

/**
 * Answers a response-cache hit straight on node:http, without a Fetch Request and Response: building those (and their
 * streams) cost more than the hit itself (profile in bench/results.md, History 8). The answer is the one the whole
 * way would give (same representation, CORS headers, request ID and log line). A POST whose key is in its body (a
 * GraphQL query) has its body read here first, bounded by its Content-Length and `bodyTimeoutMs`. Resolves null when
 * it answered, else the request's lookup (a miss, or a request the cache does not consider), which goes the whole
 * way with it so that the cache is not entered again; a body read here goes with the request.
 */
export function createCachedAnswers(cache: ResponseCache, cors: Cors, logger: Logger, bodyTimeoutMs: number) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<CacheLookup | null> => {
    const started = performance.now();
    const request = headOf(req);
    let lookup = await cache.lookUp(request);
    if (lookup.body) lookup = await lookUpBody(req, lookup.body, bodyTimeoutMs);
    if (!lookup.hit) return lookup;
    const answer = await lookup.hit.answer(request);
    cors.decorateAnswer(request, answer);
    const requestId = requestIdOf(request);
    answer.headers.set(REQUEST_ID_HEADER.toLowerCase(), requestId);
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(req.method === 'HEAD' ? undefined : answer.body);
    logger.info(
      {
        requestId,
        method: req.method,
        path: loggedPath(request),
        status: answer.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      },
      'request',
    );
    return null;
  };
}

/** Decodes as a Fetch Request's text() does (a byte order mark dropped), so that both ways find the same key. */
const utf8 = new TextDecoder();

/** The lookup of a POST by its body, read off `req`; the bytes read are kept for the Fetch Request of a miss. */
async function lookUpBody(
  req: IncomingMessage,
  body: NonNullable<CacheLookup['body']>,
  timeoutMs: number,
): Promise<CacheLookup> {
  const bytes = await readDeclaredBody(req, body.length, timeoutMs);
  if (bytes) keepReadBody(req, bytes);
  return body.lookUp(bytes && utf8.decode(bytes));
}
