import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKey } from '../src/auth/credential-key.js';
import { macOf, newSecret } from '../src/auth/secrets.js';
import { adminData, graphql } from './auth-fixtures.js';
import { unique } from './support/factories.js';
import { basicAuthorization, startServer, TEST_ADMIN_PASSWORD, type TestServer } from './support/server.js';

// Issue 24, row 5: the limits on failed sign-ins were a lockout anyone could cause. Ten wrong passwords for `admin`
// (from anywhere), or ten `Bearer <n>.x` guesses at a token's small sequential ID, had the owner's right password and
// the right token refused with 429 for 15 minutes, renewable at will. Now an attacker's failures never get a right
// issued secret refused anywhere, nor the right CALENDAR_ADMIN_PASSWORD from an address that has not failed for
// `admin` itself, while the guessing stays throttled, and bearer tokens carry an unguessable ID.

// The shipped defaults (test servers otherwise raise the limits), behind a proxy so that a test can be many addresses.
const LIMITS = {
  TRUST_PROXY: 'true',
  SIGNIN_FAILURES_PER_ADDRESS: '30',
  SIGNIN_FAILURES_PER_ADDRESS_AND_LOGIN: '5',
  SIGNIN_FAILURES_PER_LOGIN: '10',
  SIGNIN_WINDOW_MS: '900000',
};
/** A flood lasts FLOOD_MS and is at least FLOOD_REQUESTS requests, CONCURRENCY at a time. */
const FLOOD_MS = 2000;
const FLOOD_REQUESTS = 200;
const CONCURRENCY = 6;
/** Generous for a loaded 2-core machine (a health check answers in milliseconds). */
const RESPONSIVE_WITHIN_MS = 2000;
const OWNER = '198.51.100.7';
const WRONG = 'not the password';
const ADMIN = basicAuthorization('admin', TEST_ADMIN_PASSWORD);

interface Editor {
  login: string;
  token: string;
  tokenRowId: number;
}

async function editorWithToken(server: TestServer): Promise<Editor> {
  const login = unique('editor');
  const { u } = await adminData(
    server,
    `mutation { u: createUser(input: { login: "${login}", role: EDITOR }) { databaseId } }`,
  );
  const { t } = await adminData(
    server,
    `mutation { t: createBearerToken(name: "deploy", userId: ${u.databaseId}) { databaseId secret } }`,
  );
  return { login, token: t.secret, tokenRowId: t.databaseId };
}

/** A bearer token as issued before tokens had a public ID: `<row number>.<secret>` (keyed hash, no lookup). */
async function legacyToken(server: TestServer, userLogin: string): Promise<{ token: string; rowId: number }> {
  const secret = newSecret().replace(/ /g, '');
  const user = await server.app.db.user.findUniqueOrThrow({ where: { login: userLogin } });
  const secretHash = macOf(await credentialKey(server.app.db), secret);
  const row = await server.app.db.credential.create({
    data: { userId: user.id, kind: 'bearer_token', name: 'from before', secretHash },
  });
  return { token: `${row.id}.${secret}`, rowId: row.id };
}

async function send(server: TestServer, authorization: string | null, address: string): Promise<number> {
  const response = await fetch(`${server.url}/wp-json/calendar/events/v1/venues?per_page=1`, {
    headers: { 'x-forwarded-for': address, ...(authorization ? { authorization } : {}) },
  });
  await response.arrayBuffer();
  return response.status;
}

/** Who the request signs in as: the login, or the HTTP status when it does not. */
async function viewer(server: TestServer, authorization: string, address: string): Promise<string | number> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization, 'x-forwarded-for': address },
    body: JSON.stringify({ query: '{ viewer { login } }' }),
  });
  const body = (await response.json()) as any;
  return response.status === 200 ? body.data.viewer.login : response.status;
}

async function timed(url: string, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  expect(response.status, url).toBe(200);
  return performance.now() - started;
}

