import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type ChildServer } from '../bench/processes.js';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { createEvent, createOrganizer, createVenue } from './support/factories.js';
import { call } from './support/rest.js';
import { isPublicAddress } from '../src/net/public-address.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// Regression tests for the second adversarial audit (issue 24), the rows about what a request may carry: GraphQL
// documents (24.1), request parameters (24.10), the headers of HTML pages (24.11), embedded IPv4 addresses (24.12)
// and change-feed cursors (24.13). Each failed before its fix.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** Runs `task(0 … count-1)` with at most `concurrency` at a time. */
async function pool<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

describe('unique large GraphQL documents cannot exhaust the heap (24.1)', () => {
  let dir: string;
  let database: TestDatabase;
  let service: ChildServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-documents-'));
    database = await freshDatabase(dir);
    // As `npm start` runs it: the compiled server with --max-old-space-size=256.
    service = await startService(database.url, 'http://calendar.test', { responseCache: true, workers: 1 });
  }, 120_000);
  afterAll(async () => {
    await service?.kill();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Documents a client can send anonymously, each unique so that no cache hit spares the server its work. */
  const floods = {
    // 900 KB of whitespace and a comment: under the 1 MiB body limit, six tokens.
    padded: (n: number) => ({ query: `{ __typename }${' '.repeat(900_000)}# ${n}` }),
    // 5,000 tokens (the limit) in 625 small operations, about 19 KB: an AST of some 1.6 MB once parsed.
    dense: (n: number) => ({
      query: Array.from({ length: 625 }, (_, i) => `query Q${n}x${i} { viewer { id } }`).join('\n'),
    }),
    // Automatic persisted queries registering 400 KB documents under their hash.
    registered: (n: number) => {
      const query = `{ __typename }${'\n'.repeat(400_000)}# ${n}`;
      return { query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(query) } } };
    },
  };

  async function send(body: unknown): Promise<{ status: number; code?: string }> {
    const response = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
    return { status: response.status, code: answer.errors?.[0]?.extensions?.code };
  }

  /** A second client's reads, one after another while `running`: REST, GraphQL, and /healthz; their slowest time. */
  async function readWhile(running: () => boolean) {
    const slowest = { ms: 0, failures: [] as string[] };
    const timed = async (label: string, request: () => Promise<Response>) => {
      const started = performance.now();
      const response = await request().catch((error: Error) => ({ status: error.message }) as unknown as Response);
      slowest.ms = Math.max(slowest.ms, performance.now() - started);
      if (response.status !== 200) slowest.failures.push(`${label}: ${response.status}`);
      await response.arrayBuffer?.();
    };
    for (let n = 0; running(); n++) {
      await timed('rest', () => fetch(`${service.url}/wp-json/calendar/events/v1/events?search=reader${n}`));
      await timed('graphql', () =>
        fetch(`${service.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `{ events(first: 5, filter: { search: "r${n}" }) { totalCount } }` }),
        }),
      );
      await timed('healthz', () => fetch(`${service.url}/healthz`));
      await sleep(50);
    }
    return slowest;
  }

  it('stays alive with a bounded heap, /healthz and a second client answered fast, under hundreds of them', {
    timeout: 120_000,
  }, async () => {
    service.resetWindow();
    let flooding = true;
    const reads = readWhile(() => flooding);
    const kinds = Object.values(floods);
    const answers = await pool(600, 4, async (n) => {
      const body = kinds[n % kinds.length]!(n);
      return send(body).catch((error: Error) => ({
        status: 0,
        code: `${error.message} (${(error.cause as Error)?.message})`,
      }));
    }).finally(() => (flooding = false));
    const { ms, failures } = await reads;

    // Each is answered with a client error's code; none kills the process (0: a connection the process dropped).
    const unanswered = answers.filter((answer) => answer.status === 0 || answer.status >= 500 || !answer.code);
    expect(unanswered.length, JSON.stringify(unanswered[0])).toBe(0);
    // Too long to parse (GRAPHQL_MAX_DOCUMENT_BYTES), whether sent to run or to register; the dense ones are parsed.
    expect(new Set(answers.filter((_, n) => n % kinds.length !== 1).map((answer) => answer.code))).toEqual(
      new Set(['QUERY_TOO_LARGE']),
    );
    expect(service.windowPeakMb(), 'resident memory during the flood, MB').toBeLessThan(400);
    expect(failures).toEqual([]);
    expect(ms, 'the slowest read of the second client, ms').toBeLessThan(3000);
    const health = await fetch(`${service.url}/healthz`);
    expect(health.status).toBe(200);
  });
});

/** The server of the tests that need no process of their own. */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

describe('malformed GraphQL request parameters (24.10)', () => {
  async function graphql(path: string, init: RequestInit = {}) {
    const response = await fetch(`${server.url}${path}`, {
      ...init,
      headers: { accept: 'application/json', ...init.headers },
    });
    const body = (await response.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
    return { status: response.status, code: body.errors?.[0]?.extensions?.code, message: body.errors?.[0]?.message };
  }
  const post = (body: unknown, contentType = 'application/json') =>
    graphql('/graphql', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('answers variables or extensions that are not JSON, in a URL or a form, with 400 BAD_REQUEST naming the parameter', async () => {
    for (const name of ['variables', 'extensions']) {
      for (const text of ['{', '{"a":', 'undefined', "{'a':1}"]) {
        const query = new URLSearchParams({ query: '{ __typename }', [name]: text });
        const viaGet = await graphql(`/graphql?${query}`);
        expect(viaGet, `GET ${name}=${text}`).toEqual({
          status: 400,
          code: 'BAD_REQUEST',
          message: expect.stringContaining(`The "${name}" parameter is not valid JSON`),
        });
        const viaForm = await post(query.toString(), 'application/x-www-form-urlencoded');
        expect([viaForm.status, viaForm.code], `form ${name}=${text}`).toEqual([400, 'BAD_REQUEST']);
      }
    }
  });

  it('answers variables, extensions and operationName of the wrong JSON type with 400 BAD_REQUEST', async () => {
    for (const value of ['text', ['a'], 3, true]) {
      for (const name of ['variables', 'extensions', 'operationName']) {
        if (name === 'operationName' && typeof value === 'string') continue;
        const answer = await post({ query: 'query Q { __typename }', [name]: value });
        expect([answer.status, answer.code], `${name}: ${JSON.stringify(value)}`).toEqual([400, 'BAD_REQUEST']);
      }
    }
    expect(
      await post({ query: 'query Q { __typename }', operationName: 'Q', variables: null, extensions: null }),
    ).toMatchObject({ status: 200 });
  });
});

describe('browsers are told how to treat each answer (24.11)', () => {
  /** A Content-Security-Policy header as directive → its values. */
  const policyOf = (response: Response) =>
    Object.fromEntries(
      (response.headers.get('content-security-policy') ?? '')
        .split(';')
        .map((directive) => directive.trim().split(/\s+/))
        .filter(([name]) => name)
        .map(([name, ...values]) => [name!, values]),
    );

  it('serves every public page, error pages included, with a script-free Content-Security-Policy, frame-ancestors, nosniff and a Referrer-Policy', async () => {
    const venue = await createVenue(server);
    const organizer = await createOrganizer(server);
    const event = await createEvent(server, {
      venues: [{ id: String(venue.id) }],
      organizers: [{ id: String(organizer.id) }],
    });
    const pages = [
      [`/event/${event.slug}/`, 'GET', 200],
      [`/venue/${venue.slug}/`, 'GET', 200],
      [`/organizer/${organizer.slug}/`, 'GET', 200],
      ['/events/', 'GET', 200],
      ['/events/?month=2030-01', 'GET', 200],
      ['/event/no-such-event/', 'GET', 404],
      ['/events/', 'POST', 405],
    ] as const;
    for (const [path, method, status] of pages) {
      const response = await fetch(`${server.url}${path}`, { method });
      expect([response.status, response.headers.get('content-type')], path).toEqual([
        status,
        'text/html; charset=utf-8',
      ]);
      const policy = policyOf(response);
      expect(policy, path).toMatchObject({
        'default-src': ["'none'"],
        'style-src': [expect.stringMatching(/^'sha256-[A-Za-z0-9+/]+=*'$/)],
        'base-uri': ["'none'"],
        'form-action': ["'none'"],
        'frame-ancestors': ["'self'"],
      });
      // Nothing may run: no script-src, and default-src allows nothing.
      expect(policy['script-src'], path).toBeUndefined();
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), path).toBe('strict-origin-when-cross-origin');
    }
  });

  it("serves GraphiQL with a policy that allows only this service's own resources, frame-ancestors, nosniff and a Referrer-Policy", async () => {
    const response = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = policyOf(response);
    expect(policy).toMatchObject({
      'default-src': ["'self'"],
      'object-src': ["'none'"],
      'base-uri': ["'none'"],
      'frame-ancestors': ["'self'"],
    });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
  });

  it('marks every answer nosniff: REST, calendar feeds, GraphQL answers and errors, /healthz, remembered answers, 304s, preflights, unknown paths', async () => {
    const event = await createEvent(server);
    const rest = '/wp-json/calendar/events/v1';
    const first = await fetch(`${server.url}${rest}/events/${event.id}`);
    const requests: [string, RequestInit?][] = [
      [`${rest}/events/${event.id}`],
      [`${rest}/events/${event.id}`, { headers: { 'if-none-match': first.headers.get('etag')! } }],
      [`${rest}/events/999999`],
      [`${rest}/events/${event.id}.ics`],
      [`${rest}/events.ics`],
      ['/graphql?query=%7B__typename%7D'],
      ['/graphql?query=%7B__typename%7D'],
      [
        '/graphql',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' },
      ],
      ['/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ nope }"}' }],
      [
        '/graphql',
        { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } },
      ],
      ['/healthz'],
      ['/no/such/path'],
    ];
    for (const [path, init] of requests) {
      const response = await fetch(`${server.url}${path}`, init);
      await response.arrayBuffer();
      expect(
        response.headers.get('x-content-type-options'),
        `${init?.method ?? 'GET'} ${path} (${response.status})`,
      ).toBe('nosniff');
    }
  });
});

describe('IPv4 addresses carried inside IPv6 are judged as the IPv4 address (24.12)', () => {
  const notPublic = [
    // IPv4-compatible (::/96), the form `http://[::127.0.0.1]/` is written in by URL parsers
    '::7f00:1',
    '::127.0.0.1',
    '0:0:0:0:0:0:7f00:1',
    '::a00:1',
    '::a9fe:a9fe',
    '::c0a8:101',
    '::6440:1',
    '::1',
    '::',
    // IPv4-mapped (::ffff:0:0/96) and IPv4-translated (::ffff:0:0:0/96)
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:0:0',
    '::ffff:0:7f00:1',
    '::ffff:0:a00:1',
    // NAT64, well-known (64:ff9b::/96) and local-use (64:ff9b:1::/48, never globally reachable)
    '64:ff9b::7f00:1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::808:808',
    '64:ff9b:1:ffff::7f00:1',
    // 6to4 (2002::/16)
    '2002:7f00:1::1',
    '2002:a00:1::',
    '2002:a9fe:a9fe:1::1',
    '2002:c0a8:101::',
    // Teredo (2001::/32): client 127.0.0.1 or 10.0.0.1 (bits inverted), or a server at a private address
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001:0:4136:e378:8000:63bf:f5ff:fffe',
    '2001:0:a00:1:8000:63bf:f7f7:f7f7',
    // and the plain special ranges
    '127.0.0.1',
    '10.0.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '192.0.0.8',
    '198.18.0.1',
    '240.0.0.1',
    '224.0.0.1',
    'fe80::1',
    'fd00::1',
    'ff02::1',
    '2001:db8::1',
    '100::1',
    '3fff::1',
    '5f00::1',
    'fec0::1',
  ];
  const publicOnes = [
    '8.8.8.8',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '::808:808',
    '::ffff:0:808:808',
    '64:ff9b::808:808',
    '64:ff9b::1.1.1.1',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ];

  it('refuses every form of a non-public IPv4 address, and admits the forms of a public one', () => {
    expect(notPublic.filter(isPublicAddress)).toEqual([]);
    expect(publicOnes.filter((address) => !isPublicAddress(address))).toEqual([]);
  });

  it('refuses a webhook URL and an image URL at 127.0.0.1 written as ::7f00:1 or any other embedded form, creating nothing', async () => {
    const port = new URL(server.url).port;
    for (const host of [
      '[::7f00:1]',
      '[::127.0.0.1]',
      '[::ffff:0:7f00:1]',
      '[64:ff9b::7f00:1]',
      '[2002:7f00:1::]',
      '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
    ]) {
      const url = `http://${host}:${port}/`;
      const webhook = await server.gql(
        `mutation ($input: WebhookInput!) { createWebhook(input: $input) { webhook { id } } }`,
        { input: { url } },
      );
      expect(webhook.errors?.[0]?.extensions?.code, url).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(webhook.errors), url).toContain('private or local');
      // The test server may fetch images from 127.0.0.1 (IMAGE_FETCH_ALLOW_PRIVATE=127.0.0.1), not from these.
      const event = {
        title: 'Embedded',
        start_date: '2030-02-01 10:00:00',
        end_date: '2030-02-01 11:00:00',
        image: `${url}image.png`,
      };
      const image = await call(server, 'POST', '/events', {
        json: event,
        headers: { authorization: ADMIN_AUTHORIZATION },
      });
      expect([image.status, image.body.data?.details?.image?.message], url).toEqual([
        400,
        'image: may not be fetched: its host is a private or local network address',
      ]);
    }
    expect(await server.gqlOk(`{ webhooks { id } }`, {}, ADMIN_AUTHORIZATION)).toEqual({ webhooks: [] });
    expect(
      (
        await call(server, 'GET', '/events', { query: 'search=Embedded&start_date=2030-01-01&end_date=2030-12-31' })
      ).headers.get('x-tec-total'),
    ).toBe('0');
  });
});

