import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminData, graphql, type HttpGraphQL } from './auth-fixtures.js';
import { unique } from './support/factories.js';
import { call, type RestResponse } from './support/rest.js';
import { ADMIN_AUTHORIZATION, basicAuthorization, startServer, type TestServer } from './support/server.js';

// Credentials over HTTP: application passwords (HTTP Basic `login:password`, spaces ignored) and bearer tokens
// (`Bearer <id>.<secret>`). Anything sent that does not verify (revoked, malformed, unknown user, wrong password) is
// REST 401 incorrect_password and GraphQL HTTP 401 UNAUTHENTICATED, the same answer after the same work, even on
// routes anonymous readers may use. A secret is shown once, when created, and never again.

let server: TestServer;
let editor: { id: number; login: string; password: string; authorization: string };
let author: { id: number; login: string; password: string; authorization: string };
/** Every response received, searched for secrets. */
const seen: string[] = [];
/** Secrets created over HTTP here (their creating response is in `seen`). */
const issued: string[] = [];

const INCORRECT = { code: 'incorrect_password', message: 'The credentials sent are not valid.', data: { status: 401 } };

beforeAll(async () => {
  server = await startServer();
  const users = await adminData(
    server,
    `mutation { editor: createUser(input: { login: "cred-editor", role: EDITOR }) { id: databaseId login } author: createUser(input: { login: "cred-author", role: AUTHOR }) { id: databaseId login } }`,
  );
  const secrets = await adminData(
    server,
    `mutation { editor: createApplicationPassword(name: "laptop", userId: ${users.editor.id}) { secret } author: createApplicationPassword(name: "laptop", userId: ${users.author.id}) { secret } }`,
  );
  const person = (key: 'editor' | 'author') => ({
    id: users[key].id,
    login: users[key].login,
    password: secrets[key].secret,
    authorization: basicAuthorization(users[key].login, secrets[key].secret),
  });
  editor = person('editor');
  author = person('author');
});
afterAll(() => server?.close());

async function gql(
  query: string,
  authorization: string | null,
  variables: Record<string, unknown> = {},
): Promise<HttpGraphQL> {
  const result = await graphql(server, query, variables, authorization);
  seen.push(result.text);
  return result;
}

async function rest(
  method: string,
  route: string,
  authorization: string | null,
  json?: unknown,
): Promise<RestResponse> {
  const response = await call(server, method, route, { json, headers: { authorization: authorization ?? '' } });
  seen.push(response.text);
  return response;
}

const viewerLogin = async (authorization: string | null) =>
  (await gql('{ viewer { login } }', authorization)).body.data?.viewer?.login ?? null;

/**
 * Both protocols refuse `authorization` as credentials that do not verify: a REST read anonymous callers could make
 * (and, with `write`, a REST write) and a GraphQL query.
 */
async function expectInvalid(authorization: string, label = authorization, write = false) {
  const list = await rest('GET', '/events', authorization);
  expect(list.status, label).toBe(401);
  expect(list.body, label).toEqual(INCORRECT);
  if (write) {
    const created = await rest('POST', '/categories', authorization, { name: unique('nope') });
    expect(created.status, label).toBe(401);
    expect(created.body, label).toEqual(INCORRECT);
  }
  const result = await gql('{ viewer { id } }', authorization);
  expect(result.status, label).toBe(401);
  expect(result.body, label).toEqual({
    errors: [{ message: 'The credentials sent are not valid.', extensions: { code: 'UNAUTHENTICATED' } }],
  });
}

