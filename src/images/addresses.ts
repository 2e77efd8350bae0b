import ipaddr from 'ipaddr.js';
import type { ImageFetchConfig } from '../config.js';

// Which network addresses an image may be fetched from. Only ordinary public unicast addresses are fetched: a URL
// naming (or resolving to) loopback, private, link-local (cloud metadata at 169.254.169.254), unique-local, multicast,
// unspecified, carrier-grade NAT, documentation or other special ranges would let a client make the service read
// inside its own network. IPv4 written inside IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address it is.

/** An address or CIDR range as IMAGE_FETCH_ALLOW_PRIVATE lists them (`10.1.0.0/16`, `127.0.0.1`, `fd00::/8`). */
export function isAddressRange(text: string): boolean {
  // Written out in full only: ipaddr.js would also read `1` or `10.1` as IPv4 addresses (as inet_aton does).
  const [address = '', bits] = text.split('/');
  const written = ipaddr.IPv4.isValidFourPartDecimal(address) || (address.includes(':') && ipaddr.IPv6.isValid(address));
  return written && (bits === undefined ? true : ipaddr.isValidCIDR(text));
}

function parseRange(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (ipaddr.isValidCIDR(text)) return ipaddr.parseCIDR(text);
  const address = ipaddr.process(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** Whether an image may be fetched from this IP address (text as `dns.lookup` or a URL's host gives it). */
export function mayFetchFrom(address: string, allowPrivate: ImageFetchConfig['allowPrivate']): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address);
  if (ip.range() === 'unicast' || allowPrivate === 'all') return true;
  if (allowPrivate === 'none') return false;
  return allowPrivate.map(parseRange).some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
}
