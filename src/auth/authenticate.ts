import type { Db } from '../db/client.js';
import type { ViewerUser } from './permissions.js';
import { verifyAgainstDecoy, verifySecret } from './secrets.js';

export type Authentication = { kind: 'anonymous' } | { kind: 'user'; user: ViewerUser } | { kind: 'invalid' };

/** Hash checks a failed sign-in costs, whoever the user (users rarely hold more application passwords). */
const FAILED_CHECKS = 3;

/** WordPress shows application passwords in groups and ignores the spaces when they come back. */
export function normalizeApplicationPassword(secret: string): string {
  return secret.replace(/\s+/g, '');
}

const ANONYMOUS: Authentication = { kind: 'anonymous' };
const INVALID: Authentication = { kind: 'invalid' };

function decodeBasic(value: string): { login: string; secret: string } | null {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { login: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

async function byApplicationPassword(db: Db, login: string, secret: string): Promise<Authentication> {
  const user = await db.user.findUnique({
    where: { login },
    select: { id: true, login: true, role: true, credentials: { where: { kind: 'application_password', revokedAt: null }, select: { id: true, secretHash: true } } },
  });
  const normalized = normalizeApplicationPassword(secret);
  const credentials = user?.credentials ?? [];
  for (const credential of credentials) {
    if (await verifySecret(normalized, credential.secretHash)) {
      await db.credential.update({ where: { id: credential.id }, data: { lastUsedAt: new Date() } });
      return { kind: 'user', user: { id: user!.id, login: user!.login, role: user!.role } };
    }
  }
  // A failure always costs FAILED_CHECKS hash checks, so an unknown user and a wrong password take the same time.
  for (let n = credentials.length; n < FAILED_CHECKS; n++) await verifyAgainstDecoy(normalized);
  return INVALID;
}

async function byBearerToken(db: Db, token: string): Promise<Authentication> {
  const match = /^(\d{1,12})\.(.+)$/.exec(token.trim());
  const credential = match
    ? await db.credential.findFirst({
        where: { id: Number(match[1]), kind: 'bearer_token', revokedAt: null },
        select: { id: true, secretHash: true, user: { select: { id: true, login: true, role: true } } },
      })
    : null;
  const secret = match?.[2] ?? token;
  if (!credential) {
    for (let n = 0; n < FAILED_CHECKS; n++) await verifyAgainstDecoy(secret);
    return INVALID;
  }
  if (!(await verifySecret(secret, credential.secretHash))) {
    for (let n = 1; n < FAILED_CHECKS; n++) await verifyAgainstDecoy(secret);
    return INVALID;
  }
  await db.credential.update({ where: { id: credential.id }, data: { lastUsedAt: new Date() } });
  return { kind: 'user', user: credential.user };
}

/**
 * Reads the Authorization header: HTTP Basic with an application password, or a Bearer token. No header means an
 * anonymous reader; anything that does not verify (unknown user, wrong or revoked secret, malformed header) is
 * `invalid`, the same answer after the same work.
 */
export async function authenticate(db: Db, authorization: string | null): Promise<Authentication> {
  if (!authorization || authorization.trim() === '') return ANONYMOUS;
  const [scheme = '', value = ''] = authorization.trim().split(/\s+(.*)/s);
  if (scheme.toLowerCase() === 'basic') {
    const credentials = decodeBasic(value);
    if (!credentials) return byApplicationPassword(db, '', value);
    return byApplicationPassword(db, credentials.login, credentials.secret);
  }
  if (scheme.toLowerCase() === 'bearer') return byBearerToken(db, value);
  return byApplicationPassword(db, '', value);
}