/** Sends attack(n) for n = 0, 1, 2 … with CONCURRENCY requests in flight; answers the statuses, the n-th at n. */
async function flood(attack: (n: number) => Promise<number>): Promise<number[]> {
  const deadline = performance.now() + FLOOD_MS;
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < FLOOD_REQUESTS || performance.now() < deadline) {
      const n = next++;
      statuses[n] = await attack(n);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return statuses;
}

/** Runs `probe` over and over until `attack` is over, then once more; answers how many rounds ran. */
async function probeDuring(attack: Promise<unknown>, probe: (round: number) => Promise<void>): Promise<number> {
  let over = false;
  const end = () => (over = true);
  attack.then(end, end);
  let rounds = 0;
  while (!over) await probe(rounds++);
  await probe(rounds++);
  return rounds;
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe('an attacker at one address (24.5)', () => {
  let server: TestServer;
  let editor: Editor;
  let legacy: { token: string; rowId: number };
  beforeAll(async () => {
    server = await startServer(LIMITS);
    editor = await editorWithToken(server);
    legacy = await legacyToken(server, editor.login);
  });
  afterAll(() => server?.close());

  it('flooding wrong passwords for admin and `Bearer <n>.x` guesses is throttled, and refuses neither the owner’s right password nor any right token; /healthz and reads stay fast', {
    timeout: 60_000,
  }, async () => {
    const attacker = '203.0.113.66';
    const ids = Math.max(editor.tokenRowId, legacy.rowId) + 3;
    const attack = flood((n) =>
      send(server, n % 2 ? `Bearer ${n % ids}.x${n}` : basicAuthorization('admin', `${WRONG} ${n}`), attacker),
    );
    const slowest = { health: 0, read: 0 };
    const rounds = await probeDuring(attack, async () => {
      expect(await viewer(server, ADMIN, OWNER)).toBe('admin');
      expect(await viewer(server, `Bearer ${editor.token}`, OWNER)).toBe(editor.login);
      // A right issued secret is proven before any limit is looked at: even from the attacker's own address.
      expect(await viewer(server, `Bearer ${editor.token}`, attacker)).toBe(editor.login);
      expect(await viewer(server, `Bearer ${legacy.token}`, attacker)).toBe(editor.login);
      slowest.health = Math.max(slowest.health, await timed(`${server.url}/healthz`));
      slowest.read = Math.max(
        slowest.read,
        await timed(`${server.url}/wp-json/calendar/events/v1/events?per_page=5`, { 'x-forwarded-for': '192.0.2.200' }),
      );
    });
    const statuses = await attack;

    expect(rounds).toBeGreaterThanOrEqual(2);
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    // Checked at most SIGNIN_FAILURES_PER_ADDRESS times (each check of a wrong admin password is a scrypt check).
    expect(count(statuses, 401)).toBeLessThanOrEqual(30);
    expect(count(statuses, 429)).toBe(statuses.length - count(statuses, 401));
    expect(slowest.health).toBeLessThan(RESPONSIVE_WITHIN_MS);
    expect(slowest.read).toBeLessThan(RESPONSIVE_WITHIN_MS);
    // The chosen password is not checked from the address that failed for it: right or wrong, the same 429, so the
    // attacker learns nothing from a refused guess (docs/authentication.md, "Limits on failed sign-ins").
    expect(await viewer(server, ADMIN, attacker)).toBe(429);
    expect(await viewer(server, basicAuthorization('admin', WRONG), attacker)).toBe(429);
  });

  it('a burst of parallel guesses gets no more checks than the limit for the address and login', async () => {
    const burst = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        send(server, basicAuthorization(editor.login, `${WRONG} ${n}`), '203.0.113.77'),
      ),
    );
    expect(count(burst, 401)).toBeLessThanOrEqual(5);
    expect(count(burst, 429)).toBe(40 - count(burst, 401));
  });
});

