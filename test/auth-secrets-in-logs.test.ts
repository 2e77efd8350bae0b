// The server as it runs in production (`node dist/cli.js serve`, a child process) never writes a secret to its output
// and never answers with one, except in the answer that creates it: not CALENDAR_ADMIN_PASSWORD, not application
// passwords or bearer tokens, not wrong passwords clients send, in successful and failed requests alike.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { startInstance, stop, type Instance } from './support/processes.js';

const API = '/wp-json/calendar/events/v1';

const ADMIN_PASSWORD = `admin-pw-${randomBytes(12).toString('hex')}`;
const WRONG_PASSWORD = `wrong-pw-${randomBytes(12).toString('hex')}`;

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

let dir: string;
let database: TestDatabase;
let server: Instance;
const output = () => server.output.join('');

/** Every secret in play, and every form of it a log line could carry. */
const secrets = new Set<string>();
function addSecret(login: string, secret: string): void {
  for (const form of [secret, secret.replace(/\s+/g, '')]) {
    secrets.add(form);
    secrets.add(Buffer.from(`${login}:${form}`).toString('base64'));
    secrets.add(Buffer.from(form).toString('base64'));
  }
  // A bearer token's secret part alone.
  const tokenSecret = /^[A-Za-z0-9]+\.(.+)$/.exec(secret)?.[1];
  if (tokenSecret) secrets.add(tokenSecret);
}

/** Everything the server answered, except the answers that create credentials. */
const answers: string[] = [];

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function request(
  path: string,
  init: RequestInit & { authorization?: string } = {},
  { creates = false } = {},
): Promise<Answer> {
  const { authorization, headers, ...rest } = init;
  const response = await fetch(`${server.base}${path}`, {
    ...rest,
    headers: { ...(headers as Record<string, string>), ...(authorization ? { authorization } : {}) },
  });
  const text = await response.text();
  if (!creates) answers.push(`${response.status} ${JSON.stringify([...response.headers])}\n${text}`);
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body, text };
}

const graphql = (query: string, authorization?: string, variables: Record<string, unknown> = {}, options = {}) =>
  request(
    '/graphql',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
      authorization,
    },
    options,
  );

