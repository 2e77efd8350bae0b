import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { PrivateAddresses } from '../config.js';
import { mayConnectTo } from '../net/outbound-addresses.js';
import { checkedLookup, hostOf, PRIVATE, parseWebhookUrl, WebhookUrlError } from './addresses.js';

/** How an attempt ended: a 2xx answer, or why not (an answer's status, a network error, a timeout, a refusal). */
export type PostOutcome = { ok: true; status: number } | { ok: false; error: string };

/** Bytes of an answer read (and thrown away) before the connection is closed. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs `body` to `url` once. Redirects are not followed (a 3xx is a failure); the host's addresses are checked as
 * the connection is made; the whole exchange (name lookup, connection, request, answer's headers and body) has
 * `timeoutMs`, after which the connection is destroyed; `signal` ends it sooner (the server stopping). A connection
 * of its own, not pooled.
 */
export function postOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  allowPrivate: PrivateAddresses,
  signal?: AbortSignal,
): Promise<PostOutcome> {
  let target: URL;
  try {
    target = parseWebhookUrl(url);
    const host = hostOf(target);
    if (isIP(host) && !mayConnectTo(host, allowPrivate)) throw new WebhookUrlError(PRIVATE);
  } catch (error) {
    return Promise.resolve({ ok: false, error: `refused: the URL ${(error as Error).message}` });
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      request.destroy();
      resolve(outcome);
    };
    const stop = () => settle({ ok: false, error: 'interrupted: the server stopped' });
    const request = client.request(
      target,
      {
        method: 'POST',
        agent: false,
        lookup: checkedLookup(allowPrivate),
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'calendar-events-service webhooks',
          ...headers,
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const done = () =>
          settle(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, error: `answered ${status}` });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => settle({ ok: false, error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const refusal = error instanceof WebhookUrlError || error.cause instanceof WebhookUrlError;
      settle({
        ok: false,
        error: refusal ? `refused: the URL ${error.message}` : `network error: ${error.code ?? error.message}`,
      });
    });
    request.end(body);
  });
}
