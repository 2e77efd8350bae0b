import type { RequestHead } from '../http/request-head.js';

/**
 * The address a request comes from: the socket's peer, or, behind a proxy one trusts (TRUST_PROXY), the last
 * address in X-Forwarded-For, the one that proxy added (earlier entries are whatever the client sent).
 */
export function clientAddressOf(request: Pick<RequestHead, 'headers'>, socketAddress: string | undefined, trustProxy: boolean): string {
  const forwarded = trustProxy ? request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim() : undefined;
  return forwarded || socketAddress || 'unknown';
}
