import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { refusalAnswer, type Refusal, type RestRefusalBody } from './admission.js';
import { loggedPath, REQUEST_ID_HEADER, type RequestLine, requestIdOf } from '../logging/logger.js';
import type { Cors } from '../http/representation.js';
import { comeBackLater, EVENT_STREAM_HEADERS, isEventSourceRequest } from '../http/event-source.js';
import { headOf, type PlainAnswer } from '../http/request-head.js';

/**
 * Answers a request the load shedder refused (admission.ts) straight on node:http, before a Fetch
 * Request is built for it: refusing must cost next to nothing, or a flood of refused requests keeps the process as
 * far behind as the flood it refuses. The answer carries what every answer does (CORS headers, request ID), and the
 * request gets its log line, with the refusal's `reason`: at warn for a 503 (the process is behind), at info for a
 * 429 (one client's excess), as for other refusals.
 */
export function createRefusals(cors: Cors, writeLine: (line: RequestLine) => void, restBody: RestRefusalBody) {
  return (req: IncomingMessage, res: ServerResponse, { status, reason }: Refusal): void => {
    const started = performance.now();
    const request = headOf(req);
    const url = targetOf(req);
    const { headers, body } = refusalAnswer(url.pathname, status, restBody);
    const answer: PlainAnswer = isEventSourceRequest(request.method, request.headers.get('accept'))
      ? eventSourceAnswer(headers['retry-after'], body)
      : { status, headers: new Map(Object.entries(headers)), body: Buffer.from(body) };
    cors.decorateAnswer(request, answer);
    const requestId = requestIdOf(request);
    answer.headers.set(REQUEST_ID_HEADER.toLowerCase(), requestId);
    req.resume();
    res
      .writeHead(answer.status, Object.fromEntries(answer.headers))
      .end(req.method === 'HEAD' ? undefined : answer.body);
    writeLine({
      requestId,
      method: request.method,
      path: loggedPath({ ...request, url: url.href }),
      status: answer.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      reason,
    });
  };
}

/** The request's target, read without the Host header (which may not be a valid host): nothing here may throw. */
function targetOf(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return new URL('http://localhost/');
  }
}

/** A refusal told to EventSource, which gives up on anything but 200: come back after Retry-After (event-source.ts). */
function eventSourceAnswer(retryAfter: string, refusalBody: string): PlainAnswer {
  const why = JSON.parse(refusalBody) as { errors?: Array<{ message: string }>; message?: string };
  const message = why.errors?.[0]?.message ?? why.message ?? 'The service is busy.';
  return {
    status: 200,
    headers: new Map(Object.entries(EVENT_STREAM_HEADERS)),
    body: Buffer.from(comeBackLater(Number(retryAfter) || 1, message)),
  };
}
