import ipaddr from 'ipaddr.js';
import type { RequestHead } from '../http/request-head.js';

/**
 * The address a request comes from: the socket's peer, or, behind a proxy one trusts (TRUST_PROXY), the last
 * address in X-Forwarded-For, the one that proxy added (earlier entries are whatever the client sent).
 */
export function clientAddressOf(
  request: Pick<RequestHead, 'headers'>,
  socketAddress: string | undefined,
  trustProxy: boolean,
): string {
  const forwarded = trustProxy ? request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim() : undefined;
  return forwarded || socketAddress || 'unknown';
}

/**
 * Who a client is, wherever clients are counted (failed sign-ins, fair shedding, subscriptions): its address, an IPv6
 * one by its /64 prefix, the block one subscriber gets (counting single IPv6 addresses would give a client 2^64 fresh
 * budgets). Behind a proxy, every user is the proxy's address unless TRUST_PROXY is set.
 */
export function clientKeyOf(address: string): string {
  if (!ipaddr.isValid(address)) return address.slice(0, 64);
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
}
