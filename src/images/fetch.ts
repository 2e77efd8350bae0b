import { isIP } from 'node:net';
import { Agent, fetch, type Response } from 'undici';
import type { ImageFetchConfig } from '../config.js';
import { checkedLookup, mayConnectTo } from '../net/outbound-addresses.js';
import { ACCEPTED_IMAGE_TYPES, imageFactsOf, type ImageFacts } from './facts.js';

/** Why an image URL was refused: the text completes "image: …" in the error a client gets. */
export class ImageFetchError extends Error {}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const PRIVATE = 'may not be fetched: its host is a private or local network address';

/**
 * Downloads the image at `url` (http or https) and answers its facts, read from its bytes. Refused, with the reason:
 * a host that is (or resolves to, at any hop) an address other than public unicast unless IMAGE_FETCH_ALLOW_PRIVATE
 * allows it; more than 5 redirects; an answer other than 200; a body larger than IMAGE_FETCH_MAX_BYTES; the whole
 * exchange taking longer than IMAGE_FETCH_TIMEOUT_MS; bytes that are no image of an accepted type.
 */
export async function fetchImageFacts(url: string, config: ImageFetchConfig): Promise<ImageFacts> {
  const timeout = AbortSignal.timeout(config.timeoutMs);
  // Each connection's addresses are checked as they are resolved, so a name cannot resolve to a public address when
  // checked and to a private one when connected (DNS rebinding). A fetch has its own agent: no pooled connections.
  const agent = new Agent({
    connect: { lookup: checkedLookup(config.allowPrivate, () => new ImageFetchError(PRIVATE)) },
  });
  try {
    const response = await followRedirects(url, agent, timeout, config);
    if (response.status !== 200)
      throw new ImageFetchError(`could not be fetched: the server answered ${response.status}`);
    const facts = imageFactsOf(await readBody(response, config.maxBytes));
    if (!facts) throw new ImageFetchError(`is not an image (${ACCEPTED_IMAGE_TYPES})`);
    return facts;
  } catch (error) {
    const refusal = ownError(error);
    if (refusal) throw refusal;
    if (timeout.aborted) throw new ImageFetchError(`could not be fetched within ${config.timeoutMs} ms`);
    throw new ImageFetchError(`could not be fetched (${causeOf(error)})`);
  } finally {
    void agent.destroy().catch(() => {});
  }
}

async function followRedirects(
  url: string,
  agent: Agent,
  signal: AbortSignal,
  config: ImageFetchConfig,
): Promise<Response> {
  let target = new URL(url);
  for (let hop = 0; ; hop++) {
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      throw new ImageFetchError('redirects to a URL that is not http or https');
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // A host written as an address is connected to without a lookup: checked here.
    if (isIP(host) && !mayConnectTo(host, config.allowPrivate)) throw new ImageFetchError(PRIVATE);
    const response = await fetch(target, {
      dispatcher: agent,
      redirect: 'manual',
      signal,
      headers: { accept: 'image/*' },
    });
    if (!REDIRECTS.has(response.status)) return response;
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (!location)
      throw new ImageFetchError(`could not be fetched: the server answered ${response.status} without a Location`);
    if (hop === MAX_REDIRECTS) throw new ImageFetchError(`could not be fetched: more than ${MAX_REDIRECTS} redirects`);
    target = new URL(location, target);
  }
}

async function readBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new ImageFetchError(`is larger than ${maxBytes} bytes`);
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
function ownError(error: unknown): ImageFetchError | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof ImageFetchError) return current;
  }
  return undefined;
}

/** The innermost cause's code or message (`ECONNREFUSED`, `ENOTFOUND`). */
function causeOf(error: unknown): string {
  let current = error as Error & { code?: string };
  while (current.cause instanceof Error) current = current.cause as Error & { code?: string };
  return current.code ?? current.message;
}
