import type { DbTransaction } from '../db/client.js';
import type { CredentialKind, Role } from '../db/generated/prisma/enums.js';
import type { Logger } from '../logging/logger.js';
import { credentialKey } from './credential-key.js';
import { hashChosenSecret, lookupOf, macOf, newSecret, newTokenId, normalizeApplicationPassword } from './secrets.js';

export interface IssuedCredential {
  id: number;
  name: string;
  kind: CredentialKind;
  /** Shown once: an application password, or a bearer token `<public ID>.<secret>`. Never stored. */
  secret: string;
}

/** Logins users sign in with (HTTP Basic `login:password`): what `createUser` in GraphQL and the CLI accept. */
export const LOGIN_MAX_LENGTH = 60;
export const LOGIN_PATTERN = new RegExp(`^[A-Za-z0-9._@-]{1,${LOGIN_MAX_LENGTH}}$`);
export const LOGIN_RULE = `use 1-${LOGIN_MAX_LENGTH} letters, digits, . _ @ or -`;

export async function createUser(db: DbTransaction, login: string, role: Role, email = '', displayName = login) {
  return db.user.create({ data: { login, role, email, displayName } });
}

/**
 * Issues a credential for a user; the secret is returned once and only its keyed hash is kept. The public part that
 * finds its row (`lookup`) is an application password's first characters, or the random ID a bearer token starts
 * with (not the row's number, which anyone could guess).
 */
export async function issueCredential(
  db: DbTransaction,
  userId: number,
  kind: CredentialKind,
  name: string,
): Promise<IssuedCredential> {
  const secret = newSecret();
  const stored = normalizeApplicationPassword(secret);
  const lookup = kind === 'application_password' ? lookupOf(stored) : newTokenId();
  const secretHash = macOf(await credentialKey(db), stored);
  const credential = await db.credential.create({ data: { userId, kind, name, lookup, secretHash } });
  const shown = kind === 'bearer_token' ? `${lookup}.${stored}` : secret;
  return { id: credential.id, name, kind, secret: shown };
}

export async function revokeCredential(db: DbTransaction, id: number): Promise<boolean> {
  const { count } = await db.credential.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  return count > 0;
}

export function listCredentials(db: DbTransaction, userId: number) {
  return db.credential.findMany({
    where: { userId },
    orderBy: { id: 'asc' },
    select: { id: true, name: true, kind: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  });
}

export const ADMIN_LOGIN = 'admin';
/** The name of the application password CALENDAR_ADMIN_PASSWORD creates: the one secret a person chose (scrypt). */
export const ADMIN_CREDENTIAL_NAME = 'CALENDAR_ADMIN_PASSWORD';

/**
 * Makes `admin` an administrator, creating it when missing; null when it already has a credential (another process
 * starting at the same time got there first), so that only one of them stores the password.
 */
async function claimAdminUser(db: DbTransaction): Promise<number | null> {
  try {
    return (await createUser(db, ADMIN_LOGIN, 'administrator', '', 'Administrator')).id;
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2002') throw error;
  }
  const admin = await db.user.findUniqueOrThrow({
    where: { login: ADMIN_LOGIN },
    select: { id: true, role: true, _count: { select: { credentials: true } } },
  });
  if (admin._count.credentials > 0) return null;
  if (admin.role !== 'administrator')
    await db.user.update({ where: { id: admin.id }, data: { role: 'administrator' } });
  return admin.id;
}

/**
 * Administrators someone can have signed in as: those with a credential, revoked ones included (so that revoking
 * every password of the administrator does not let the variable in again). `npm run seed`'s demo author, an
 * administrator without credentials, is none.
 */
const ADMINISTRATORS_WITH_CREDENTIALS = { role: 'administrator', credentials: { some: {} } } as const;

const IGNORED_ADMIN_PASSWORD =
  'CALENDAR_ADMIN_PASSWORD is set but ignored: the database already has an administrator with a password (it only creates the first one). ' +
  'Rotate passwords with the CLI: passwords create <login>, then passwords revoke <id>.';

/**
 * CALENDAR_ADMIN_PASSWORD bootstraps the first administrator: while the database has no administrator with a
 * credential, `admin` becomes one with `password` as an application password. Once there is one the value is
 * ignored, with one warning, so a revoked or rotated password stays so. Never logs the password.
 */
export async function bootstrapAdmin(db: DbTransaction, password: string, logger: Pick<Logger, 'warn'>): Promise<void> {
  if ((await db.user.count({ where: ADMINISTRATORS_WITH_CREDENTIALS })) > 0)
    return void logger.warn(IGNORED_ADMIN_PASSWORD);
  const userId = await claimAdminUser(db);
  if (userId === null) return;
  const secretHash = await hashChosenSecret(normalizeApplicationPassword(password));
  await db.credential.create({
    data: { userId, kind: 'application_password', name: ADMIN_CREDENTIAL_NAME, secretHash },
  });
}
