import type { IncomingMessage } from 'node:http';

/**
 * What answering from memory needs to know of a request. A Fetch `Request` is one; so is a node:http request read
 * without building a Fetch Request from it (the response cache's hits, src/http/cached-answers.ts), which costs more
 * than the hit itself.
 */
export interface RequestHead {
  readonly method: string;
  /** Absolute, as a Fetch Request's: `http://host/path?query`. */
  readonly url: string;
  readonly headers: { get(name: string): string | null; has(name: string): boolean };
}

/** `req` as a RequestHead: its URL built as @whatwg-node/server builds a Fetch Request's (plain HTTP, the Host header). */
export function headOf(req: IncomingMessage): RequestHead {
  const raw = req.headers;
  const get = (name: string): string | null => {
    const value = raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return {
    method: req.method ?? 'GET',
    url: `http://${raw.host ?? 'localhost'}${req.url ?? '/'}`,
    headers: { get, has: (name) => raw[name.toLowerCase()] !== undefined },
  };
}

/** An answer as plain data: what a cached hit writes straight to node:http, or turns into a Fetch Response. */
export interface PlainAnswer {
  status: number;
  /** Lower-case names. */
  headers: Map<string, string>;
  body: Uint8Array | null;
}

export const toResponse = (answer: PlainAnswer): Response =>
  new Response(answer.body as Uint8Array<ArrayBuffer> | null, { status: answer.status, headers: [...answer.headers] });
