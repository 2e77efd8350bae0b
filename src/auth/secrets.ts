import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (secret: string, salt: Buffer, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(secret, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

// scrypt cost: about 25 ms per check on a small machine, so guessing is slow and honest clients barely notice.
const PARAMETERS = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/** `scrypt$N$r$p$<salt>$<hash>` (base64url); only this form is ever stored. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, KEY_LENGTH, PARAMETERS);
  return ['scrypt', PARAMETERS.N, PARAMETERS.r, PARAMETERS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Compares in constant time. A malformed stored value never matches. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
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

/** Spends the same time as a real check, so an unknown user answers like a wrong password. */
export async function verifyAgainstDecoy(secret: string): Promise<false> {
  decoy ??= hashSecret(randomBytes(24).toString('base64url'));
  await verifySecret(secret, await decoy);
  return false;
}

/** A new secret to show once: 24 random characters in groups, like WordPress application passwords. */
export function newSecret(): string {
  const raw = randomBytes(18).toString('base64url').replace(/[-_]/g, 'x');
  return raw.match(/.{4}/g)!.join(' ');
}
