import { isIP } from 'node:net';
import { Agent, fetch, type Response } from 'undici';
import type { PrivateAddresses } from '../config.js';
import { checkedLookup, mayConnectTo } from './outbound-addresses.js';

/**
 * Why an outgoing request was refused or failed: the text completes "the image …", "the feed …". `transient`: the
 * network failed or the time ran out, and a later try may succeed; otherwise the same request is refused again.
 */
export class OutboundRefusal extends Error {
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}

export interface OutboundRequest {
  allowPrivate: PrivateAddresses;
  /** The whole exchange: lookups, connections, redirects and the body. */
  timeoutMs: number;
  /** The largest body read; a longer one is refused as soon as it passes this. */
  maxBytes: number;
  headers?: Record<string, string>;
}

/** The answer after redirects: its status and headers, and its body, read within the limits. */
export interface OutboundAnswer {
  status: number;
  headers: Headers;
  body(): Promise<Uint8Array>;
}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const PRIVATE = 'may not be fetched: its host is a private or local network address';

/**
 * GETs `url` (http or https) and hands the answer to `use`, refusing, with the reason: a host that is (or resolves
 * to, at any hop) an address `allowPrivate` does not allow; more than 5 redirects; a body larger than `maxBytes`; the
 * whole exchange taking longer than `timeoutMs`. A request has its own agent: no pooled connections.
 */
export async function fetchOutbound<T>(
  url: string,
  request: OutboundRequest,
  use: (answer: OutboundAnswer) => Promise<T>,
): Promise<T> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  // Each connection's addresses are checked as they are resolved, so a name cannot resolve to a public address when
  // checked and to a private one when connected (DNS rebinding).
  const agent = new Agent({
    connect: { lookup: checkedLookup(request.allowPrivate, () => new OutboundRefusal(PRIVATE)) },
  });
  try {
    const response = await followRedirects(url, agent, timeout, request);
    return await use({
      status: response.status,
      headers: response.headers as unknown as Headers,
      body: () => readBody(response, request.maxBytes),
    });
  } catch (error) {
    const refusal = ownError(error);
    if (refusal) throw refusal;
    if (timeout.aborted) throw new OutboundRefusal(`could not be fetched within ${request.timeoutMs} ms`, true);
    if (!(error instanceof TypeError) && !hasNetworkCause(error)) throw error;
    throw new OutboundRefusal(`could not be fetched (${causeOf(error)})`, true);
  } finally {
    void agent.destroy().catch(() => {});
  }
}

async function followRedirects(
  url: string,
  agent: Agent,
  signal: AbortSignal,
  request: OutboundRequest,
): Promise<Response> {
  let target = new URL(url);
  for (let hop = 0; ; hop++) {
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      throw new OutboundRefusal('redirects to a URL that is not http or https');
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // A host written as an address is connected to without a lookup: checked here.
    if (isIP(host) && !mayConnectTo(host, request.allowPrivate)) throw new OutboundRefusal(PRIVATE);
    const response = await fetch(target, { dispatcher: agent, redirect: 'manual', signal, headers: request.headers });
    if (!REDIRECTS.has(response.status)) return response;
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (!location)
      throw new OutboundRefusal(`could not be fetched: the server answered ${response.status} without a Location`);
    if (hop === MAX_REDIRECTS) throw new OutboundRefusal(`could not be fetched: more than ${MAX_REDIRECTS} redirects`);
    target = new URL(location, target);
  }
}

async function readBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new OutboundRefusal(`is larger than ${maxBytes} bytes`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.byteLength;
    if (total > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A refusal of ours, thrown as it is or wrapped by fetch as the cause of its `TypeError: fetch failed`. */
function ownError(error: unknown): OutboundRefusal | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof OutboundRefusal) return current;
  }
  return undefined;
}

const hasNetworkCause = (error: unknown) => error instanceof Error && error.cause instanceof Error;

/** The innermost cause's code or message (`ECONNREFUSED`, `ENOTFOUND`). */
function causeOf(error: unknown): string {
  let current = error as Error & { code?: string };
  while (current.cause instanceof Error) current = current.cause as Error & { code?: string };
  return current.code ?? current.message;
}
