import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from '../net/public-address.js';

// Which addresses a webhook may be sent to: public ones (src/net/public-address.ts), any with WEBHOOKS_ALLOW_PRIVATE=1.

/** Why a webhook URL is refused: completes "the webhook URL …". */
export class WebhookUrlError extends Error {}

const PRIVATE = 'points at a private or local network address (set WEBHOOKS_ALLOW_PRIVATE=1 to allow it)';

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
export async function checkWebhookUrl(text: string, allowPrivate: boolean): Promise<URL> {
  const url = parseWebhookUrl(text);
  if (allowPrivate) return url;
  const host = hostOf(url);
  if (isIP(host)) {
    if (!isPublicAddress(host)) throw new WebhookUrlError(PRIVATE);
    return url;
  }
  const addresses = await lookupAll(host).catch((error: NodeJS.ErrnoException) => {
    throw new WebhookUrlError(`has a host that does not resolve (${error.code ?? error.message})`);
  });
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) throw new WebhookUrlError(PRIVATE);
  return url;
}

/** The URL's host without the brackets of an IPv6 literal. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * `dns.lookup` for the connection itself, refusing a name when any of its addresses is not public: checked as it is
 * connected, so a name cannot resolve to a public address when checked and to a private one when connected.
 */
export function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(
      hostname,
      { all: true, family: options.family, hints: options.hints },
      (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 0);
        if (!allowPrivate && (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address)))) {
          return callback(new WebhookUrlError(PRIVATE), '', 0);
        }
        if (options.all)
          return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
    );
  };
}
