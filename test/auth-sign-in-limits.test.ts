import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminData } from './auth-fixtures.js';
import { unique } from './support/factories.js';
import { call } from './support/rest.js';
import { basicAuthorization, startServer, type TestServer } from './support/server.js';

// Failed sign-ins are limited per client address and per login: past the limit, REST answers 429
// rest_too_many_requests and GraphQL 429 RATE_LIMITED, with Retry-After, until the window ends. Other logins and
// other addresses are not held up.

const WINDOW_MS = 3000;
const LIMITS = { SIGNIN_FAILURES_PER_LOGIN: '3', SIGNIN_FAILURES_PER_ADDRESS: '6', SIGNIN_WINDOW_MS: String(WINDOW_MS) };
const WRONG = 'abcd efgh ijkl mnop qrst uvwx';

let behindProxy: TestServer;
let direct: TestServer;

beforeAll(async () => {
  [behindProxy, direct] = await Promise.all([startServer({ ...LIMITS, TRUST_PROXY: 'true' }), startServer(LIMITS)]);
});
afterAll(async () => {
  await behindProxy?.close();
  await direct?.close();
});

async function userWithPassword(server: TestServer): Promise<{ login: string; authorization: string }> {
  const login = unique('limited');
  await adminData(server, `mutation { u: createUser(input: { login: "${login}", role: AUTHOR }) { login } }`);
  const { id } = await server.app.db.user.findUniqueOrThrow({ where: { login } });
  const issued = await adminData(server, `mutation { p: createApplicationPassword(name: "x", userId: ${id}) { secret } }`);
  return { login, authorization: basicAuthorization(login, issued.p.secret) };
}

/** A REST read as `authorization`, from `address` (X-Forwarded-For, which only a server behind a proxy believes). */
const restRead = (server: TestServer, authorization: string, address = '192.0.2.1') =>
  call(server, 'GET', '/venues', { headers: { authorization, 'x-forwarded-for': address } });

async function graphqlRead(server: TestServer, authorization: string, address = '192.0.2.1') {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization, 'x-forwarded-for': address },
    body: JSON.stringify({ query: '{ viewer { login } }' }),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as any };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('failed sign-ins for one login', () => {
  it('past the limit get 429 with Retry-After on REST and GraphQL, even with the right password, until the window ends', async () => {
    const victim = await userWithPassword(behindProxy);
    const other = await userWithPassword(behindProxy);
    const wrong = basicAuthorization(victim.login, WRONG);
    // From different addresses, so that only the login's limit applies.
    for (let n = 0; n < 3; n++) expect((await restRead(behindProxy, wrong, `198.51.100.${n}`)).status).toBe(401);

    const refused = await restRead(behindProxy, wrong, '198.51.100.9');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: 'rest_too_many_requests', message: expect.stringMatching(/^Too many failed sign-in attempts\. Try again in [1-3] seconds\.$/), data: { status: 429 } });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);

    const graphql = await graphqlRead(behindProxy, victim.authorization, '198.51.100.10');
    expect(graphql.status).toBe(429);
    expect(Number(graphql.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(graphql.body.errors).toEqual([{ message: expect.stringMatching(/^Too many failed sign-in attempts/), extensions: { code: 'RATE_LIMITED', retryAfter: expect.any(Number) } }]);

    // Another user's right password, from the same address, works at once; so does an anonymous read.
    expect((await graphqlRead(behindProxy, other.authorization, '198.51.100.9')).body.data.viewer.login).toBe(other.login);
    expect((await call(behindProxy, 'GET', '/venues', { headers: { 'x-forwarded-for': '198.51.100.9' } })).status).toBe(200);

    await sleep(WINDOW_MS + 100);
    expect((await graphqlRead(behindProxy, victim.authorization, '198.51.100.9')).body.data.viewer.login).toBe(victim.login);
  });
});

describe('failed sign-ins from one address', () => {
  it('past the limit get 429 for any login from it; other addresses sign in at once', async () => {
    const user = await userWithPassword(behindProxy);
    const flooding = '203.0.113.7';
    for (let n = 0; n < 6; n++) expect((await restRead(behindProxy, basicAuthorization(unique('nobody'), WRONG), flooding)).status).toBe(401);
    expect((await restRead(behindProxy, basicAuthorization(unique('nobody'), WRONG), flooding)).status).toBe(429);
    expect((await restRead(behindProxy, user.authorization, flooding)).status).toBe(429);
    expect((await restRead(behindProxy, user.authorization, '203.0.113.8')).status).toBe(200);
  });

  it('count the socket’s address, not X-Forwarded-For, unless TRUST_PROXY is on', async () => {
    const user = await userWithPassword(direct);
    for (let n = 0; n < 6; n++) expect((await restRead(direct, basicAuthorization(unique('nobody'), WRONG), `203.0.113.${n}`)).status).toBe(401);
    const spoofed = await restRead(direct, user.authorization, '203.0.113.99');
    expect(spoofed.status).toBe(429);
    expect(Number(spoofed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await sleep(WINDOW_MS + 100);
    expect((await restRead(direct, user.authorization)).status).toBe(200);
  });
});
