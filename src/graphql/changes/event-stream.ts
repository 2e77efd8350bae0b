import type { ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { comeBackLater, EVENT_STREAM_HEADERS, isEventSourceRequest } from '../../http/event-source.js';
import { ErrorCode } from '../errors.js';
import type { RequestStream } from './live.js';

// The Server-Sent Events answers of `changed` (GraphQL over SSE, "distinct connections" as graphql-sse calls it), in
// place of GraphQL Yoga's own: each event of a change carries the change's cursor as its `id` (EventSource sends it
// back as Last-Event-ID when it reconnects), and a stream the server ends for its client to reconnect ends without
// `complete`, which EventSource and graphql-sse both take as a lost connection to open again.

/** EventSource's delay before it reconnects (the `retry` field): to another process, when this one is shutting down. */
export const RECONNECT_AFTER_MS = 1000;
/** How long a client may take to read the end of a stream the server ended before its connection is cut. */
const HANG_UP_AFTER_MS = 2000;
/** A comment every so often keeps proxies from closing a quiet stream (as GraphQL Yoga's own, faster under test). */
const PING_MS = process.env.NODE_ENV === 'test' ? 300 : 12_000;

/** What the server context of a GraphQL request holds for these answers. */
export interface EventStreamContext {
  /** The request's `changed` stream, when it may open one. */
  changes?: RequestStream;
  /** Cuts the request's connection (a no-op once its answer was sent): for a client that does not read the end. */
  hangUp?: () => void;
}

const isEventSource = (request: Request) => isEventSourceRequest(request.method, request.headers.get('accept'));

/** The Server-Sent Events answers of subscriptions, and of anything EventSource asks for. */
export function eventStreamAnswers(): Plugin<Record<string, never>, EventStreamContext> {
  return {
    onResultProcess({ request, result, resultProcessor, serverContext, setResultProcessor }) {
      if (!resultProcessor) return;
      if (isAsyncIterable(result)) {
        // Only a subscription answers a stream here (the schema has no @defer or @stream), and only over SSE.
        setResultProcessor(
          (results, fetchAPI) => eventStream(results as AsyncIterable<ExecutionResult>, serverContext, fetchAPI),
          'text/event-stream',
        );
      } else if (isEventSource(request)) {
        const chosen = resultProcessor;
        setResultProcessor(
          async (single, fetchAPI) =>
            forEventSource(await chosen(single, fetchAPI, 'text/event-stream'), single as ExecutionResult),
          'text/event-stream',
        );
      }
    },
  };
}

/** A GraphQL error as the client sees it: without the extensions meant for the HTTP layer. */
function publicError(error: GraphQLError | Record<string, unknown>) {
  const json = (typeof error.toJSON === 'function' ? (error as GraphQLError).toJSON() : error) as {
    extensions?: Record<string, unknown>;
  };
  const { http: _http, unexpected: _unexpected, ...extensions } = json.extensions ?? {};
  return { ...json, extensions: Object.keys(extensions).length ? extensions : undefined };
}

const serialized = (result: ExecutionResult) =>
  JSON.stringify(result.errors?.length ? { ...result, errors: result.errors.map(publicError) } : result);

/**
 * A subscription's stream: `retry` first, then an event per result, each change's with its cursor as `id`. It ends
 * with `complete` when the subscription is over, with an error and `complete` when its credential was revoked, and
 * without either when the server ended it for its client to reconnect (RequestStream.ended), whose connection is then
 * cut after HANG_UP_AFTER_MS if the client has not read to the end (one that reads nothing would hold it for ever).
 */
function eventStream(
  results: AsyncIterable<ExecutionResult>,
  context: EventStreamContext,
  fetchAPI: { ReadableStream: typeof ReadableStream; Response: typeof Response },
): Response {
  const stream = context.changes;
  const iterator = results[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  let ping: NodeJS.Timeout | undefined;
  let finished = false;
  let lastId: string | undefined;
  const stop = () => {
    finished = true;
    clearInterval(ping);
  };
  // Whatever holds the answer goes once it cannot be sent any more: its client went, or was cut off.
  const abandon = () => {
    if (finished) return;
    stop();
    void iterator.return?.();
  };
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    stop();
    const end = stream?.ended;
    let text = '';
    if (end && !end.reconnect) text += `event: next\ndata: ${JSON.stringify({ errors: [publicError(end.error)] })}\n\n`;
    if (!end?.reconnect) text += 'event: complete\ndata:\n\n';
    if (text) controller.enqueue(encoder.encode(text));
    controller.close();
  };
  const body = new fetchAPI.ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`:\nretry: ${RECONNECT_AFTER_MS}\n\n`));
      ping = setInterval(() => {
        if (controller.desiredSize === null) clearInterval(ping);
        else if (controller.desiredSize > 0) controller.enqueue(encoder.encode(':\n\n'));
      }, PING_MS);
      stream?.request.signal.addEventListener('abort', abandon, { once: true });
      stream?.onEnd(() =>
        setTimeout(() => {
          context.hangUp?.();
          abandon();
        }, HANG_UP_AFTER_MS).unref(),
      );
    },
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (finished) return;
        if (next.done) return finish(controller);
        const cursor = stream?.lastCursor;
        const id = cursor && cursor !== lastId ? `id: ${(lastId = cursor)}\n` : '';
        controller.enqueue(encoder.encode(`${id}event: next\ndata: ${serialized(next.value)}\n\n`));
      } catch (error) {
        stop();
        controller.error(error);
      }
    },
    async cancel() {
      stop();
      await iterator.return?.();
    },
  });
  return new fetchAPI.Response(body, { status: 200, headers: EVENT_STREAM_HEADERS });
}

/**
 * An answer without a stream, for EventSource: a refusal for a while (503: shutting down, or a full process) becomes a
 * 200 stream that only says when to come back (`retry`, from Retry-After) and ends, so that EventSource reconnects
 * instead of giving up; a refusal for good (a bad query or cursor, 401, 429) is never 200, so that it gives up
 * instead of asking again every second.
 */
function forEventSource(answer: Response, result: ExecutionResult): Response {
  const [error] = result.errors ?? [];
  if (answer.status === 503) {
    const body = comeBackLater(Number(answer.headers.get('retry-after')) || 1, error?.message ?? 'Unavailable');
    return new Response(body, { status: 200, headers: EVENT_STREAM_HEADERS });
  }
  if (answer.status !== 200 || !error || result.data) return answer;
  const status = result.errors!.some((one) => one.extensions?.code === ErrorCode.resyncRequired) ? 410 : 400;
  return new Response(answer.body, { status, headers: answer.headers });
}

/**
 * graphql-sse's single connection mode (a PUT that reserves a stream, then operations sent apart from it) is not
 * spoken here: its reservation is refused at once with this answer, which the client reports as a NetworkError.
 */
export function singleConnectionModeRefusal(): Response {
  const message =
    'graphql-sse’s single connection mode is not supported: use its distinct connections mode (createClient without ' +
    '`singleConnection`, the default), one stream per subscription (POST /graphql with Accept: text/event-stream).';
  return new Response(
    JSON.stringify({ errors: [{ message, extensions: { code: ErrorCode.singleConnectionModeUnsupported } }] }),
    {
      status: 405,
      headers: { 'content-type': 'application/json; charset=utf-8', allow: 'GET, POST' },
    },
  );
}
