import ipaddr from 'ipaddr.js';

// The one rule for the addresses the service itself connects to on a client's say-so (an image URL, a webhook URL):
// ordinary public unicast only. Loopback, private, link-local (cloud metadata at 169.254.169.254), unique-local,
// multicast, unspecified, carrier-grade NAT, documentation and other special ranges would let a client make the
// service reach inside its own network. IPv4 written inside IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address
// it is. Each caller decides what its setting allows besides (IMAGE_FETCH_ALLOW_PRIVATE, WEBHOOKS_ALLOW_PRIVATE).

/** Whether `address` (as `dns.lookup` or a URL's host gives it) is an ordinary public unicast address. */
export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'unicast';
}
