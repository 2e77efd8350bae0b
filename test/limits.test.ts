import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getIntrospectionQuery, Kind, parse, print, visit, type DefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { createApp, listen, shutdown, type App } from '../src/server.js';
import { createCategory, createEvent, createVenue } from './support/factories.js';
import { restClient } from './support/rest.js';
import { assertSchema } from './support/schemas.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// The limits of README "Limits": each is crossed here over HTTP and answers its documented error. GraphQL's limits
// are crossed at their defaults (read from the configuration, not copied), the others on servers configured low.

const DEFAULTS = loadConfig({}).limits;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** A POST to /graphql; `accept` picks the GraphQL-over-HTTP flavour (application/json answers errors with 200). */
async function postGraphQL(server: TestServer, query: string, options: { variables?: object; accept?: string; operationName?: string } = {}) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: options.accept ?? 'application/json' },
    body: JSON.stringify({ query, variables: options.variables ?? {}, operationName: options.operationName }),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] } };
}

const messages = (body: { errors?: { message: string }[] }) => (body.errors ?? []).map((error) => error.message);

/** Streams `chunk` to the server until it answers (or `maxBytes` were sent), never ending the body: the answer. */
function streamUntilAnswered(url: string, path: string, headers: Record<string, string>, maxBytes: number) {
  return new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
    const target = new URL(path, url);
    const request = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers });
    let sent = 0;
    let answered = false;
    const chunk = Buffer.from(`${'x'.repeat(1023)}\n`);
    const pump = () => {
      if (answered) return;
      if (sent >= maxBytes) return reject(new Error(`no answer after sending ${sent} bytes`));
      sent += chunk.length;
      request.write(chunk, () => setTimeout(pump, 2));
    };
    request.on('response', (response) => {
      answered = true;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (data: string) => (body += data));
      response.on('end', () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body, sent });
      });
    });
    request.on('error', (error) => (answered ? undefined : reject(error)));
    request.flushHeaders();
    pump();
  });
}

