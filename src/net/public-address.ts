import ipaddr from 'ipaddr.js';

// The one rule for the addresses the service itself connects to on a client's say-so (an image URL, a webhook URL):
// ordinary public unicast only. Loopback, private, link-local (cloud metadata at 169.254.169.254), unique-local,
// multicast, unspecified, carrier-grade NAT, documentation and the other special ranges of the IANA registries
// (RFC 6890) would let a client make the service reach inside its own network. Each caller decides what its setting
// allows besides (IMAGE_FETCH_ALLOW_PRIVATE, WEBHOOKS_ALLOW_PRIVATE).

const range = (text: string) => ipaddr.parseCIDR(text) as [ipaddr.IPv6, number];

/**
 * IPv6 forms that carry an IPv4 address, where their packets end up (RFC 6890 and the IANA special-purpose registry):
 * the part of the address holding it (16-bit groups, high then low), and for Teredo the server's and the client's.
 */
const EMBEDDED_IPV4: { range: [ipaddr.IPv6, number]; groups: (parts: number[]) => [number, number][] }[] = [
  // IPv4-mapped (RFC 4291), IPv4-compatible (deprecated by RFC 4291; `::` and `::1` carry 0.0.0.0 and 0.0.0.1,
  // which are not public either), IPv4-translated (RFC 6145) and the well-known NAT64 prefix (RFC 6052).
  { range: range('::ffff:0:0/96'), groups: (p) => [[p[6]!, p[7]!]] },
  { range: range('::/96'), groups: (p) => [[p[6]!, p[7]!]] },
  { range: range('::ffff:0:0:0/96'), groups: (p) => [[p[6]!, p[7]!]] },
  { range: range('64:ff9b::/96'), groups: (p) => [[p[6]!, p[7]!]] },
  // 6to4 (RFC 3056): 2002:AABB:CCDD::/48.
  { range: range('2002::/16'), groups: (p) => [[p[1]!, p[2]!]] },
  // Teredo (RFC 4380): the server's address, and the client's, bits inverted.
  {
    range: range('2001::/32'),
    groups: (p) => [
      [p[2]!, p[3]!],
      [p[6]! ^ 0xffff, p[7]! ^ 0xffff],
    ],
  },
];

const ipv4Of = ([high, low]: [number, number]) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address stands for, or null when it carries none. The local-use NAT64 prefix
 * 64:ff9b:1::/48 (RFC 8215) is not among them: where it holds the address depends on the network, and the prefix is
 * not globally reachable, so it is never public.
 */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const form = EMBEDDED_IPV4.find(({ range: [prefix, bits] }) => address.match(prefix, bits));
  return form ? form.groups(address.parts).map(ipv4Of) : null;
}

/**
 * Whether `address` (as `dns.lookup` or a URL's host gives it) is an ordinary public unicast address. An IPv6 address
 * carrying an IPv4 one (`::ffff:127.0.0.1`, `::7f00:1`, `64:ff9b::a9fe:a9fe`, `2002:a00:1::`, Teredo) is judged by
 * the IPv4 address it carries (by both a Teredo address carries).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const carried = carriedIPv4(ip as ipaddr.IPv6);
  if (carried) return carried.every((ipv4) => ipv4.range() === 'unicast');
  return ip.range() === 'unicast';
}
