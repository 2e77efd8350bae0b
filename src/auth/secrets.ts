import { createHmac, randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/*
 * Two ways to keep a secret. Secrets the service issues (application passwords, bearer tokens) carry ~142 random
 * bits, so a fast keyed hash suffices: HMAC-SHA-256 with the server key, one per sign-in. A password a person chose
 * (CALENDAR_ADMIN_PASSWORD) may be guessable, so it gets scrypt, slow on purpose; rows written before the keyed
 * form existed are scrypt too, until their next use rewrites them.
 */

const scrypt = (secret: string, salt: Buffer, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(secret, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

// scrypt cost: about 25 ms per check on a small machine, so guessing is slow and honest clients barely notice.
const PARAMETERS = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;
const MAC_SCHEME = 'hmac-sha256';

/** `scrypt$N$r$p$<salt>$<hash>` (base64url): for a password a person chose. */
export async function hashChosenSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, KEY_LENGTH, PARAMETERS);
  return [
    'scrypt',
    PARAMETERS.N,
    PARAMETERS.r,
    PARAMETERS.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/** Compares a scrypt hash in constant time. A malformed stored value never matches. */
export async function verifyChosenSecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMETERS.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let decoy: Promise<string> | undefined;

/** Spends the time of one scrypt check, so a failure costs the same whichever rows the account has. */
export async function verifyAgainstDecoy(secret: string): Promise<false> {
  decoy ??= hashChosenSecret(randomBytes(24).toString('base64url'));
  await verifyChosenSecret(secret, await decoy);
  return false;
}

/** `hmac-sha256$<mac>` (base64url) of an issued secret under the server key. */
export function macOf(key: Buffer, secret: string): string {
  return `${MAC_SCHEME}$${createHmac('sha256', key).update(secret).digest('base64url')}`;
}

/** Whether `mac` (from macOf) equals the stored value, in constant time; a stored value of another scheme never does. */
export function macMatches(mac: string, stored: string): boolean {
  const [a, b] = [Buffer.from(mac), Buffer.from(stored)];
  return a.length === b.length && timingSafeEqual(a, b);
}

export const isScryptHash = (stored: string) => stored.startsWith('scrypt$');

/** WordPress shows application passwords in groups and ignores the spaces when they come back. */
export function normalizeApplicationPassword(secret: string): string {
  return secret.replace(/\s+/g, '');
}

/** An issued secret: 24 letters and digits (what newSecret makes, spaces removed). */
const ISSUED_SHAPE = /^[A-Za-z0-9]{24}$/;
const LOOKUP_LENGTH = 8;

/**
 * The public part of an issued application password (its first 8 characters, about 47 bits, stored in the clear
 * and unique) that finds its row; null for a secret of another shape. The other 16 characters stay secret (~95 bits).
 */
export function lookupOf(normalized: string): string | null {
  return ISSUED_SHAPE.test(normalized) ? normalized.slice(0, LOOKUP_LENGTH) : null;
}

/**
 * Random letters and digits, 4 for every 3 bytes: base64url with `-` and `_` written `x`, so about 5.93 bits each
 * (61 characters at 1/64, `x` at 3/64).
 */
const randomLettersAndDigits = (bytes: number) => randomBytes(bytes).toString('base64url').replace(/[-_]/g, 'x');

/** A new secret to show once: 24 random letters and digits (~142 bits) in groups of four, like WordPress application passwords. */
export function newSecret(): string {
  return randomLettersAndDigits(18).match(/.{4}/g)!.join(' ');
}

/** What a bearer token starts with: a public ID that finds its row, 16 random letters and digits (~95 bits). */
export const TOKEN_ID_SHAPE = /^[A-Za-z0-9]{16}$/;

export function newTokenId(): string {
  return randomLettersAndDigits(12);
}