describe('GraphQL document limits, at their defaults', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  /** The query passes at `atLimit` and is refused one past it with graphql-armor's message naming the limit. */
  async function expectRefusedPast(build: (n: number) => string, atLimit: number, message: string, operationName?: string) {
    const within = await postGraphQL(server, build(atLimit), { operationName });
    expect(messages(within.body)).toEqual([]);
    const beyond = await postGraphQL(server, build(atLimit + 1), { operationName });
    expect(beyond.status).toBe(200);
    expect(beyond.body.errors?.[0]?.message).toContain(message);
    expect(beyond.body.errors?.[0]?.extensions?.code).toMatch(/^GRAPHQL_(VALIDATION|PARSE)_FAILED$/);
    expect(beyond.body.data).toBeUndefined();
  }

  it(`refuses a selection deeper than GRAPHQL_MAX_DEPTH (${DEFAULTS.graphql.maxDepth})`, async () => {
    // `event` and `id` are two levels; each `parent` one more.
    const nested = (depth: number) => `{ event(id: 1) { ${'parent { '.repeat(depth - 2)}id${' }'.repeat(depth - 2)} } }`;
    await expectRefusedPast(nested, DEFAULTS.graphql.maxDepth, `depth limit of ${DEFAULTS.graphql.maxDepth} exceeded`);
  });

  it(`refuses more than GRAPHQL_MAX_ALIASES (${DEFAULTS.graphql.maxAliases}) aliases`, async () => {
    const aliased = (n: number) => `{ ${range(n).map((i) => `a${i}: viewer { id }`).join(' ')} }`;
    await expectRefusedPast(aliased, DEFAULTS.graphql.maxAliases, `Aliases limit of ${DEFAULTS.graphql.maxAliases} exceeded`);
  });

  it(`refuses more than GRAPHQL_MAX_DIRECTIVES (${DEFAULTS.graphql.maxDirectives}) directives`, async () => {
    const directed = (n: number) => `{ viewer { ${range(n).map(() => 'id @skip(if: false)').join(' ')} } }`;
    await expectRefusedPast(directed, DEFAULTS.graphql.maxDirectives, `Directives limit of ${DEFAULTS.graphql.maxDirectives} exceeded`);
  });

  it(`refuses a document of more than GRAPHQL_MAX_TOKENS (${DEFAULTS.graphql.maxTokens}) tokens`, async () => {
    // Operations of eight tokens each (`query Qn { viewer { id } }`), the first one padded with fields to the count.
    const long = (tokens: number) =>
      range(Math.floor(tokens / 8))
        .map((i) => `query Q${i} { viewer { id ${i === 0 ? 'id '.repeat(tokens % 8) : ''}} }`)
        .join('\n');
    await expectRefusedPast(long, DEFAULTS.graphql.maxTokens, `Token limit of ${DEFAULTS.graphql.maxTokens} exceeded`, 'Q0');
  });

  it(`refuses a query costing more than GRAPHQL_MAX_COST (${DEFAULTS.graphql.maxCost}); a literal page size multiplies the cost`, async () => {
    const page = (first: number) => `{ events(first: ${first}) { edges { node { ${'id title slug '.repeat(10)}} } } }`;
    expect(messages((await postGraphQL(server, page(10))).body)).toEqual([]);
    const refused = await postGraphQL(server, page(100));
    expect(refused.body.errors?.[0]?.message).toContain(`Cost limit of ${DEFAULTS.graphql.maxCost} exceeded`);
  });

  it('refuses a list of more than 100 items and text with a NUL character, in the variables and in the document', async () => {
    const include = (n: number) => range(n).map((i) => i + 1);
    const byVariable = 'query ($filter: EventsFilter) { events(filter: $filter) { totalCount } }';
    expect(messages((await postGraphQL(server, byVariable, { variables: { filter: { include: include(100) } } })).body)).toEqual([]);
    const long = await postGraphQL(server, byVariable, { variables: { filter: { include: include(101) } } });
    expect(long.body.errors).toEqual([{ message: '$filter.include: a list may hold at most 100 items.', extensions: { code: 'BAD_USER_INPUT' } }]);
    const nul = await postGraphQL(server, byVariable, { variables: { filter: { search: 'a\u0000b' } } });
    expect(nul.body.errors).toEqual([{ message: '$filter.search: text may not contain the NUL character (U+0000).', extensions: { code: 'BAD_USER_INPUT' } }]);
    for (const literal of [`include: [${include(101).join(' ')}]`, 'search: "a\\u0000b"']) {
      const { body } = await postGraphQL(server, `{ events(filter: { ${literal} }) { totalCount } }`);
      expect(body.errors?.[0]?.message).toMatch(/^Argument value: (a list may hold at most 100 items|text may not contain the NUL character)/);
      expect(body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    }
  });

  it('answers the refusals with 400 to a client that accepts application/graphql-response+json', async () => {
    const refused = await postGraphQL(server, `{ ${range(DEFAULTS.graphql.maxAliases + 1).map((i) => `a${i}: viewer { id }`).join(' ')} }`, {
      accept: 'application/graphql-response+json',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it("admits every document the REST layer runs, sent to /graphql (as the benchmark does), and GraphiQL's introspection", async () => {
    const dir = new URL('../src/rest/operations/', import.meta.url);
    const definitions = readdirSync(dir)
      .filter((file) => file.endsWith('.graphql'))
      .flatMap((file) => parse(readFileSync(new URL(file, dir), 'utf8')).definitions);
    const fragments = new Map(definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
    /** The operation and the fragments it spreads, directly or through other fragments. */
    const document = (operation: DefinitionNode) => {
      const used = new Map<string, DefinitionNode>();
      visit(operation, {
        FragmentSpread: function spread(node) {
          const fragment = fragments.get(node.name.value)!;
          if (used.has(node.name.value)) return;
          used.set(node.name.value, fragment);
          visit(fragment, { FragmentSpread: spread });
        },
      });
      return [operation, ...used.values()].map((d) => print(d)).join('\n');
    };
    const operations = definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    expect(operations.length).toBeGreaterThan(10);
    for (const operation of operations) {
      const { body } = await postGraphQL(server, document(operation));
      // Required variables are left out: execution may refuse them, but parsing and validation must not.
      const refusals = (body.errors ?? []).filter((error) => /^GRAPHQL_(VALIDATION|PARSE)_FAILED$/.test(error.extensions?.code ?? ''));
      expect(refusals, print(operation).slice(0, 80)).toEqual([]);
    }
    const introspection = await postGraphQL(server, getIntrospectionQuery());
    expect(messages(introspection.body)).toEqual([]);
  });

  it('answers introspection and field suggestions by default (GRAPHQL_INTROSPECTION=true)', async () => {
    const { body } = await postGraphQL(server, '{ __schema { queryType { name } } }');
    expect(body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    expect(messages((await postGraphQL(server, '{ evnts { id } }')).body)[0]).toContain('Did you mean "events"');
  });
});

describe('a server with low limits', () => {
  const MAX_BODY_BYTES = 2048;
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      MAX_BODY_BYTES: String(MAX_BODY_BYTES),
      GRAPHQL_INTROSPECTION: 'false',
      GRAPHQL_MAX_DEPTH: '2',
      GRAPHQL_MAX_ALIASES: '0',
      GRAPHQL_MAX_DIRECTIVES: '0',
      GRAPHQL_MAX_TOKENS: '12',
      GRAPHQL_MAX_COST: '5',
    });
  });
  afterAll(() => server?.close());

  /** A create-event JSON body of exactly `bytes` bytes (the title padded). */
  const createBody = (bytes: number) => {
    const base = { title: '', start_date: '2030-01-15 10:00:00', end_date: '2030-01-15 12:00:00' };
    return JSON.stringify({ ...base, title: 'T'.repeat(bytes - JSON.stringify(base).length) });
  };

  it('accepts a REST body of MAX_BODY_BYTES and answers 413 rest_request_too_large to one byte more', async () => {
    const rest = restClient(server);
    const headers = { 'content-type': 'application/json' };
    expect((await rest.post('/events', { raw: createBody(MAX_BODY_BYTES), headers })).status).toBe(201);
    const refused = await rest.post('/events', { raw: createBody(MAX_BODY_BYTES + 1), headers });
    expect(refused.status).toBe(413);
    assertSchema('error', refused.body);
    expect(refused.body).toEqual({ code: 'rest_request_too_large', message: `The request body is larger than the limit of ${MAX_BODY_BYTES} bytes.`, data: { status: 413 } });
    const form = await rest.put('/events/1', { form: { description: 'd'.repeat(MAX_BODY_BYTES) } });
    expect([form.status, form.body.code]).toEqual([413, 'rest_request_too_large']);
  });

  it('answers 413 to a streamed REST body as soon as it passes the limit, without waiting for its end', async () => {
    const answer = await streamUntilAnswered(server.url, '/wp-json/calendar/events/v1/events', { 'content-type': 'application/json', authorization: ADMIN_AUTHORIZATION }, 50 * MAX_BODY_BYTES);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).code).toBe('rest_request_too_large');
    expect(answer.sent).toBeLessThan(50 * MAX_BODY_BYTES);
  });

  it('answers 413 REQUEST_ENTITY_TOO_LARGE to a GraphQL body over the limit, declared or streamed', async () => {
    const query = `{ viewer { id } }${' '.repeat(MAX_BODY_BYTES)}`;
    const declared = await postGraphQL(server, query);
    expect(declared.status).toBe(413);
    expect(declared.body.errors?.[0]?.extensions?.code).toBe('REQUEST_ENTITY_TOO_LARGE');
    const streamed = await streamUntilAnswered(server.url, '/graphql', { 'content-type': 'application/json' }, 50 * MAX_BODY_BYTES);
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).errors[0].extensions.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });

  it("applies the GraphQL limits to /graphql only: REST's in-process operations are never refused by them", async () => {
    expect(messages((await postGraphQL(server, '{ events(first: 1) { edges { node { id } } } }')).body)[0]).toMatch(/limit of \d+ exceeded/);
    const rest = restClient(server);
    const created = await rest.post('/events', {
      json: { title: 'Within limits', start_date: '2030-02-01 10:00:00', end_date: '2030-02-01 12:00:00', venue: { venue: 'Hall', city: 'Berlin' }, organizer: { organizer: 'Org' }, categories: ['Jazz'], tags: ['Loud'] },
    });
    expect(created.status, created.text).toBe(201);
    const list = await rest.get('/events', { query: { start_date: '2030-01-01', end_date: '2030-12-31', per_page: 50 } });
    expect(list.status, list.text).toBe(200);
    expect(list.body.events.length).toBeGreaterThan(0);
    expect(list.body.events.some((event: { venue: unknown }) => !Array.isArray(event.venue))).toBe(true);
    for (const route of ['/venues', '/organizers', '/categories', '/tags']) expect((await rest.get(route)).status, route).toBe(200);
  });

  it('refuses a REST list parameter of more than 100 items and text with a NUL character, naming the parameter', async () => {
    const rest = restClient(server);
    const ids = (n: number) => range(n).map((i) => i + 1).join(',');
    expect((await rest.get('/events', { query: `include=${ids(100)}` })).status).toBe(200);
    for (const query of [`include=${ids(101)}`, 'search=a%00b', 'categories[]=a%00b']) {
      const refused = await rest.get('/events', { query });
      assertSchema('error', refused.body);
      expect([refused.status, refused.body.code, Object.keys(refused.body.data.params)], query).toEqual([400, 'rest_invalid_param', [query.split(/[=[]/)[0]]]);
    }
  });

  it('refuses introspection and hides field suggestions with GRAPHQL_INTROSPECTION=false', async () => {
    for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Event") { name } }']) {
      const { body } = await postGraphQL(server, query);
      expect(body.errors?.[0]?.message).toContain('introspection has been disabled');
      expect(body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    }
    const misspelt = messages((await postGraphQL(server, '{ evnts }')).body)[0];
    expect(misspelt).toContain('Cannot query field "evnts"');
    expect(misspelt).not.toContain('events');
  });
});