describe('application passwords', () => {
  it('sign in with HTTP Basic, with or without the spaces the password is shown with', async () => {
    expect(editor.password).toMatch(/^(\S{4} ){5}\S{4}$/);
    expect(await viewerLogin(editor.authorization)).toBe('cred-editor');
    expect(await viewerLogin(basicAuthorization(editor.login, editor.password.replace(/ /g, '')))).toBe('cred-editor');
    expect(await viewerLogin(null)).toBeNull();
  });

  it('a revoked password stops working at once; the user’s other passwords keep working', async () => {
    const created = await gql(
      'mutation { p: createApplicationPassword(name: "phone") { id name kind secret } }',
      author.authorization,
    );
    const { id, secret, kind } = created.body.data.p;
    issued.push(secret);
    expect(kind).toBe('APPLICATION_PASSWORD');
    const phone = basicAuthorization(author.login, secret);
    expect(await viewerLogin(phone)).toBe('cred-author');
    // A credential is a node: its own user reads it by its global ID, another user is told there is none.
    const asNode = `query ($id: ID!) { node(id: $id) { ... on Credential { name databaseId } } }`;
    const read = (await gql(asNode, author.authorization, { id })).body.data.node;
    expect(read).toEqual({ name: 'phone', databaseId: expect.any(Number) });
    expect(Buffer.from(id, 'base64').toString()).toBe(`Credential:${read.databaseId}`);
    expect((await gql(asNode, editor.authorization, { id })).body).toEqual({ data: { node: null } });
    const revoked = await gql(`mutation { r: revokeCredential(id: "${id}") { id revokedAt } }`, phone);
    expect(revoked.body.data.r.id).toBe(id);
    expect(Date.parse(revoked.body.data.r.revokedAt)).toBeGreaterThan(Date.now() - 60_000);
    await expectInvalid(phone, 'revoked application password', true);
    expect(await viewerLogin(author.authorization)).toBe('cred-author');
  });
});

describe('bearer tokens', () => {
  it('`Bearer <public ID>.<secret>` signs in; wrong secret, unknown ID, revoked token and crossed schemes do not', async () => {
    const created = await gql(
      'mutation { t: createBearerToken(name: "ci") { id: databaseId kind secret } }',
      editor.authorization,
    );
    const token = created.body.data.t;
    issued.push(token.secret);
    expect(token.kind).toBe('BEARER_TOKEN');
    expect(token.secret).toMatch(/^[A-Za-z0-9]{16}\.[A-Za-z0-9]{24}$/);
    const [publicId, secret] = token.secret.split('.');
    const bearer = `Bearer ${token.secret}`;
    expect(await viewerLogin(bearer)).toBe('cred-editor');
    // A bearer token carries the editor's capabilities on REST writes too.
    const write = await rest('POST', '/categories', bearer, { name: unique('Bearer category') });
    expect(write.status, write.text).toBe(201);

    await expectInvalid(`Bearer ${publicId}.wrong-secret`, 'wrong secret');
    await expectInvalid(`Bearer ${'x'.repeat(16)}.${secret}`, 'unknown token ID');
    await expectInvalid(`Bearer ${token.id}.${secret}`, 'the credential ID instead of the public ID');
    await expectInvalid(`Bearer 999999.${secret}`, 'unknown number');
    await expectInvalid(basicAuthorization(editor.login, token.secret), 'token as application password');
    await expectInvalid(`Bearer ${editor.password.replace(/ /g, '')}`, 'application password as token');

    const revoked = await gql(`mutation { r: revokeCredential(id: ${token.id}) { revokedAt } }`, editor.authorization);
    expect(revoked.body.data.r.revokedAt).not.toBeNull();
    await expectInvalid(bearer, 'revoked token', true);
  });
});

describe('malformed credentials', () => {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  it.each([
    ['Basic without a value', 'Basic'],
    ['Basic with garbage', 'Basic !!!***'],
    ['Basic without a colon', `Basic ${b64('cred-editor')}`],
    ['Basic with an empty login', `Basic ${b64(':some-password')}`],
    ['Bearer without a value', 'Bearer'],
    ['Bearer without an ID', 'Bearer abcdef'],
    ['Bearer with an empty secret', 'Bearer 12.'],
    ['an unknown scheme', 'Token abc'],
    ['Digest', 'Digest username="cred-editor"'],
  ])('%s → REST 401 incorrect_password, GraphQL 401 UNAUTHENTICATED', async (label, authorization) => {
    await expectInvalid(authorization, label, label === 'Basic with garbage');
  });
});

