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

// The limits of docs/limits-and-security.md: each is crossed here over HTTP and answers its documented error. GraphQL's limits
// are crossed at their defaults (read from the configuration, not copied), the others on servers configured low.

const DEFAULTS = loadConfig({}).limits;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** A POST to /graphql; `accept` picks the GraphQL-over-HTTP flavour (application/json answers errors with 200). */
async function postGraphQL(
  server: TestServer,
  query: string,
  options: { variables?: object; accept?: string; operationName?: string } = {},
) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: options.accept ?? 'application/json' },
    body: JSON.stringify({ query, variables: options.variables ?? {}, operationName: options.operationName }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] },
  };
}

const messages = (body: { errors?: { message: string }[] }) => (body.errors ?? []).map((error) => error.message);

/** Streams `chunk` to the server until it answers (or `maxBytes` were sent), never ending the body: the answer. */
function streamUntilAnswered(url: string, path: string, headers: Record<string, string>, maxBytes: number) {
  return new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
    const target = new URL(path, url);
    const request = httpRequest({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      headers,
    });
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

  /** The query passes at `atLimit` and is refused one past it with `code` and a message naming the limit. */
  async function expectRefusedPast(
    build: (n: number) => string,
    atLimit: number,
    message: string,
    code: string,
    operationName?: string,
  ) {
    const within = await postGraphQL(server, build(atLimit), { operationName });
    expect(messages(within.body)).toEqual([]);
    const beyond = await postGraphQL(server, build(atLimit + 1), { operationName });
    expect(beyond.status).toBe(200);
    expect(beyond.body.errors?.[0]?.message).toContain(message);
    expect(beyond.body.errors?.[0]?.message).not.toContain('Syntax Error');
    expect(beyond.body.errors?.[0]?.extensions?.code).toBe(code);
    expect(beyond.body.data).toBeUndefined();
  }

  it(`refuses a selection deeper than GRAPHQL_MAX_DEPTH (${DEFAULTS.graphql.maxDepth})`, async () => {
    // `event` and `id` are two levels; each `parent` one more.
    const nested = (depth: number) =>
      `{ event(id: 1) { ${'parent { '.repeat(depth - 2)}id${' }'.repeat(depth - 2)} } }`;
    await expectRefusedPast(
      nested,
      DEFAULTS.graphql.maxDepth,
      `depth limit of ${DEFAULTS.graphql.maxDepth} exceeded`,
      'QUERY_TOO_DEEP',
    );
  });

  it(`refuses more than GRAPHQL_MAX_ALIASES (${DEFAULTS.graphql.maxAliases}) aliases`, async () => {
    const aliased = (n: number) =>
      `{ ${range(n)
        .map((i) => `a${i}: viewer { id }`)
        .join(' ')} }`;
    await expectRefusedPast(
      aliased,
      DEFAULTS.graphql.maxAliases,
      `Aliases limit of ${DEFAULTS.graphql.maxAliases} exceeded`,
      'TOO_MANY_ALIASES',
    );
  });

  it(`refuses more than GRAPHQL_MAX_DIRECTIVES (${DEFAULTS.graphql.maxDirectives}) directives`, async () => {
    const directed = (n: number) =>
      `{ viewer { ${range(n)
        .map(() => 'id @skip(if: false)')
        .join(' ')} } }`;
    await expectRefusedPast(
      directed,
      DEFAULTS.graphql.maxDirectives,
      `Directives limit of ${DEFAULTS.graphql.maxDirectives} exceeded`,
      'TOO_MANY_DIRECTIVES',
    );
  });

  it(`refuses a document of more than GRAPHQL_MAX_TOKENS (${DEFAULTS.graphql.maxTokens}) tokens`, async () => {
    // Operations of eight tokens each (`query Qn { viewer { id } }`), the first one padded with fields to the count.
    const long = (tokens: number) =>
      range(Math.floor(tokens / 8))
        .map((i) => `query Q${i} { viewer { id ${i === 0 ? 'id '.repeat(tokens % 8) : ''}} }`)
        .join('\n');
    await expectRefusedPast(
      long,
      DEFAULTS.graphql.maxTokens,
      `more than ${DEFAULTS.graphql.maxTokens} tokens`,
      'QUERY_TOO_LARGE',
      'Q0',
    );
  });

  it(`refuses a document longer than GRAPHQL_MAX_DOCUMENT_BYTES (${DEFAULTS.graphql.maxDocumentBytes}) before parsing it, whatever fills it`, async () => {
    const query = '{ viewer { id } }';
    const padded = (pad: string) => (bytes: number) =>
      `${query}${pad.repeat(Math.ceil((bytes - query.length) / pad.length))}`.slice(0, bytes);
    const limit = DEFAULTS.graphql.maxDocumentBytes;
    await expectRefusedPast(
      padded(' '),
      limit,
      `more than the limit of ${limit} (GRAPHQL_MAX_DOCUMENT_BYTES)`,
      'QUERY_TOO_LARGE',
    );
    await expectRefusedPast(
      padded('\n# comment'),
      limit,
      `more than the limit of ${limit} (GRAPHQL_MAX_DOCUMENT_BYTES)`,
      'QUERY_TOO_LARGE',
    );
    // Counted in UTF-8 bytes, not characters: a comment of 3-byte characters.
    const wide = `${query}#${'€'.repeat(Math.ceil(limit / 3))}`;
    expect((await postGraphQL(server, wide)).body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_LARGE');
  });

  /** A month view as the front end asks for it: a full page of events with their venues, organizers and terms. */
  const MONTH_VIEW = (first: string) =>
    `events(first: ${first}, filter: { startDate: "2030-01-01", endDate: "2030-01-31" }) { totalCount edges { node { title startsAt venues { name city } organizers { name } categories { name } tags { name } } } }`;
  /** `children` pages of five categories each, nested `levels` deep. */
  const CHILDREN = (levels: number): string =>
    levels === 0 ? '' : `children(first: 5) { edges { node { name ${CHILDREN(levels - 1)}} } }`;
  /** Categories, their children, theirs and theirs again: ten pages of 100 × 5 × 5 × 5 entries. */
  const NESTED_PAGES = `{ ${range(10)
    .map((i) => `c${i}: eventCategories(first: 100) { edges { node { name ${CHILDREN(3)}} } }`)
    .join(' ')} }`;

  it('admits a month view of 100 events with their relations, the page size written in the document or passed as a variable', async () => {
    expect(messages((await postGraphQL(server, `{ ${MONTH_VIEW('100')} }`)).body)).toEqual([]);
    expect(
      messages(
        (await postGraphQL(server, `query ($first: Int) { ${MONTH_VIEW('$first')} }`, { variables: { first: 100 } }))
          .body,
      ),
    ).toEqual([]);
  });

  it(`refuses a query costing more than GRAPHQL_MAX_COST (${DEFAULTS.graphql.maxCost}) with 400 QUERY_TOO_COSTLY naming the cost and the limit`, async () => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const refused = await postGraphQL(server, NESTED_PAGES, { accept });
      expect(refused.status).toBe(400);
      expect(refused.body.data).toBeUndefined();
      expect(refused.body.errors).toHaveLength(1);
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({
        code: 'QUERY_TOO_COSTLY',
        maxCost: DEFAULTS.graphql.maxCost,
      });
      expect(refused.body.errors?.[0]?.message).toMatch(
        new RegExp(`estimated cost is \\d+, more than the limit of ${DEFAULTS.graphql.maxCost}`),
      );
    }
  });

  it('counts a page size passed as a variable as its value, and an absent one as the default page of 20', async () => {
    const aliasedMonths = (first: string) =>
      `${range(24)
        .map((i) => `m${i}: ${MONTH_VIEW(first)}`)
        .join(' ')}`;
    const byVariable = `query ($first: Int) { ${aliasedMonths('$first')} }`;
    expect(messages((await postGraphQL(server, byVariable, { variables: { first: 10 } })).body)).toEqual([]);
    const refused = await postGraphQL(server, byVariable, { variables: { first: 100 } });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COSTLY');
    // Left out, the page is the default one (20 events), whose cost is a fifth of a full page's.
    const defaultPage = (await postGraphQL(server, `query ($first: Int) { ${aliasedMonths('$first')} }`)).body;
    expect(messages(defaultPage)).toEqual([]);
  });

  it('follows named and inline fragments, and counts only the operation executed', async () => {
    // Two levels of pages of ten children (a third level would pass GRAPHQL_MAX_DEPTH: each connection is three levels).
    const fragments = `fragment Children on EventCategory {
        children(first: 10) { edges { node { name ... on EventCategory { children(first: 10) { edges { node { name } } } } } } }
      }
      query Costly { ${range(10)
        .map((i) => `c${i}: eventCategories(first: 100) { edges { node { name ...Children } } }`)
        .join(' ')} }
      query Cheap { eventCategories(first: 1) { edges { node { name ...Children } } } }`;
    expect((await postGraphQL(server, fragments, { operationName: 'Costly' })).body.errors?.[0]?.extensions?.code).toBe(
      'QUERY_TOO_COSTLY',
    );
    expect(messages((await postGraphQL(server, fragments, { operationName: 'Cheap' })).body)).toEqual([]);
  });

  it('refuses over GraphQL over GET too', async () => {
    const response = await fetch(`${server.url}/graphql?query=${encodeURIComponent(NESTED_PAGES)}`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].extensions.code).toBe('QUERY_TOO_COSTLY');
  });

  it('refuses a document nesting brackets thousands of levels deep with QUERY_TOO_DEEP, and a variable with BAD_USER_INPUT', async () => {
    const literal = await postGraphQL(
      server,
      `{ events(filter: { categories: ${'['.repeat(5_000)}"a"${']'.repeat(5_000)} }) { totalCount } }`,
    );
    expect(literal.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_DEEP');
    const raw = `{"query": "query ($filter: EventsFilter) { events(filter: $filter) { totalCount } }", "variables": {"filter": {"categories": ${'['.repeat(5_000)}"a"${']'.repeat(5_000)}}}}`;
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: raw,
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toMatch(
      /^\$filter\.categories(\.0)+: values may be nested at most 32 levels deep\.$/,
    );
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('refuses a REST JSON body nested 5,000 levels deep with 400 rest_body_too_deep', async () => {
    const rest = restClient(server);
    const refused = await rest.post('/events', {
      raw: `{"title": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    assertSchema('error', refused.body);
    expect([refused.status, refused.body.code]).toEqual([400, 'rest_body_too_deep']);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('refuses a list of more than 100 items and text with a NUL character, in the variables and in the document', async () => {
    const include = (n: number) => range(n).map((i) => i + 1);
    const byVariable = 'query ($filter: EventsFilter) { events(filter: $filter) { totalCount } }';
    expect(
      messages((await postGraphQL(server, byVariable, { variables: { filter: { include: include(100) } } })).body),
    ).toEqual([]);
    const long = await postGraphQL(server, byVariable, { variables: { filter: { include: include(101) } } });
    expect(long.body.errors).toEqual([
      { message: '$filter.include: a list may hold at most 100 items.', extensions: { code: 'BAD_USER_INPUT' } },
    ]);
    const nul = await postGraphQL(server, byVariable, { variables: { filter: { search: 'a\u0000b' } } });
    expect(nul.body.errors).toEqual([
      {
        message: '$filter.search: text may not contain the NUL character (U+0000).',
        extensions: { code: 'BAD_USER_INPUT' },
      },
    ]);
    for (const literal of [`include: [${include(101).join(' ')}]`, 'search: "a\\u0000b"']) {
      const { body } = await postGraphQL(server, `{ events(filter: { ${literal} }) { totalCount } }`);
      expect(body.errors?.[0]?.message).toMatch(
        /^Argument value: (a list may hold at most 100 items|text may not contain the NUL character)/,
      );
      expect(body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    }
  });

  it('answers the refusals with 400 to a client that accepts application/graphql-response+json', async () => {
    const refused = await postGraphQL(
      server,
      `{ ${range(DEFAULTS.graphql.maxAliases + 1)
        .map((i) => `a${i}: viewer { id }`)
        .join(' ')} }`,
      {
        accept: 'application/graphql-response+json',
      },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('TOO_MANY_ALIASES');
  });

  it("admits every document the REST layer runs, sent to /graphql (as the benchmark does), and GraphiQL's introspection", async () => {
    const dir = new URL('../src/read/operations/', import.meta.url);
    const definitions = readdirSync(dir)
      .filter((file) => file.endsWith('.graphql'))
      .flatMap((file) => parse(readFileSync(new URL(file, dir), 'utf8')).definitions);
    const fragments = new Map(
      definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])),
    );
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
      const refusals = (body.errors ?? []).filter((error) =>
        /^GRAPHQL_(VALIDATION|PARSE)_FAILED$/.test(error.extensions?.code ?? ''),
      );
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

describe('every error a client can cause carries extensions.code', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  const cursor = (text: string) => Buffer.from(text).toString('base64');
  it.each([
    ['a negative first', '{ events(first: -1) { totalCount } }', {}, undefined, 'BAD_USER_INPUT'],
    ['a first above 100', '{ venues(first: 101) { totalCount } }', {}, undefined, 'BAD_USER_INPUT'],
    ['a negative last', '{ organizers(last: -5) { totalCount } }', {}, undefined, 'BAD_USER_INPUT'],
    [
      'a cursor that is not base64',
      '{ events(after: "not a cursor!") { totalCount } }',
      {},
      undefined,
      'BAD_USER_INPUT',
    ],
    [
      'a cursor of another kind',
      `{ eventTags(before: "${cursor('OffsetConnection:abc')}") { totalCount } }`,
      {},
      undefined,
      'BAD_USER_INPUT',
    ],
    [
      'a cursor with a negative offset',
      `{ venues(after: "${cursor('OffsetConnection:-4')}") { totalCount } }`,
      {},
      undefined,
      'BAD_USER_INPUT',
    ],
    [
      'a variable of the wrong type',
      'query ($first: Int) { events(first: $first) { totalCount } }',
      { first: 'ten' },
      undefined,
      'BAD_USER_INPUT',
    ],
    ['a required variable left out', 'query ($id: ID!) { event(id: $id) { title } }', {}, undefined, 'BAD_USER_INPUT'],
    [
      'nested lists where text goes',
      'query ($filter: EventsFilter) { events(filter: $filter) { totalCount } }',
      { filter: { categories: [[['a']]] } },
      undefined,
      'BAD_USER_INPUT',
    ],
    ['orderBy: null on eventTags', '{ eventTags(orderBy: null) { totalCount } }', {}, undefined, 'BAD_USER_INPUT'],
    [
      'order: null on eventCategories',
      '{ eventCategories(order: null) { totalCount } }',
      {},
      undefined,
      'BAD_USER_INPUT',
    ],
    [
      'orderBy: null as a variable',
      'query ($by: TermOrderBy) { eventCategories(orderBy: $by) { totalCount } }',
      { by: null },
      undefined,
      'BAD_USER_INPUT',
    ],
    ['an unknown operation name', 'query A { viewer { login } }', {}, 'B', 'OPERATION_RESOLUTION_FAILURE'],
    ['an unknown field', '{ events { nothing } }', {}, undefined, 'GRAPHQL_VALIDATION_FAILED'],
    ['a document that does not parse', '{ events(first: ) }', {}, undefined, 'GRAPHQL_PARSE_FAILED'],
  ] as const)('answers %s with its code', async (_, query, variables, operationName, code) => {
    const { status, body } = await postGraphQL(server, query, { variables, operationName });
    expect(status).toBeLessThan(500);
    expect(body.errors?.length, JSON.stringify(body)).toBeGreaterThan(0);
    expect(body.errors?.map((error) => error.extensions?.code)).toEqual(body.errors?.map(() => code));
  });

  it('names the argument or variable at fault', async () => {
    const page = await postGraphQL(server, '{ events(first: -1, after: "x") { totalCount } }');
    expect(page.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { first: expect.any(String), after: expect.any(String) },
    });
    const variable = await postGraphQL(server, 'query ($first: Int) { events(first: $first) { totalCount } }', {
      variables: { first: 'ten' },
    });
    expect(variable.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', variable: 'first' });
    const order = await postGraphQL(server, '{ eventTags(orderBy: null) { totalCount } }');
    expect(order.body.errors?.[0]?.extensions).toMatchObject({ fields: { orderBy: expect.any(String) } });
  });
});

describe('the response size guard', () => {
  const MAX_FIELDS = 200;
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ GRAPHQL_MAX_RESPONSE_FIELDS: String(MAX_FIELDS) });
    await Promise.all(
      range(30).map((i) => createEvent(server, { title: `Guarded ${i}`, tags: [`guard-${i}`, 'guarded'] })),
    );
  });
  afterAll(() => server?.close());

  const page = (first: number) =>
    `{ events(first: ${first}) { edges { node { title startsAt tags { name slug } } } } }`;

  it('answers a query whose answer stays within GRAPHQL_MAX_RESPONSE_FIELDS', async () => {
    const data = await server.gqlOk(page(5));
    expect(data.events.edges).toHaveLength(5);
  });

  it('stops a query whose answer grows past GRAPHQL_MAX_RESPONSE_FIELDS with 400 RESPONSE_TOO_LARGE, and keeps answering', async () => {
    const refused = await postGraphQL(server, page(30));
    expect(refused.status).toBe(400);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors).toEqual([
      {
        message: `The answer would hold more than ${MAX_FIELDS} fields and was stopped: ask for smaller pages or fewer nested lists.`,
        extensions: { code: 'RESPONSE_TOO_LARGE', maxFields: MAX_FIELDS },
      },
    ]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await server.gqlOk(page(5))).events.edges).toHaveLength(5);
  });

  it("leaves REST's in-process operations alone (their pages hold at most 50 records)", async () => {
    const list = await restClient(server).get('/events', {
      query: { per_page: 30, start_date: '2030-01-01', end_date: '2030-12-31' },
    });
    expect(list.status, list.text).toBe(200);
    expect(list.body.events).toHaveLength(30);
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
    expect(refused.body).toEqual({
      code: 'rest_request_too_large',
      message: `The request body is larger than the limit of ${MAX_BODY_BYTES} bytes.`,
      data: { status: 413 },
    });
    const form = await rest.put('/events/1', { form: { description: 'd'.repeat(MAX_BODY_BYTES) } });
    expect([form.status, form.body.code]).toEqual([413, 'rest_request_too_large']);
  });

  it('answers 413 to a streamed REST body as soon as it passes the limit, without waiting for its end', async () => {
    const answer = await streamUntilAnswered(
      server.url,
      '/wp-json/calendar/events/v1/events',
      { 'content-type': 'application/json', authorization: ADMIN_AUTHORIZATION },
      50 * MAX_BODY_BYTES,
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).code).toBe('rest_request_too_large');
    expect(answer.sent).toBeLessThan(50 * MAX_BODY_BYTES);
  });

  it('answers 413 REQUEST_ENTITY_TOO_LARGE to a GraphQL body over the limit, declared or streamed', async () => {
    const query = `{ viewer { id } }${' '.repeat(MAX_BODY_BYTES)}`;
    const declared = await postGraphQL(server, query);
    expect(declared.status).toBe(413);
    expect(declared.body.errors?.[0]?.extensions?.code).toBe('REQUEST_ENTITY_TOO_LARGE');
    const streamed = await streamUntilAnswered(
      server.url,
      '/graphql',
      { 'content-type': 'application/json' },
      50 * MAX_BODY_BYTES,
    );
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).errors[0].extensions.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });

  it("applies the GraphQL limits to /graphql only: REST's in-process operations are never refused by them", async () => {
    expect(messages((await postGraphQL(server, '{ events(first: 1) { edges { node { id } } } }')).body)[0]).toMatch(
      /limit of \d+ exceeded|more than \d+ tokens/,
    );
    const rest = restClient(server);
    const created = await rest.post('/events', {
      json: {
        title: 'Within limits',
        start_date: '2030-02-01 10:00:00',
        end_date: '2030-02-01 12:00:00',
        venue: { venue: 'Hall', city: 'Berlin' },
        organizer: { organizer: 'Org' },
        categories: ['Jazz'],
        tags: ['Loud'],
      },
    });
    expect(created.status, created.text).toBe(201);
    const list = await rest.get('/events', {
      query: { start_date: '2030-01-01', end_date: '2030-12-31', per_page: 50 },
    });
    expect(list.status, list.text).toBe(200);
    expect(list.body.events.length).toBeGreaterThan(0);
    expect(list.body.events.some((event: { venue: unknown }) => !Array.isArray(event.venue))).toBe(true);
    for (const route of ['/venues', '/organizers', '/categories', '/tags'])
      expect((await rest.get(route)).status, route).toBe(200);
  });

  it('refuses a REST list parameter of more than 100 items and text with a NUL character, naming the parameter', async () => {
    const rest = restClient(server);
    const ids = (n: number) =>
      range(n)
        .map((i) => i + 1)
        .join(',');
    expect((await rest.get('/events', { query: `include=${ids(100)}` })).status).toBe(200);
    for (const query of [`include=${ids(101)}`, 'search=a%00b', 'categories[]=a%00b']) {
      const refused = await rest.get('/events', { query });
      assertSchema('error', refused.body);
      expect([refused.status, refused.body.code, Object.keys(refused.body.data.params)], query).toEqual([
        400,
        'rest_invalid_param',
        [query.split(/[=[]/)[0]],
      ]);
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
    .map(
      (i) =>
        `e${i}: events(first: $first) { totalCount edges { node { id title venues { name } organizers { name } categories { name parent { name } } tags { name } } } }`,
    )
    .join(' ')} }`;

  beforeAll(async () => {
    server = await startServer();
    const venue = await createVenue(server);
    const category = await createCategory(server);
    await Promise.all(
      range(30).map((i) =>
        createEvent(server, {
          title: `Timed ${i}`,
          venues: [{ id: venue.id }],
          categories: [category.slug],
          tags: [`tag-${i}`],
        }),
      ),
    );
    // A second server on the same database, answering within 1 ms: any real request takes longer.
    const config: Config = {
      ...server.app.config,
      logLevel: 'silent',
      limits: { ...server.app.config.limits, requestTimeoutMs: 1 },
    };
    const app = await createApp(config, { countQueries: true });
    const listening = await listen(app, 0, '127.0.0.1');
    slow = { app, server: listening, url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}` };
  });
  afterAll(async () => {
    if (slow) await shutdown(slow.server, slow.app);
    await server?.close();
  });

  it('answers a GraphQL request past REQUEST_TIMEOUT_MS with 503 REQUEST_TIMEOUT, and starts no statement after it', async () => {
    // Measured warm, as the slow server will run it: both share this process's per-data-version memos. (Other
    // variables for the measured run: the response cache keeps the first answer, and would answer it again.)
    await server.gqlOk(HEAVY, { first: 50 });
    const normal = await server.countQueries(() => server.gqlOk(HEAVY, { first: 49 }));
    expect(normal).toBeGreaterThan(20);

    const before = slow.app.queries.count;
    const response = await fetch(`${slow.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: HEAVY, variables: { first: 50 } }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      errors: [
        { message: 'The request took longer than 1 ms and was stopped.', extensions: { code: 'REQUEST_TIMEOUT' } },
      ],
    });
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
    expect(body).toEqual({
      code: 'rest_request_timeout',
      message: 'The request took longer than 1 ms and was stopped.',
      data: { status: 503 },
    });
  });
});

describe('limit settings', () => {
  it('refuses a limit that is not a whole number, naming the variable', () => {
    expect(() => loadConfig({ MAX_BODY_BYTES: '1mb' })).toThrow(ConfigError);
    expect(() => loadConfig({ GRAPHQL_MAX_DEPTH: '0' })).toThrow(
      /GRAPHQL_MAX_DEPTH must be a whole number of at least 1/,
    );
    expect(() => loadConfig({ GRAPHQL_INTROSPECTION: 'no' })).toThrow(/GRAPHQL_INTROSPECTION must be true or false/);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '0' }).limits.requestTimeoutMs).toBe(0);
  });
});
