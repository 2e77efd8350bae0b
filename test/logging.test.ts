// Structured logs: one JSON line per request with its ID (answered in X-Request-ID), errors logged once with their
// cause, 4xx answers not logged as errors, LOG_LEVEL honoured, and no credential or query string in any line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent } from './support/factories.js';
import {
  ADMIN_AUTHORIZATION,
  basicAuthorization,
  startServer,
  TEST_ADMIN_PASSWORD,
  type TestServer,
} from './support/server.js';

const API = '/wp-json/calendar/events/v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Line {
  level: string;
  msg: string;
  requestId?: string;
  method?: string;
  path?: string;
  status?: number;
  durationMs?: number;
  err?: { type: string; message: string; stack: string };
  [key: string]: unknown;
}

/** A server whose log output is kept, as text and as parsed lines. */
async function loggedServer(env: Record<string, string>) {
  const log = { text: '' };
  const server = await startServer(env, { logTo: { write: (chunk: string) => void (log.text += chunk) } });
  const lines = (): Line[] =>
    log.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Line);
  return { server, log, lines, linesOf: (id: string) => lines().filter((line) => line.requestId === id) };
}

async function send(server: TestServer, path: string, init: RequestInit = {}) {
  const response = await fetch(`${server.url}${path}`, init);
  await response.text();
  return { status: response.status, requestId: response.headers.get('x-request-id') };
}

const graphqlInit = (query: string, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
  body: JSON.stringify({ query }),
});