describe('the request timeout', () => {
  let server: TestServer;
  let slow: { app: App; server: Server; url: string };
  /** Every event with its relations, twenty times over (aliases), the page size a variable (no literal cost). */
  const HEAVY = `query ($first: Int) { ${range(20)
    .map((i) => `e${i}: events(first: $first) { totalCount edges { node { id title venues { name } organizers { name } categories { name parent { name } } tags { name } } } }`)
    .join(' ')} }`;

  beforeAll(async () => {
    server = await startServer();
    const venue = await createVenue(server);
    const category = await createCategory(server);
    await Promise.all(range(30).map((i) => createEvent(server, { title: `Timed ${i}`, venues: [{ id: venue.id }], categories: [category.slug], tags: [`tag-${i}`] })));
    // A second server on the same database, answering within 1 ms: any real request takes longer.
    const config: Config = { ...server.app.config, logLevel: 'silent', limits: { ...server.app.config.limits, requestTimeoutMs: 1 } };
    const app = await createApp(config, { countQueries: true });
    const listening = await listen(app, 0, '127.0.0.1');
    slow = { app, server: listening, url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}` };
  });
  afterAll(async () => {
    if (slow) await shutdown(slow.server, slow.app);
    await server?.close();
  });

  it('answers a GraphQL request past REQUEST_TIMEOUT_MS with 503 REQUEST_TIMEOUT, and starts no statement after it', async () => {
    // Measured warm, as the slow server will run it: both share this process's per-data-version memos.
    await server.gqlOk(HEAVY, { first: 50 });
    const normal = await server.countQueries(() => server.gqlOk(HEAVY, { first: 50 }));
    expect(normal).toBeGreaterThan(20);

    const before = slow.app.queries.count;
    const response = await fetch(`${slow.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: HEAVY, variables: { first: 50 } }) });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ errors: [{ message: 'The request took longer than 1 ms and was stopped.', extensions: { code: 'REQUEST_TIMEOUT' } }] });
    // Whatever the request still runs after its answer runs now: wait until no statement has started for a while.
    let started = -1;
    while (started !== slow.app.queries.count) {
      started = slow.app.queries.count;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(started - before).toBeLessThan(normal);
  });

  it('answers a REST request past REQUEST_TIMEOUT_MS with 503 rest_request_timeout', async () => {
    const response = await fetch(`${slow.url}/wp-json/calendar/events/v1/events?per_page=50&start_date=2030-01-01`);
    expect(response.status).toBe(503);
    const body = await response.json();
    assertSchema('error', body);
    expect(body).toEqual({ code: 'rest_request_timeout', message: 'The request took longer than 1 ms and was stopped.', data: { status: 503 } });
  });
});

describe('limit settings', () => {
  it('refuses a limit that is not a whole number, naming the variable', () => {
    expect(() => loadConfig({ MAX_BODY_BYTES: '1mb' })).toThrow(ConfigError);
    expect(() => loadConfig({ GRAPHQL_MAX_DEPTH: '0' })).toThrow(/GRAPHQL_MAX_DEPTH must be a whole number of at least 1/);
    expect(() => loadConfig({ GRAPHQL_INTROSPECTION: 'no' })).toThrow(/GRAPHQL_INTROSPECTION must be true or false/);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '0' }).limits.requestTimeoutMs).toBe(0);
  });
});
