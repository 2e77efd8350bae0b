import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { PrivateAddresses } from '../config.js';
import { checkedLookup as checkedOutboundLookup, mayConnectTo } from '../net/outbound-addresses.js';

// Which addresses a webhook may be sent to: public ones, and the private ones WEBHOOKS_ALLOW_PRIVATE=1 or
// OUTBOUND_ALLOW_PRIVATE allow (src/net/outbound-addresses.ts).

/** Why a webhook URL is refused: completes "the webhook URL …". */
export class WebhookUrlError extends Error {}

export const PRIVATE =
  'points at a private or local network address (set OUTBOUND_ALLOW_PRIVATE, or WEBHOOKS_ALLOW_PRIVATE=1, to allow it)';

const lookupAll = (hostname: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/** The URL as parsed, when it is an http(s) URL without credentials; a WebhookUrlError otherwise. */
export function parseWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlError('is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookUrlError('must use http or https');
  if (url.username || url.password) throw new WebhookUrlError('must not hold a user name or password');
  return url;
}

/** Refuses a URL whose host is, or resolves to (any of its addresses), a non-public address, unless `allowPrivate`. */
export async function checkWebhookUrl(text: string, allowPrivate: PrivateAddresses): Promise<URL> {
  const url = parseWebhookUrl(text);
  if (allowPrivate === 'all') return url;
  const host = hostOf(url);
  if (isIP(host)) {
    if (!mayConnectTo(host, allowPrivate)) throw new WebhookUrlError(PRIVATE);
    return url;
  }
  const addresses = await lookupAll(host).catch((error: NodeJS.ErrnoException) => {
    throw new WebhookUrlError(`has a host that does not resolve (${error.code ?? error.message})`);
  });
  if (addresses.length === 0 || addresses.some((a) => !mayConnectTo(a.address, allowPrivate)))
    throw new WebhookUrlError(PRIVATE);
  return url;
}

/** The URL's host without the brackets of an IPv6 literal. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** `dns.lookup` for a delivery's connection, refusing a name with an address `allowPrivate` does not allow. */
export const checkedLookup = (allowPrivate: PrivateAddresses): LookupFunction =>
  checkedOutboundLookup(allowPrivate, () => new WebhookUrlError(PRIVATE));
