import { afterEach, describe, expect, it } from 'vitest';
import { adminData } from './auth-fixtures.js';
import { unique } from './support/factories.js';
import { call } from './support/rest.js';
import { basicAuthorization, startServer, TEST_ADMIN_PASSWORD, type TestServer } from './support/server.js';

// The limits on failed sign-ins (docs/authentication.md, "Limits on failed sign-ins"). A right issued secret (application password,
// bearer token) is proven by one HMAC before any limit is looked at, and always signs in. Anything else (a wrong
// secret, the chosen CALENDAR_ADMIN_PASSWORD) is checked only within the limits: per address, per address and login,
// and, once a login has had too many failures from everywhere, one failure per address for it. Past them: 429 with
// Retry-After (REST rest_too_many_requests, GraphQL RATE_LIMITED), right or wrong alike, until the window ends.

const WINDOW_MS = 3000;
const LIMITS = {
  SIGNIN_FAILURES_PER_ADDRESS_AND_LOGIN: '3',
  SIGNIN_FAILURES_PER_LOGIN: '6',
  SIGNIN_FAILURES_PER_ADDRESS: '8',
  SIGNIN_WINDOW_MS: String(WINDOW_MS),
};
const WRONG = 'abcd efgh ijkl mnop qrst uvwx';
const ADMIN = basicAuthorization('admin', TEST_ADMIN_PASSWORD);
const WRONG_ADMIN = basicAuthorization('admin', WRONG);

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function serverWith(env: Record<string, string>): Promise<TestServer> {
  const server = await startServer({ ...LIMITS, ...env });
  servers.push(server);
  return server;
}
const behindProxy = () => serverWith({ TRUST_PROXY: 'true' });

/** A user with an issued application password. */
async function userWithPassword(server: TestServer): Promise<{ login: string; authorization: string }> {
  const login = unique('limited');
  await adminData(server, `mutation { u: createUser(input: { login: "${login}", role: AUTHOR }) { login } }`);
  const { id } = await server.app.db.user.findUniqueOrThrow({ where: { login } });
  const issued = await adminData(
    server,
    `mutation { p: createApplicationPassword(name: "x", userId: ${id}) { secret } }`,
  );
  return { login, authorization: basicAuthorization(login, issued.p.secret) };
}

/** A REST read as `authorization`, from `address` (X-Forwarded-For, which only a server behind a proxy believes). */
const restRead = (server: TestServer, authorization: string, address: string) =>
  call(server, 'GET', '/venues', { headers: { authorization, 'x-forwarded-for': address } });
const statusOf = async (server: TestServer, authorization: string, address: string) =>
  (await restRead(server, authorization, address)).status;

async function graphqlRead(server: TestServer, authorization: string, address: string) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization, 'x-forwarded-for': address },
    body: JSON.stringify({ query: '{ viewer { login } }' }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as any,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('failed sign-ins for one login from one address', () => {
  it('past the limit get 429 with Retry-After there for that login, the right password alike; other addresses are checked at once; after the window, that one too', async () => {
    const server = await behindProxy();
    const user = await userWithPassword(server);
    for (let n = 0; n < 3; n++) expect(await statusOf(server, WRONG_ADMIN, '198.51.100.1')).toBe(401);

    const refused = await restRead(server, WRONG_ADMIN, '198.51.100.1');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      code: 'rest_too_many_requests',
      message: expect.stringMatching(/^Too many failed sign-in attempts\. Try again in [1-3] seconds\.$/),
      data: { status: 429 },
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);

    // The right password is not checked there either: the same answer as a wrong one, so a refused guess says nothing.
    const graphql = await graphqlRead(server, ADMIN, '198.51.100.1');
    expect(graphql.status).toBe(429);
    expect(Number(graphql.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(graphql.body.errors).toEqual([
      {
        message: expect.stringMatching(/^Too many failed sign-in attempts/),
        extensions: { code: 'RATE_LIMITED', retryAfter: expect.any(Number) },
      },
    ]);

    // From another address the login's password is checked at once; from that one, a right issued password signs in.
    expect((await graphqlRead(server, ADMIN, '198.51.100.2')).body.data.viewer.login).toBe('admin');
    expect((await graphqlRead(server, user.authorization, '198.51.100.1')).body.data.viewer.login).toBe(user.login);
    expect((await call(server, 'GET', '/venues', { headers: { 'x-forwarded-for': '198.51.100.1' } })).status).toBe(200);

    await sleep(WINDOW_MS + 100);
    expect((await graphqlRead(server, ADMIN, '198.51.100.1')).body.data.viewer.login).toBe('admin');
  });
});

describe('a login under attack from many addresses', () => {
  it('gives each address one failure for it: one that failed gets 429, one that has not is still checked and signs in', async () => {
    const server = await behindProxy();
    for (let n = 0; n < 6; n++) expect(await statusOf(server, WRONG_ADMIN, `203.0.113.${n}`)).toBe(401);

    expect(await statusOf(server, WRONG_ADMIN, '203.0.113.0')).toBe(429);
    expect(await statusOf(server, ADMIN, '203.0.113.0')).toBe(429);
    expect(await statusOf(server, WRONG_ADMIN, '203.0.113.50')).toBe(401);
    expect(await statusOf(server, WRONG_ADMIN, '203.0.113.50')).toBe(429);
    expect((await graphqlRead(server, ADMIN, '198.51.100.1')).body.data.viewer.login).toBe('admin');
    expect((await graphqlRead(server, ADMIN, '198.51.100.1')).body.data.viewer.login).toBe('admin');
  });
});

describe('failed sign-ins from one address', () => {
  it('past the limit get 429 for any login’s password checks from it, a right issued password excepted; other addresses are checked at once', async () => {
    const server = await behindProxy();
    const user = await userWithPassword(server);
    const flooding = '203.0.113.7';
    for (let n = 0; n < 8; n++)
      expect(await statusOf(server, basicAuthorization(unique('nobody'), WRONG), flooding)).toBe(401);
    expect(await statusOf(server, basicAuthorization(unique('nobody'), WRONG), flooding)).toBe(429);
    expect(await statusOf(server, ADMIN, flooding)).toBe(429);
    expect(await statusOf(server, `Bearer 1.${WRONG}`, flooding)).toBe(429);
    expect(await statusOf(server, user.authorization, flooding)).toBe(200);
    expect(await statusOf(server, ADMIN, '203.0.113.8')).toBe(200);
  });

  it('count an IPv6 address by its /64', async () => {
    const server = await behindProxy();
    for (let n = 1; n <= 3; n++) expect(await statusOf(server, WRONG_ADMIN, `2001:db8:1:2::${n}`)).toBe(401);
    expect(await statusOf(server, WRONG_ADMIN, '2001:db8:1:2:ffff::9')).toBe(429);
    expect(await statusOf(server, ADMIN, '2001:db8:1:3::1')).toBe(200);
  });

  it('count the socket’s address, not X-Forwarded-For, unless TRUST_PROXY is on', async () => {
    const server = await serverWith({});
    const user = await userWithPassword(server);
    for (let n = 0; n < 8; n++)
      expect(await statusOf(server, basicAuthorization(unique('nobody'), WRONG), `203.0.113.${n}`)).toBe(401);
    const spoofed = await restRead(server, ADMIN, '203.0.113.99');
    expect(spoofed.status).toBe(429);
    expect(Number(spoofed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await statusOf(server, user.authorization, '203.0.113.99')).toBe(200);
    await sleep(WINDOW_MS + 100);
    expect(await statusOf(server, ADMIN, '203.0.113.99')).toBe(200);
  });
});
