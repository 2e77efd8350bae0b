import type { GraphQLResult } from './server.js';

// A client of the `changed` subscription over Server-Sent Events (POST /graphql, Accept: text/event-stream), as a
// browser's fetch or an EventSource polyfill sends it.

export interface Change {
  type: string;
  databaseId: number;
  action: string;
  modifiedAt: string;
}

export interface Received {
  at: number;
  change: Change;
}

/** An answered subscription: open (200) with what it received so far, or refused with its status and errors. */
export interface Stream {
  status: number;
  headers: Headers;
  /** The errors of a refused (or failed) subscription. */
  errors: NonNullable<GraphQLResult['errors']>;
  received: Received[];
  /** Hangs up. */
  close(): void;
  /** Resolves once a change matching `test` arrives (or fails after `ms`). */
  waitFor(test: (change: Change) => boolean, ms?: number): Promise<Received>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
}

export const CHANGED = 'subscription { changed { type databaseId action modifiedAt } }';

export interface SubscribeOptions {
  authorization?: string | null;
  /** Further request headers (X-Forwarded-For behind TRUST_PROXY). */
  headers?: Record<string, string>;
}

/** Subscribes with `query` and reads the stream in the background; answers once the response's headers arrived. */
export async function subscribe(base: string, query = CHANGED, options: SubscribeOptions = {}): Promise<Stream> {
  const abort = new AbortController();
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(options.authorization ? { authorization: options.authorization } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ query }),
    signal: abort.signal,
  });
  const received: Received[] = [];
  const errors: Stream['errors'] = [];
  const waiters = new Set<() => void>();
  const ended = (async () => {
    if (response.headers.get('content-type')?.startsWith('application/json')) {
      // Refused before GraphQL (load shedding, sign-in limits): a plain GraphQL answer.
      errors.push(...(((await response.json()) as GraphQLResult).errors ?? []));
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = message.split('\n').find((line) => line.startsWith('data: '));
          const payload = data ? (JSON.parse(data.slice(6)) as GraphQLResult) : undefined;
          if (payload?.data?.changed) received.push({ at: Date.now(), change: payload.data.changed });
          if (payload?.errors) errors.push(...payload.errors);
          for (const wake of waiters) wake();
        }
      }
    } catch {
      // hung up
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    errors,
    received,
    ended,
    close: () => abort.abort(),
    waitFor(test, ms = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.find((one) => test(one.change));
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`no matching change within ${ms} ms; got ${JSON.stringify(received.map((one) => one.change))}`),
          );
        }, ms);
        waiters.add(check);
        check();
      });
    },
  };
}
