import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ResponseCache } from '../cache/response-cache.js';
import type { Logger } from '../logging/logger.js';
import { loggedPath, REQUEST_ID_HEADER, requestIdOf } from '../logging/request-log.js';
import type { Cors } from './cors.js';
import { headOf } from './request-head.js';

/**
 * Answers a response-cache hit straight on node:http, without a Fetch Request and Response: building those (and their
 * streams) cost more than the hit itself (profile in bench/results.md, History 8). The answer is the one the whole
 * way would give (same representation, CORS headers, request ID and log line); a miss, or any request the cache does
 * not consider (credentials, writes), is left to the whole way. Resolves whether it answered.
 */
export function createCachedAnswers(cache: ResponseCache, cors: Cors, logger: Logger) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const started = performance.now();
    const request = headOf(req);
    const representation = await cache.hit(request);
    if (!representation) return false;
    const answer = await representation.answer(request);
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
    return true;
  };
}
