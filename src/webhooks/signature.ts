import { createHmac, randomBytes } from 'node:crypto';

// How a delivery is signed. Two ways side by side: the service's own `X-Calendar-Signature` (receivers built for it
// keep working), and Standard Webhooks (https://www.standardwebhooks.com), which receivers verify with a library of
// their language (`standardwebhooks` on npm and PyPI, Svix's libraries) and which bounds replays by a timestamp.

const SIGNATURE_HEADER = 'X-Calendar-Signature';
const DELIVERY_HEADER = 'X-Calendar-Delivery';

/** Standard Webhooks' prefix of a secret: the rest is the key, base64-encoded. */
const STANDARD_SECRET_PREFIX = 'whsec_';
/** Key sizes Standard Webhooks allows (24 to 64 bytes); the service makes keys of 32. */
const KEY_BYTES = { min: 24, max: 64, made: 32 };

/** `sha256=<hex HMAC-SHA-256 of the exact body bytes, keyed with the webhook's secret>`. */
function signBody(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** A new secret: `whsec_` and a random 32-byte key (never starts with `-`, so it can follow `--secret` on a shell). */
export function newSecret(): string {
  return STANDARD_SECRET_PREFIX + randomBytes(KEY_BYTES.made).toString('base64');
}

/**
 * Why a secret given by a user cannot be used, or null. A `whsec_` one must hold a base64 key Standard Webhooks
 * accepts; any other needs 16 characters at least (its UTF-8 bytes are the Standard Webhooks key: receivers verify
 * with the library's `raw` format).
 */
export function secretProblem(secret: string): string | null {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX))
    return secret.length < 16 ? 'must be at least 16 characters long' : null;
  const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.toString('base64') !== encoded)
    return `must be ${STANDARD_SECRET_PREFIX} followed by a key in base64`;
  if (key.length < KEY_BYTES.min || key.length > KEY_BYTES.max)
    return `must hold a key of ${KEY_BYTES.min} to ${KEY_BYTES.max} bytes after ${STANDARD_SECRET_PREFIX}`;
  return null;
}

/** The HMAC key Standard Webhooks signs with: the decoded key of a `whsec_` secret, else the secret's UTF-8 bytes. */
function standardKey(secret: string): Buffer {
  return secret.startsWith(STANDARD_SECRET_PREFIX)
    ? Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/**
 * The headers of one attempt: the message's ID (the same on every retry), the attempt's time in seconds, and
 * `v1,<base64 HMAC-SHA-256 of "id.timestamp.body">`; beside them the service's own signature and delivery ID.
 */
export function deliveryHeaders(id: string, body: string, secret: string, now = new Date()): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const signed = createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signed}`,
    [SIGNATURE_HEADER]: signBody(body, secret),
    [DELIVERY_HEADER]: id,
  };
}