describe('unknown user and wrong password', () => {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  it('answer alike on REST and GraphQL', async () => {
    const unknown = basicAuthorization('no-such-user', editor.password);
    const wrong = basicAuthorization(editor.login, 'abcd efgh ijkl mnop qrst uvwx');
    for (const route of ['/events', '/venues/1']) {
      const [a, b] = [await rest('GET', route, unknown), await rest('GET', route, wrong)];
      expect([a.status, a.body]).toEqual([401, INCORRECT]);
      expect([b.status, b.text]).toEqual([a.status, a.text]);
    }
    const [a, b] = [await gql('{ viewer { id } }', unknown), await gql('{ viewer { id } }', wrong)];
    expect(a.status).toBe(401);
    expect([b.status, b.text]).toEqual([a.status, a.text]);
  });

  it('take about the same time (medians within a factor of 3)', async () => {
    const unknown = basicAuthorization('no-such-user', editor.password);
    const wrong = basicAuthorization(editor.login, 'abcd efgh ijkl mnop qrst uvwx');
    const right = editor.authorization;
    const timings: Record<'unknown' | 'wrong' | 'right', number[]> = { unknown: [], wrong: [], right: [] };
    const time = async (authorization: string) => {
      const start = performance.now();
      await graphql(server, '{ __typename }', {}, authorization);
      return performance.now() - start;
    };
    await time(unknown); // warm-up
    for (let n = 0; n < 7; n++) {
      timings.unknown.push(await time(unknown));
      timings.wrong.push(await time(wrong));
      timings.right.push(await time(right));
    }
    const [u, w, r] = [median(timings.unknown), median(timings.wrong), median(timings.right)];
    expect(Math.max(u, w) / Math.min(u, w), JSON.stringify(timings)).toBeLessThan(3);
    // A failure does at least the work of a success (one slow hash check), so it is not the faster answer.
    expect(Math.min(u, w) * 2, JSON.stringify(timings)).toBeGreaterThan(r);
  });
});

