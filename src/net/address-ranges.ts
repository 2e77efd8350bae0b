import ipaddr from 'ipaddr.js';

/** An address or CIDR range as IMAGE_FETCH_ALLOW_PRIVATE lists them (`10.1.0.0/16`, `127.0.0.1`, `fd00::/8`). */
export function isAddressRange(text: string): boolean {
  // Written out in full only: ipaddr.js would also read `1` or `10.1` as IPv4 addresses (as inet_aton does).
  const [address = '', bits] = text.split('/');
  const written =
    ipaddr.IPv4.isValidFourPartDecimal(address) || (address.includes(':') && ipaddr.IPv6.isValid(address));
  return written && (bits === undefined ? true : ipaddr.isValidCIDR(text));
}