const rest = (method: string, route: string, authorization?: string, body?: unknown) =>
  request(`${API}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    authorization,
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-logs-'));
  database = await freshDatabase(dir);
  addSecret('admin', ADMIN_PASSWORD);
  addSecret('admin', WRONG_PASSWORD);
  // development and LOG_LEVEL=trace: GraphQL Yoga, the REST layer and the logger at their most talkative.
  // More failures for edith from this one address than the limits on failed sign-ins check by default: each is a 401 here.
  const limits = { SIGNIN_FAILURES_PER_ADDRESS_AND_LOGIN: '100' };
  server = await startInstance(database.url, {
    NODE_ENV: 'development',
    LOG_LEVEL: 'trace',
    CALENDAR_ADMIN_PASSWORD: ADMIN_PASSWORD,
    ...limits,
  });
}, 90_000);

afterAll(async () => {
  if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('secrets stay out of logs and answers', () => {
  it('serves requests with every kind of credential, right and wrong, then stops on SIGTERM', {
    timeout: 120_000,
  }, async () => {
    const admin = basic('admin', ADMIN_PASSWORD);

    // The administrator from CALENDAR_ADMIN_PASSWORD creates users and their credentials over GraphQL.
    const created = await graphql(
      `mutation {
        editor: createUser(input: { login: "edith", role: EDITOR }) { id: databaseId }
        contributor: createUser(input: { login: "carl", role: CONTRIBUTOR }) { id: databaseId }
      }`,
      admin,
    );
    expect(created.body.errors).toBeUndefined();
    const issue = async (field: 'createApplicationPassword' | 'createBearerToken', userId: number, login: string) => {
      const answer = await graphql(
        `mutation($userId: Int) { issued: ${field}(name: "logs test", userId: $userId) { id secret } }`,
        admin,
        { userId },
        { creates: true },
      );
      expect(answer.body.errors).toBeUndefined();
      addSecret(login, answer.body.data.issued.secret);
      return answer.body.data.issued as { id: number; secret: string };
    };
    const editorPassword = await issue('createApplicationPassword', created.body.data.editor.id, 'edith');
    const editorToken = await issue('createBearerToken', created.body.data.editor.id, 'edith');
    const contributorToken = await issue('createBearerToken', created.body.data.contributor.id, 'carl');
    const revokedPassword = await issue('createApplicationPassword', created.body.data.editor.id, 'edith');

    const editor = basic('edith', editorPassword.secret);
    const bearer = `Bearer ${editorToken.secret}`;
    const contributor = `Bearer ${contributorToken.secret}`;

    // Successes, with each kind of credential.
    expect(
      (await graphql('{ viewer { login credentials { nodes { id name lastUsedAt } } } }', admin)).body.data.viewer
        .login,
    ).toBe('admin');
    expect((await rest('POST', '/categories', editor, { name: 'Jazz' })).status).toBe(201);
    expect((await rest('POST', '/tags', bearer, { name: 'Outdoor' })).status).toBe(201);
    expect(
      (
        await graphql(
          '{ users { nodes { login credentials { nodes { id name kind lastUsedAt revokedAt } } } } }',
          admin,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await graphql('mutation($id: ID!) { revokeCredential(id: $id) { id revokedAt } }', admin, {
          id: revokedPassword.id,
        })
      ).status,
    ).toBe(200);

    // 401: wrong password, unknown user, revoked password, a token with a wrong secret, a token sent as Basic,
    // the admin password in an unknown scheme, a malformed header.
    const unauthenticated = [
      basic('admin', WRONG_PASSWORD),
      basic('nobody', ADMIN_PASSWORD),
      basic('edith', revokedPassword.secret),
      `Bearer ${editorToken.secret.split('.')[0]}.${WRONG_PASSWORD}`,
      basic('edith', editorToken.secret),
      `Token ${ADMIN_PASSWORD}`,
      `Basic ${ADMIN_PASSWORD}`,
    ];
    for (const authorization of unauthenticated) {
      expect((await rest('GET', '/events', authorization)).status, authorization).toBe(401);
      expect((await graphql('{ viewer { login } }', authorization)).status, authorization).toBe(401);
      expect((await rest('POST', '/categories', authorization, { name: 'Nope' })).status, authorization).toBe(401);
    }

    // 403: signed in without the capability.
    expect((await rest('POST', '/categories', contributor, { name: 'Folk' })).status).toBe(403);
    const forbidden = await graphql('{ users { nodes { login } } }', contributor);
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(
      (await graphql('mutation { createApplicationPassword(name: "x", userId: 1) { secret } }', contributor)).body
        .errors[0].extensions.code,
    ).toBe('FORBIDDEN');

    // 400: bad input, malformed JSON, a query that does not parse, an unknown field.
    expect((await rest('POST', '/categories', editor, { name: '' })).status).toBe(400);
    expect((await rest('POST', '/categories', editor, '{"name": ')).status).toBe(400);
    expect((await rest('GET', '/events?per_page=-1', bearer)).status).toBe(400);
    expect(
      (await graphql('mutation { createUser(input: { login: "b b", role: EDITOR }) { id } }', admin)).body.errors[0]
        .extensions.code,
    ).toBe('BAD_USER_INPUT');
    expect((await graphql('{ viewer { login', bearer)).body.errors[0].message).toMatch(/Syntax Error/);
    expect((await graphql('{ viewer { password } }', admin)).body.errors[0].message).toMatch(
      /Cannot query field "password"/,
    );
    expect(
      (
        await request('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"query": ',
          authorization: admin,
        })
      ).status,
    ).toBeGreaterThanOrEqual(400);
    // Unknown records, and an ID past what GraphQL's Int takes (whatever the status, the server may log the error).
    expect((await rest('GET', '/events/123456', admin)).status).toBe(404);
    expect((await rest('GET', '/events/9999999999999', admin)).status).toBeGreaterThanOrEqual(400);
    expect((await rest('DELETE', '/categories/9999999999999', editor)).status).toBeGreaterThanOrEqual(400);

    // The admin credential is still good: nothing above locked it or changed it.
    expect((await graphql('{ viewer { login } }', admin)).body.data.viewer.login).toBe('admin');

    expect(await stop(server)).toBe(0);
    expect(output()).toContain('SIGTERM received');

    // What the run printed and answered: enough to be sure the checks below looked at something.
    expect(output()).toContain('Calendar events service on');
    expect(answers.length).toBeGreaterThan(40);
    // One log line for every request answered.
    expect(
      output()
        .split('\n')
        .filter((line) => line.includes('"requestId"')).length,
    ).toBeGreaterThanOrEqual(answers.length);
    expect(secrets.size).toBeGreaterThan(20);
    for (const secret of secrets) {
      expect(output().includes(secret), `the server's output contains a secret (${secret.slice(0, 4)}…)`).toBe(false);
      for (const answer of answers)
        expect(answer.includes(secret), `an answer contains a secret (${secret.slice(0, 4)}…):\n${answer}`).toBe(false);
    }
    // Nor the stored hashes.
    expect(output()).not.toContain('scrypt$');
    for (const answer of answers) expect(answer).not.toContain('scrypt$');
  });
});
