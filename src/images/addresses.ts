import ipaddr from 'ipaddr.js';
import type { ImageFetchConfig } from '../config.js';
import { isPublicAddress } from '../net/public-address.js';

// Which network addresses an image may be fetched from: public ones (src/net/public-address.ts), and the private
// ones IMAGE_FETCH_ALLOW_PRIVATE lists.

function parseRange(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (ipaddr.isValidCIDR(text)) return ipaddr.parseCIDR(text);
  const address = ipaddr.process(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** Whether an image may be fetched from this IP address (text as `dns.lookup` or a URL's host gives it). */
export function mayFetchFrom(address: string, allowPrivate: ImageFetchConfig['allowPrivate']): boolean {
  if (!ipaddr.isValid(address)) return false;
  if (isPublicAddress(address) || allowPrivate === 'all') return true;
  if (allowPrivate === 'none') return false;
  const ip = ipaddr.process(address);
  return allowPrivate.map(parseRange).some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
}