describe('credential records', () => {
  it('record when they were last used', async () => {
    const created = await adminData(
      server,
      `mutation { p: createApplicationPassword(name: "tablet", userId: ${author.id}) { id: databaseId secret } }`,
    );
    const lastUsed = async () => {
      const data = await adminData(
        server,
        '{ users { nodes { id: databaseId credentials { nodes { id: databaseId createdAt lastUsedAt revokedAt } } } } }',
      );
      return data.users.nodes
        .find((user: { id: number }) => user.id === author.id)
        .credentials.nodes.find((c: { id: number }) => c.id === created.p.id);
    };
    const before = await lastUsed();
    expect(before.lastUsedAt).toBeNull();
    expect(before.revokedAt).toBeNull();
    expect(Date.parse(before.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await viewerLogin(basicAuthorization(author.login, created.p.secret))).toBe('cred-author');
    const after = await lastUsed();
    expect(Date.parse(after.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(before.createdAt));
    expect(Date.parse(after.lastUsedAt)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('show a secret once: no query returns it, no field can, and only a keyed hash is stored', async () => {
    const created = await gql(
      'mutation { p: createApplicationPassword(name: "once") { id: databaseId secret } t: createBearerToken(name: "once") { id: databaseId secret } }',
      editor.authorization,
    );
    const secrets = [created.body.data.p.secret, created.body.data.t.secret];
    issued.push(...secrets);
    const forms = secrets.flatMap((secret: string) => [secret, secret.replace(/ /g, ''), secret.split('.').pop()!]);
    const responses = [
      await gql(
        '{ viewer { id login credentials { nodes { id name kind createdAt lastUsedAt revokedAt } } } }',
        editor.authorization,
      ),
      await gql(
        '{ users { nodes { id login credentials { nodes { id name kind createdAt lastUsedAt revokedAt } } } } }',
        ADMIN_AUTHORIZATION,
      ),
      await gql('{ __type(name: "Credential") { fields { name } } }', null),
    ];
    for (const response of responses) for (const form of forms) expect(response.text).not.toContain(form);
    const fields = responses[2]!.body.data.__type.fields.map((field: { name: string }) => field.name);
    expect(fields.sort()).toEqual(['createdAt', 'databaseId', 'id', 'kind', 'lastUsedAt', 'name', 'revokedAt']);
    const stored = await server.app.db.credential.findMany({
      where: { id: { in: [created.body.data.p.id, created.body.data.t.id] } },
    });
    expect(stored).toHaveLength(2);
    for (const credential of stored) {
      expect(credential.secretHash).toMatch(/^hmac-sha256\$[\w-]{43}$/);
      for (const form of forms) expect(credential.secretHash).not.toContain(form);
    }
  });

  it('every secret issued over HTTP in this file appeared in exactly one response: the one that created it', () => {
    expect(issued.length).toBeGreaterThanOrEqual(4);
    for (const secret of issued) {
      const holding = seen.filter((text) => text.includes(secret) || text.includes(secret.replace(/ /g, '')));
      expect(holding, secret).toHaveLength(1);
    }
  });
});

describe('who manages credentials and users', () => {
  const code = (result: HttpGraphQL) => [result.status, result.body.errors?.[0]?.extensions?.code ?? 'ok'].join(' ');

  it('anonymous callers: UNAUTHENTICATED (HTTP 200) for every credential and user mutation, and `users`', async () => {
    for (const operation of [
      'mutation { r: createApplicationPassword(name: "x") { id } }',
      'mutation { r: createBearerToken(name: "x") { id } }',
      'mutation { r: revokeCredential(id: 1) { id } }',
      'mutation { r: createUser(input: { login: "anon-made", role: ADMINISTRATOR }) { id } }',
      '{ users { nodes { id } } }',
    ]) {
      expect(code(await gql(operation, null)), operation).toBe('200 UNAUTHENTICATED');
    }
  });

  it("users without manage_users handle only their own credentials; administrators anyone's", async () => {
    const forAuthor = await adminData(
      server,
      `mutation { p: createApplicationPassword(name: "admin-made", userId: ${author.id}) { id } }`,
    );
    expect(
      code(
        await gql(
          `mutation { r: createApplicationPassword(name: "x", userId: ${author.id}) { id } }`,
          editor.authorization,
        ),
      ),
    ).toBe('200 FORBIDDEN');
    expect(
      code(
        await gql(`mutation { r: createBearerToken(name: "x", userId: ${author.id}) { id } }`, editor.authorization),
      ),
    ).toBe('200 FORBIDDEN');
    expect(
      code(await gql(`mutation { r: revokeCredential(id: "${forAuthor.p.id}") { id } }`, editor.authorization)),
    ).toBe('200 FORBIDDEN');
    expect(
      code(
        await gql(
          `mutation { r: createApplicationPassword(name: "x", userId: ${editor.id}) { id } }`,
          editor.authorization,
        ),
      ),
    ).toBe('200 ok');
    expect(code(await gql('{ users { nodes { id } } }', editor.authorization))).toBe('200 FORBIDDEN');
    expect(
      code(
        await gql(
          'mutation { r: createUser(input: { login: "editor-made", role: ADMINISTRATOR }) { id } }',
          editor.authorization,
        ),
      ),
    ).toBe('200 FORBIDDEN');
    expect(
      code(await gql(`mutation { r: revokeCredential(id: "${forAuthor.p.id}") { id } }`, ADMIN_AUTHORIZATION)),
    ).toBe('200 ok');
  });
});

describe('GraphiQL and introspection', () => {
  it('stay available to anonymous callers', async () => {
    const page = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toMatch(/graphiql/i);
    const introspection = await gql('{ __schema { queryType { name } mutationType { name } } }', null);
    expect(introspection.status).toBe(200);
    expect(introspection.body.data.__schema).toEqual({
      queryType: { name: 'Query' },
      mutationType: { name: 'Mutation' },
    });
  });
});