describe('request logging', () => {
  let logged: Awaited<ReturnType<typeof loggedServer>>;

  beforeAll(async () => {
    logged = await loggedServer({ LOG_LEVEL: 'debug' });
  });
  afterAll(() => logged?.server.close());

  it('writes one JSON line per request, with the request ID it answers in X-Request-ID', async () => {
    const requests: Array<[string, RequestInit, number]> = [
      ['/healthz', {}, 200],
      [`${API}/events`, {}, 200],
      ['/graphql', graphqlInit('{ events(first: 1) { totalCount } }'), 200],
      [`${API}/nothing-here`, {}, 404],
      [
        '/graphql',
        graphqlInit('{ viewer { login } }', { authorization: basicAuthorization('admin', 'wrong-password') }),
        401,
      ],
    ];
    for (const [path, init, status] of requests) {
      const answer = await send(logged.server, path, init);
      expect(answer.status, path).toBe(status);
      expect(answer.requestId, path).toMatch(UUID);
      const lines = logged.linesOf(answer.requestId!);
      expect(lines, path).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 'info',
        msg: 'request',
        method: init.method ?? 'GET',
        path: path.split('?')[0],
        status,
      });
      expect(lines[0]!.durationMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('keeps a sane incoming X-Request-ID and replaces one that is not', async () => {
    const kept = await send(logged.server, '/healthz', { headers: { 'x-request-id': 'edge-7f3a.42:trace' } });
    expect(kept.requestId).toBe('edge-7f3a.42:trace');
    expect(logged.linesOf('edge-7f3a.42:trace')).toHaveLength(1);

    for (const unfit of ['two words', 'x'.repeat(129), '"quoted"', '']) {
      const replaced = await send(logged.server, `${API}/events`, { headers: { 'x-request-id': unfit } });
      expect(replaced.requestId, unfit).toMatch(UUID);
      expect(logged.linesOf(replaced.requestId!), unfit).toHaveLength(1);
    }
  });

  it('answers X-Request-ID on errors too, and logs 4xx answers at info without an error', async () => {
    const answers = [
      await send(logged.server, `${API}/events?per_page=-1`),
      await send(logged.server, `${API}/events/987654`),
      await send(logged.server, `${API}/categories`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'name=x',
      }),
      await send(logged.server, '/graphql', graphqlInit('{ viewer { login')),
      await send(
        logged.server,
        '/graphql',
        graphqlInit('mutation { createEventTag(input: { name: "" }) { id } }', { authorization: ADMIN_AUTHORIZATION }),
      ),
    ];
    // GraphQL answers errors in a 200 to clients that accept application/json.
    expect(answers.map((answer) => answer.status)).toEqual([400, 404, 401, 200, 200]);
    for (const answer of answers) {
      expect(answer.requestId).toMatch(UUID);
      const [line] = logged.linesOf(answer.requestId!);
      expect(line).toMatchObject({ level: 'info', status: answer.status });
      expect(line!.err).toBeUndefined();
    }
  });

  it('names the error codes of a refused GraphQL request on its line, with its request ID', async () => {
    const cases: Array<[RequestInit, string[]]> = [
      [graphqlInit('{ viewer { login'), ['GRAPHQL_PARSE_FAILED']],
      [graphqlInit('{ events(first: -1) { totalCount } }'), ['BAD_USER_INPUT']],
      [
        graphqlInit(
          `{ ${Array.from({ length: 10 }, (_, i) => `c${i}: eventCategories(first: 100) { edges { node { children { edges { node { children { edges { node { children { edges { node { name } } } } } } } } } } } }`).join(' ')} }`,
        ),
        ['QUERY_TOO_COSTLY'],
      ],
    ];
    for (const [init, codes] of cases) {
      const answer = await send(logged.server, '/graphql', {
        ...init,
        headers: { ...init.headers, 'x-request-id': `codes-${codes[0]}` },
      });
      expect(answer.requestId).toBe(`codes-${codes[0]}`);
      const lines = logged.linesOf(answer.requestId!);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 'info',
        msg: 'request',
        path: '/graphql',
        status: answer.status,
        errorCodes: codes,
      });
    }
    const fine = await send(logged.server, '/graphql', graphqlInit('{ events(first: 1) { totalCount } }'));
    expect(logged.linesOf(fine.requestId!)[0]!.errorCodes).toBeUndefined();
  });

  it('logs the path without its query string', async () => {
    const answer = await send(logged.server, `${API}/events?search=quiet&password=query-string-secret-1234`);
    expect(logged.linesOf(answer.requestId!)[0]!.path).toBe(`${API}/events`);
    const plain = await send(
      logged.server,
      `/?rest_route=/calendar/events/v1/events&password=query-string-secret-1234`,
    );
    expect(logged.linesOf(plain.requestId!)[0]!.path).toBe('/?rest_route=/calendar/events/v1/events');
    expect(logged.log.text).not.toContain('query-string-secret-1234');
  });

  it('writes no credential, password or token, whatever the request sent or received', async () => {
    const created = await logged.server.gqlOk(
      'mutation { token: createBearerToken(name: "logs") { secret } password: createApplicationPassword(name: "logs") { secret } }',
    );
    const { secret: token } = created.token;
    const { secret: appPassword } = created.password;
    const protectedEvent = await createEvent(logged.server, { password: 'event-password-5521' });
    await send(logged.server, '/graphql', graphqlInit('{ viewer { login } }', { authorization: `Bearer ${token}` }));
    await send(logged.server, `${API}/events`, {
      headers: { authorization: basicAuthorization('admin', appPassword) },
    });
    await send(logged.server, `${API}/events`, { headers: { authorization: `Bearer ${token}x` } });
    await send(logged.server, `${API}/events/${protectedEvent.id}?password=event-password-5521`);
    await send(
      logged.server,
      '/graphql',
      graphqlInit(`{ event(id: ${protectedEvent.id}, password: "event-password-5521") { title } }`),
    );

    const secrets = [
      TEST_ADMIN_PASSWORD,
      token,
      token.split('.')[1]!,
      appPassword,
      appPassword.replace(/\s+/g, ''),
      'event-password-5521',
    ];
    const encoded = [ADMIN_AUTHORIZATION.split(' ')[1]!, basicAuthorization('admin', appPassword).split(' ')[1]!];
    expect(logged.lines().filter((line) => line.msg === 'request').length).toBeGreaterThan(20);
    for (const secret of [...secrets, ...encoded])
      expect(logged.log.text.includes(secret), `a secret in the logs (${secret.slice(0, 4)}…)`).toBe(false);
    expect(logged.log.text.toLowerCase()).not.toContain('authorization');
  });
});

