import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { PrivateAddresses } from '../config.js';
import { isPublicAddress } from './public-address.js';

// Which addresses the service may connect to on a client's or an administrator's say-so (images given by URL,
// webhooks, and any other outgoing request): public ones (public-address.ts), and the private ones a setting allows
// (OUTBOUND_ALLOW_PRIVATE, or the older IMAGE_FETCH_ALLOW_PRIVATE and WEBHOOKS_ALLOW_PRIVATE for their own requests).

function parseRange(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (ipaddr.isValidCIDR(text)) return ipaddr.parseCIDR(text);
  const address = ipaddr.process(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** Whether the service may connect to this IP address (text as `dns.lookup` or a URL's host gives it). */
export function mayConnectTo(address: string, allowPrivate: PrivateAddresses): boolean {
  if (!ipaddr.isValid(address)) return false;
  if (isPublicAddress(address) || allowPrivate === 'all') return true;
  if (allowPrivate === 'none') return false;
  const ip = ipaddr.process(address);
  return allowPrivate.map(parseRange).some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
}

/**
 * `dns.lookup` for the connection itself, refusing a name when any of its addresses may not be connected to (with
 * `refusal()`): checked as it is connected, so a name cannot resolve to a public address when checked and to a
 * private one when connected (DNS rebinding).
 */
export function checkedLookup(allowPrivate: PrivateAddresses, refusal: () => Error): LookupFunction {
  return (hostname, options, callback) => {
    const all: LookupAllOptions = { all: true, family: options.family, hints: options.hints };
    dnsLookup(hostname, all, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (addresses.length === 0 || addresses.some((address) => !mayConnectTo(address.address, allowPrivate)))
        return callback(refusal(), '', 0);
      if (options.all)
        return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
