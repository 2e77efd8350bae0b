/**
 * What the browser's EventSource needs of an answer. It takes any answer but 200 as final (it never reconnects after
 * one) and reconnects after every 200 stream that ends, waiting the stream's last `retry` field. So a refusal for a
 * while (a process shutting down, shedding load, or full) is told to EventSource as a 200 stream that only says when
 * to come back, and ends.
 */

export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // A connection whose stream ended is not used again: EventSource's and graphql-sse's next attempt opens a new one,
  // which reaches a process that is not shutting down.
  connection: 'close',
};

/** EventSource's request: a GET that accepts event streams only. */
export function isEventSourceRequest(method: string, accept: string | null | undefined): boolean {
  return (
    method === 'GET' &&
    (accept ?? '').split(',').every((type) => type.split(';')[0]!.trim().toLowerCase() === 'text/event-stream')
  );
}

/** The body of a 200 stream that tells EventSource to come back in `retryAfterSeconds`, with `why` as a comment. */
export function comeBackLater(retryAfterSeconds: number, why: string): string {
  return `: ${why.replace(/[\r\n]+/g, ' ')}\nretry: ${Math.max(1, retryAfterSeconds) * 1000}\n\n`;
}
