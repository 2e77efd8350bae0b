import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Calendar-Signature';
export const DELIVERY_HEADER = 'X-Calendar-Delivery';

/** `sha256=<hex HMAC-SHA-256 of the exact body bytes, keyed with the webhook's secret>`. */
export function signBody(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
