import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';

// A request as read off node:http, without a Fetch Request: its head, the client's address and fairness key, and an
// answer as plain data.

/**
 * What answering from memory needs to know of a request. A Fetch `Request` is one; so is a node:http request read
 * without building a Fetch Request from it (the response cache's hits, src/cache/response-cache.ts), which costs more
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

/**
 * The address a request comes from: the socket's peer, or, behind a proxy one trusts (TRUST_PROXY), the last
 * address in X-Forwarded-For, the one that proxy added (earlier entries are whatever the client sent).
 */
export function clientAddressOf(
  request: Pick<RequestHead, 'headers'>,
  socketAddress: string | undefined,
  trustProxy: boolean,
): string {
  const forwarded = trustProxy ? request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim() : undefined;
  return forwarded || socketAddress || 'unknown';
}

/**
 * Who a client is, wherever clients are counted (failed sign-ins, fair shedding, subscriptions): its address, an IPv6
 * one by its /64 prefix, the block one subscriber gets (counting single IPv6 addresses would give a client 2^64 fresh
 * budgets). Behind a proxy, every user is the proxy's address unless TRUST_PROXY is set.
 */
export function clientKeyOf(address: string): string {
  if (address.length > LONGEST_ADDRESS) return parsedClientKey(address);
  let key = clientKeys.get(address);
  if (key === undefined) {
    if (clientKeys.size >= CLIENT_KEYS_KEPT) clientKeys.clear();
    key = parsedClientKey(address);
    clientKeys.set(address, key);
  }
  return key;
}

// Parsing an address with ipaddr.js took about 1% of an uncached list request (bench/results.md, History 22), and a
// server sees the same few addresses again.
// Only what can be an address is kept (an IPv6 one with a zone is under 64 characters), whatever a forwarded header says.
const CLIENT_KEYS_KEPT = 4096;
const LONGEST_ADDRESS = 64;
const clientKeys = new Map<string, string>();

function parsedClientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address.slice(0, 64);
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
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