describe('an attacker at many addresses (24.5)', () => {
  let server: TestServer;
  let editor: Editor;
  beforeAll(async () => {
    server = await startServer(LIMITS);
    editor = await editorWithToken(server);
  });
  afterAll(() => server?.close());

  it('gets one check per address once admin is under attack, and the owner signs in throughout, from any address that has not failed', {
    timeout: 60_000,
  }, async () => {
    const addresses = 12;
    const attackerAt = (n: number) => `203.0.113.${n % addresses}`;
    const guessesAToken = (n: number) => n % 4 === 3;
    const attack = flood((n) =>
      send(
        server,
        guessesAToken(n) ? `Bearer ${n % 20}.x${n}` : basicAuthorization('admin', `${WRONG} ${n}`),
        attackerAt(n),
      ),
    );
    const slowest = { health: 0, read: 0 };
    const rounds = await probeDuring(attack, async (round) => {
      expect(await viewer(server, ADMIN, OWNER)).toBe('admin');
      expect(await viewer(server, ADMIN, `198.51.100.${100 + round}`)).toBe('admin');
      expect(await viewer(server, `Bearer ${editor.token}`, attackerAt(round))).toBe(editor.login);
      slowest.health = Math.max(slowest.health, await timed(`${server.url}/healthz`));
      slowest.read = Math.max(
        slowest.read,
        await timed(`${server.url}/wp-json/calendar/events/v1/events?per_page=5`, { 'x-forwarded-for': '192.0.2.200' }),
      );
    });
    const statuses = await attack;

    expect(rounds).toBeGreaterThanOrEqual(2);
    expect(count(statuses, 401) + count(statuses, 429)).toBe(statuses.length);
    // SIGNIN_FAILURES_PER_LOGIN failures anywhere, then one more check per address at most: no more scrypt checks.
    expect(
      count(
        statuses.filter((_, n) => !guessesAToken(n)),
        401,
      ),
    ).toBeLessThanOrEqual(10 + addresses);
    expect(count(statuses, 401)).toBeLessThanOrEqual(30 * addresses);
    expect(slowest.health).toBeLessThan(RESPONSIVE_WITHIN_MS);
    expect(slowest.read).toBeLessThan(RESPONSIVE_WITHIN_MS);
  });
});

describe('bearer tokens (24.5)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(LIMITS);
  });
  afterAll(() => server?.close());

  it('start with an unguessable public ID, not their row’s number, by which alone they are found', async () => {
    const editor = await editorWithToken(server);
    const other = await editorWithToken(server);
    for (const { token, tokenRowId } of [editor, other]) {
      expect(token).toMatch(/^[A-Za-z0-9]{16}\.[A-Za-z0-9]{24}$/);
      expect(token.split('.')[0]).not.toBe(String(tokenRowId));
    }
    expect(editor.token.split('.')[0]).not.toBe(other.token.split('.')[0]);
    expect(await viewer(server, `Bearer ${editor.token}`, OWNER)).toBe(editor.login);
    expect(await viewer(server, `Bearer ${editor.tokenRowId}.${editor.token.split('.')[1]}`, OWNER)).toBe(401);
  });

  it('issued before, as `<row number>.<secret>`, keep working', async () => {
    const editor = await editorWithToken(server);
    const legacy = await legacyToken(server, editor.login);
    expect(await viewer(server, `Bearer ${legacy.token}`, OWNER)).toBe(editor.login);
    expect(await viewer(server, `Bearer ${legacy.rowId}.${newSecret().replace(/ /g, '')}`, OWNER)).toBe(401);
  });

  it('are revoked by their credential ID, as before', async () => {
    const editor = await editorWithToken(server);
    const revoked = await graphql(
      server,
      `mutation { r: revokeCredential(id: ${editor.tokenRowId}) { revokedAt } }`,
      {},
      ADMIN,
    );
    expect(revoked.body.data.r.revokedAt).toEqual(expect.any(String));
    expect(await viewer(server, `Bearer ${editor.token}`, OWNER)).toBe(401);
  });
});