describe('503s answered on purpose', () => {
  it('are logged at warn, without an error: a request past its deadline', async () => {
    const logged = await loggedServer({ REQUEST_TIMEOUT_MS: '1', LOG_LEVEL: 'info' });
    try {
      const answer = await send(logged.server, `${API}/events?per_page=50&search=deadline`);
      expect(answer.status).toBe(503);
      const lines = logged.linesOf(answer.requestId!);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 'warn', msg: 'request', status: 503 });
      expect(lines[0]!.err).toBeUndefined();
    } finally {
      await logged.server.close();
    }
  });
});

describe('unexpected failures', () => {
  let logged: Awaited<ReturnType<typeof loggedServer>>;

  // LOG_LEVEL=warn: successful requests write nothing, failures still do.
  beforeAll(async () => {
    logged = await loggedServer({ LOG_LEVEL: 'warn' });
  });
  afterAll(() => logged?.server.close());

  /** Takes a table away from under the running server, as a broken or half-migrated database would. */
  const loseTable = (table: string) => {
    const { engine, databaseUrl } = logged.server.app.config;
    const schema = engine === 'postgres' ? `"${new URL(databaseUrl).searchParams.get('schema')}".` : '';
    return logged.server.app.db.$executeRawUnsafe(`ALTER TABLE ${schema}"${table}" RENAME TO "${table}Gone"`);
  };

  function expectOneErrorLine(requestId: string, status: number, cause: RegExp) {
    const lines = logged.linesOf(requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', status });
    expect(lines[0]!.err!.message).toMatch(cause);
    expect(lines[0]!.err!.stack).toMatch(/\n\s+at /);
    // Logged once: no other line carries it (GraphQL Yoga's own error logging included).
    expect(
      logged
        .lines()
        .filter((line) => line.level === 'error' && line.requestId !== requestId && JSON.stringify(line).match(cause)),
    ).toEqual([]);
  }

  it('logs nothing for successful requests at LOG_LEVEL=warn', async () => {
    const answer = await send(logged.server, `${API}/organizers`);
    expect(answer.status).toBe(200);
    expect(logged.log.text).toBe('');
  });

  it('answers 500 to a REST request the database fails, and logs the failure once with its cause and request ID', async () => {
    await loseTable('Organizer');
    const answer = await send(logged.server, `${API}/organizers?search=x`, {
      headers: { 'x-request-id': 'rest-failure-1' },
    });
    expect(answer).toEqual({ status: 500, requestId: 'rest-failure-1' });
    expectOneErrorLine('rest-failure-1', 500, /Organizer/);
  });

  it('masks a GraphQL failure and logs it once with its cause and request ID', async () => {
    await loseTable('Venue');
    const response = await fetch(`${logged.server.url}/graphql`, graphqlInit('{ venues(first: 1) { totalCount } }'));
    const body = await response.json();
    expect(body.errors[0].message).toBe('Unexpected error.');
    expect(JSON.stringify(body)).not.toMatch(/Venue/);
    const requestId = response.headers.get('x-request-id')!;
    expect(requestId).toMatch(UUID);
    expectOneErrorLine(requestId, response.status, /Venue/);
  });

  it('answers 500 when authentication itself fails, and logs it once', async () => {
    await loseTable('Credential');
    const answer = await send(
      logged.server,
      '/graphql',
      graphqlInit('{ viewer { login } }', { authorization: ADMIN_AUTHORIZATION }),
    );
    expect(answer.status).toBe(500);
    expectOneErrorLine(answer.requestId!, 500, /Credential/);
    expect(logged.log.text).not.toContain(TEST_ADMIN_PASSWORD);
  });
});