describe('change-feed and list cursors are read exactly as they were handed out (24.13)', () => {
  const feed = (since: string) => call(server, 'GET', '/changes', { query: { since } });
  const feedOverGraphQL = (since: string) =>
    server.gql(`query ($since: String) { changes(since: $since) { next more nodes { databaseId } } }`, { since });

  /** Cursors made from a real one (`epoch:version.seq:signature` once decoded) by editing it as a client could. */
  function forgeries(cursor: string): Record<string, string> {
    const text = Buffer.from(cursor, 'base64url').toString('latin1');
    const [epoch, position, signature] = text.split(':') as [string, string, string | undefined];
    const [version, seq] = position.split('.') as [string, string];
    const encode = (forged: string) => Buffer.from(forged, 'latin1').toString('base64url');
    const flipped = signature ? `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}` : 'A';
    return {
      'the start of the log': encode(`${epoch}:0.0`),
      'an extra part': encode(`${epoch}:1.1:extra`),
      'an extra part after the whole cursor': encode(`${text}:extra`),
      'no signature': encode(`${epoch}:${position}`),
      'a signature of another position': encode(
        `${epoch}:${BigInt(version) - 1n}.${seq}${signature ? `:${signature}` : ''}`,
      ),
      'a changed signature': encode(`${epoch}:${position}:${flipped}`),
      'a leading zero': encode(`${epoch}:0${version}.${seq}${signature ? `:${signature}` : ''}`),
      'a sign': encode(`${epoch}:+${version}.${seq}${signature ? `:${signature}` : ''}`),
      whitespace: encode(` ${text}`),
      'a trailing newline': encode(`${text}\n`),
      'a version past 64 bits': encode(`${epoch}:99999999999999999999.${seq}`),
    };
  }

  it('answers 410 rest_changes_resync_required (invalid) to every cursor it did not hand out, and GraphQL RESYNC_REQUIRED', async () => {
    await createEvent(server);
    const since: string = (await call(server, 'GET', '/changes')).body.next;
    await createEvent(server);
    expect((await feed(since)).status).toBe(200);
    for (const [name, cursor] of Object.entries(forgeries(since))) {
      const rest = await feed(cursor);
      expect([rest.status, rest.body.code, rest.body.data?.reason], name).toEqual([
        410,
        'rest_changes_resync_required',
        'invalid',
      ]);
      const graphql = await feedOverGraphQL(cursor);
      expect([graphql.errors?.[0]?.extensions?.code, graphql.errors?.[0]?.extensions?.reason], name).toEqual([
        'RESYNC_REQUIRED',
        'invalid',
      ]);
    }
    // The cursors handed out, the fresh one of a 410 among them, are followed.
    const refused = await feed(forgeries(since)['the start of the log']!);
    expect((await feed(refused.body.data.next)).status).toBe(200);
    const page = await feedOverGraphQL(since);
    expect(page.errors).toBeUndefined();
    expect((await feed(page.data.changes.next)).status).toBe(200);
  });

  it("refuses a list's cursor that the list did not hand out with BAD_USER_INPUT: no extra part, leading zero, sign, whitespace or other base64", async () => {
    await createEvent(server);
    const page = await server.gqlOk(
      `{ events(first: 1, filter: { startDate: "2000-01-01" }) { pageInfo { endCursor } } }`,
    );
    const cursor: string = page.events.pageInfo.endCursor;
    const text = Buffer.from(cursor, 'base64').toString('utf8');
    expect(text).toMatch(/^OffsetConnection:\d+$/);
    const encode = (forged: string) => Buffer.from(forged).toString('base64');
    // The cursor of the eleventh record, as the list writes it: base64 with its padding.
    const padded = encode('OffsetConnection:10');
    expect(padded).toMatch(/=$/);
    const forged = [
      encode(`${text}:extra`),
      encode(text.replace(':', ':0')),
      encode(text.replace(':', ':+')),
      encode(text.replace(':', ': ')),
      encode(`${text}\n`),
      encode('OffsetConnection:1000000000'),
      encode('OffsetConnection:-1'),
      encode('OffsetConnection:1.0'),
      encode('offsetconnection:1'),
      padded.replace(/=+$/, ''),
      `${padded}=`,
      `${cursor}=`,
      ` ${cursor}`,
      `${cursor} `,
      `${cursor.slice(0, -1)}*`,
    ];
    for (const after of forged) {
      const answer = await server.gql(
        `query ($after: String) { events(first: 1, after: $after, filter: { startDate: "2000-01-01" }) { totalCount } }`,
        { after },
      );
      expect(answer.errors?.[0]?.extensions, after).toMatchObject({
        code: 'BAD_USER_INPUT',
        fields: { after: 'is not a cursor of this list' },
      });
    }
    for (const after of [cursor, padded]) {
      const next = await server.gql(
        `query ($after: String) { events(first: 1, after: $after, filter: { startDate: "2000-01-01" }) { totalCount } }`,
        { after },
      );
      expect(next.errors, after).toBeUndefined();
    }
  });
});
