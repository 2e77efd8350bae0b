import type { DbTransaction } from '../db/client.js';
import type { CredentialKind, Role } from '../db/generated/prisma/enums.js';
import { normalizeApplicationPassword } from './authenticate.js';
import { hashSecret, newSecret, verifySecret } from './secrets.js';

export interface IssuedCredential {
  id: number;
  name: string;
  kind: CredentialKind;
  /** Shown once: an application password, or a bearer token `<id>.<secret>`. Never stored. */
  secret: string;
}

/** Logins users sign in with (HTTP Basic `login:password`): what `createUser` in GraphQL and the CLI accept. */
export const LOGIN_PATTERN = /^[A-Za-z0-9._@-]{1,60}$/;
export const LOGIN_RULE = 'use 1-60 letters, digits, . _ @ or -';

export async function createUser(db: DbTransaction, login: string, role: Role, email = '', displayName = login) {
  return db.user.create({ data: { login, role, email, displayName } });
}

/** Issues a credential for a user; the secret is returned once and only its hash is kept. */
export async function issueCredential(db: DbTransaction, userId: number, kind: CredentialKind, name: string, chosenSecret?: string): Promise<IssuedCredential> {
  const secret = chosenSecret ?? newSecret();
  const stored = kind === 'application_password' ? normalizeApplicationPassword(secret) : secret.replace(/\s+/g, '');
  const credential = await db.credential.create({ data: { userId, kind, name, secretHash: await hashSecret(stored) } });
  const shown = kind === 'bearer_token' ? `${credential.id}.${stored}` : secret;
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

/** The `admin` user, created if missing. Processes starting together may race to create it; the loser reads it. */
async function adminUser(db: DbTransaction) {
  const existing = await db.user.findUnique({ where: { login: ADMIN_LOGIN } });
  if (existing) return existing;
  try {
    return await createUser(db, ADMIN_LOGIN, 'administrator', '', 'Administrator');
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2002') throw error;
    return db.user.findUniqueOrThrow({ where: { login: ADMIN_LOGIN } });
  }
}
const ADMIN_CREDENTIAL_NAME = 'CALENDAR_ADMIN_PASSWORD';

/**
 * For automated deployments: makes sure `admin` exists as an administrator and that `password` is one of its
 * application passwords. Never logs the password.
 */
export async function ensureAdmin(db: DbTransaction, password: string): Promise<void> {
  const user = await adminUser(db);
  if (user.role !== 'administrator') await db.user.update({ where: { id: user.id }, data: { role: 'administrator' } });
  const existing = await db.credential.findMany({ where: { userId: user.id, kind: 'application_password', revokedAt: null, name: ADMIN_CREDENTIAL_NAME } });
  for (const credential of existing) {
    if (await verifySecret(normalizeApplicationPassword(password), credential.secretHash)) return;
  }
  // The value changed: the old one stops working, the new one starts.
  await db.credential.updateMany({ where: { userId: user.id, name: ADMIN_CREDENTIAL_NAME, revokedAt: null }, data: { revokedAt: new Date() } });
  await issueCredential(db, user.id, 'application_password', ADMIN_CREDENTIAL_NAME, password);
}
