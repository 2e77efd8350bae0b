import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminData, graphql } from './auth-fixtures.js';
import { unique } from './support/factories.js';
import { ADMIN_AUTHORIZATION, basicAuthorization, startServer, type TestServer } from './support/server.js';

// How secrets are kept: the service's own (application passwords, bearer tokens) as HMAC-SHA-256 under the server
// key, found by a public part (a password's first 8 characters, a token's random ID); rows from before that (scrypt,
// no public part) keep working and are rewritten to the keyed form on their next use; CALENDAR_ADMIN_PASSWORD, chosen
// by a person, stays scrypt.

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

/** The hash the service stored before the keyed form: scrypt N=2^14, r=8, p=1, 16-byte salt, 32-byte key. */
function oldScryptHash(secret: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(secret, salt, 32, { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', 2 ** 14, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A secret as the service issued them before: 24 letters and digits, shown in groups of four. */
const oldStyleSecret = () => randomBytes(18).toString('base64url').replace(/[-_]/g, 'x').match(/.{4}/g)!.join(' ');

async function newUser(role = 'author'): Promise<{ id: number; login: string }> {
  const login = unique('hash');
  await adminData(
    server,
    `mutation { u: createUser(input: { login: "${login}", role: ${role.toUpperCase()} }) { login } }`,
  );
  return server.app.db.user.findUniqueOrThrow({ where: { login }, select: { id: true, login: true } });
}

/** A credential row written as the previous code wrote it: a scrypt hash and nothing else. */
async function oldRow(userId: number, kind: 'application_password' | 'bearer_token', secret: string) {
  return server.app.db.credential.create({
    data: { userId, kind, name: 'from before', secretHash: oldScryptHash(secret.replace(/\s+/g, '')) },
  });
}

const storedRow = (id: number) => server.app.db.credential.findUniqueOrThrow({ where: { id } });
const viewerLogin = async (authorization: string) => {
  const result = await graphql(server, '{ viewer { login } }', {}, authorization);
  return result.status === 200 ? result.body.data.viewer.login : result.status;
};

describe('issued secrets', () => {
  it('are stored as a keyed hash with a public lookup part: the password’s first 8 characters, the token’s ID', async () => {
    const user = await newUser();
    const issued = await adminData(
      server,
      `mutation { p: createApplicationPassword(name: "x", userId: ${user.id}) { secret } t: createBearerToken(name: "x", userId: ${user.id}) { secret } }`,
    );
    const password = issued.p.secret.replace(/ /g, '');
    const rows = await server.app.db.credential.findMany({ where: { userId: user.id }, orderBy: { id: 'asc' } });
    expect(rows.map((row) => [row.kind, row.lookup])).toEqual([
      ['application_password', password.slice(0, 8)],
      ['bearer_token', issued.t.secret.split('.')[0]],
    ]);
    for (const row of rows) expect(row.secretHash).toMatch(/^hmac-sha256\$[\w-]{43}$/);
    expect(await viewerLogin(basicAuthorization(user.login, issued.p.secret))).toBe(user.login);
    expect(await viewerLogin(`Bearer ${issued.t.secret}`)).toBe(user.login);
  });

  it('sign in only the user they were issued to', async () => {
    const [owner, other] = [await newUser(), await newUser()];
    const issued = await adminData(
      server,
      `mutation { p: createApplicationPassword(name: "x", userId: ${owner.id}) { secret } }`,
    );
    expect(await viewerLogin(basicAuthorization(other.login, issued.p.secret))).toBe(401);
    expect(await viewerLogin(basicAuthorization(owner.login, issued.p.secret))).toBe(owner.login);
  });

  it('with the right public part but a wrong rest are refused', async () => {
    const user = await newUser();
    const issued = await adminData(
      server,
      `mutation { p: createApplicationPassword(name: "x", userId: ${user.id}) { secret } }`,
    );
    const wrongRest = issued.p.secret.replace(/ /g, '').slice(0, 8) + 'x'.repeat(16);
    expect(await viewerLogin(basicAuthorization(user.login, wrongRest))).toBe(401);
  });
});

describe('rows stored before the keyed form (scrypt)', () => {
  it('an application password keeps working, with or without spaces, and is rewritten to the keyed form on first use', async () => {
    const user = await newUser();
    const secret = oldStyleSecret();
    const row = await oldRow(user.id, 'application_password', secret);
    expect(row.lookup).toBeNull();
    expect(await viewerLogin(basicAuthorization(user.login, 'abcd efgh ijkl mnop qrst uvwx'))).toBe(401);
    expect((await storedRow(row.id)).secretHash).toBe(row.secretHash);

    expect(await viewerLogin(basicAuthorization(user.login, secret))).toBe(user.login);
    const rewritten = await storedRow(row.id);
    expect(rewritten.secretHash).toMatch(/^hmac-sha256\$[\w-]{43}$/);
    expect(rewritten.lookup).toBe(secret.replace(/ /g, '').slice(0, 8));
    expect(rewritten.lastUsedAt).not.toBeNull();

    expect(await viewerLogin(basicAuthorization(user.login, secret.replace(/ /g, '')))).toBe(user.login);
    expect(await viewerLogin(basicAuthorization(user.login, secret))).toBe(user.login);
    expect(await viewerLogin(basicAuthorization(user.login, oldStyleSecret()))).toBe(401);
  });

  it('every one of a user’s several old passwords keeps working (none is locked out)', async () => {
    const user = await newUser();
    const secrets = [oldStyleSecret(), oldStyleSecret(), oldStyleSecret()];
    const rows = [];
    for (const secret of secrets) rows.push(await oldRow(user.id, 'application_password', secret));
    for (const secret of [...secrets].reverse())
      expect(await viewerLogin(basicAuthorization(user.login, secret))).toBe(user.login);
    for (const row of rows) expect((await storedRow(row.id)).secretHash).toMatch(/^hmac-sha256\$/);
  });

  it('a bearer token keeps working and is rewritten to the keyed form on first use', async () => {
    const user = await newUser();
    const secret = oldStyleSecret().replace(/ /g, '');
    const row = await oldRow(user.id, 'bearer_token', secret);
    expect(await viewerLogin(`Bearer ${row.id}.${oldStyleSecret().replace(/ /g, '')}`)).toBe(401);
    expect(await viewerLogin(`Bearer ${row.id}.${secret}`)).toBe(user.login);
    const rewritten = await storedRow(row.id);
    expect(rewritten.secretHash).toMatch(/^hmac-sha256\$[\w-]{43}$/);
    expect(rewritten.lookup).toBeNull();
    expect(await viewerLogin(`Bearer ${row.id}.${secret}`)).toBe(user.login);
  });

  it('a revoked old row stays refused and is not rewritten', async () => {
    const user = await newUser();
    const secret = oldStyleSecret();
    const row = await oldRow(user.id, 'application_password', secret);
    await server.app.db.credential.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
    expect(await viewerLogin(basicAuthorization(user.login, secret))).toBe(401);
    expect((await storedRow(row.id)).secretHash).toBe(row.secretHash);
  });
});

describe('CALENDAR_ADMIN_PASSWORD, a password a person chose', () => {
  it('stays a scrypt hash after use', async () => {
    expect(await viewerLogin(ADMIN_AUTHORIZATION)).toBe('admin');
    const rows = await server.app.db.credential.findMany({ where: { name: 'CALENDAR_ADMIN_PASSWORD' } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secretHash).toMatch(/^scrypt\$/);
    expect(rows[0]!.lookup).toBeNull();
    expect(rows[0]!.lastUsedAt).not.toBeNull();
  });
});
