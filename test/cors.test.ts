import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVenue } from './support/factories.js';
import { startServer, type TestServer } from './support/server.js';

// CORS as WordPress answers it for its REST API, for REST and GraphQL alike (createCors in
// src/http/representation.ts): the request's origin reflected with credentials, or, with CORS_ORIGINS, only the
// origins listed; a refused origin gets no CORS headers and a 403 preflight in the API's error shape.

const REST = '/wp-json/calendar/events/v1';
const PAGE = 'https://app.example';
const LISTED = [PAGE, 'http://localhost:5173'];

let open: TestServer;
let listed: TestServer;
beforeAll(async () => {
  [open, listed] = await Promise.all([startServer(), startServer({ CORS_ORIGINS: LISTED.join(' , ') })]);
  await createVenue(open);
}, 60_000);
afterAll(async () => {
  await Promise.all([open?.close(), listed?.close()]);
});

const varyOf = (response: Response) => (response.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/);
const corsHeadersOf = (response: Response) =>
  [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));

function expectReflected(response: Response, origin: string) {
  expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  expect(response.headers.get('access-control-allow-credentials')).toBe('true');
  const exposed = (response.headers.get('access-control-expose-headers') ?? '').split(/\s*,\s*/);
  expect(exposed).toEqual(
    expect.arrayContaining(['X-WP-Total', 'X-WP-TotalPages', 'X-TEC-Total', 'X-TEC-TotalPages', 'Link', 'ETag']),
  );
  expect(varyOf(response)).toContain('origin');
}

function expectNoCors(response: Response) {
  expect(corsHeadersOf(response)).toEqual([]);
  expect(varyOf(response)).toContain('origin');
}

const graphqlPost = (
  server: TestServer,
  headers: Record<string, string>,
  query = '{ venues(first: 1) { totalCount } }',
) =>
  fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });

const preflight = (server: TestServer, path: string, origin: string, method = 'PUT', requestHeaders?: string) =>
  fetch(`${server.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      ...(requestHeaders ? { 'access-control-request-headers': requestHeaders } : {}),
    },
  });

describe('CORS with the default CORS_ORIGINS (any origin)', () => {
  it('reflects the origin with credentials and the exposed headers on REST lists, records and the index', async () => {
    for (const path of [
      `${REST}/venues`,
      `${REST}/events`,
      `${REST}/`,
      '/wp-json/',
      `/?rest_route=/calendar/events/v1/venues`,
    ]) {
      const response = await fetch(`${open.url}${path}`, { headers: { origin: PAGE } });
      expect(response.status, path).toBe(200);
      expectReflected(response, PAGE);
    }
  });

  it('reflects the origin on GraphQL over POST and GET', async () => {
    expectReflected(await graphqlPost(open, { origin: 'http://localhost:5173' }), 'http://localhost:5173');
    const get = await fetch(`${open.url}/graphql?query=${encodeURIComponent('{ venues(first: 1) { totalCount } }')}`, {
      headers: { origin: PAGE, accept: 'application/json' },
    });
    expect(get.status).toBe(200);
    expectReflected(get, PAGE);
  });

  it('names no origin without an Origin (only, as WordPress, the headers exposed and allowed), and says the answer varies by it', async () => {
    for (const response of [await fetch(`${open.url}${REST}/venues`), await graphqlPost(open, {})]) {
      expect(corsHeadersOf(response).sort()).toEqual(['access-control-allow-headers', 'access-control-expose-headers']);
      expect(response.headers.get('access-control-expose-headers')).toContain('X-TEC-Total');
      expect(varyOf(response)).toContain('origin');
    }
  });

  it('refuses to reflect an origin that is not one: null, paths, user information, lists, wildcards, bad ports', async () => {
    const notOrigins = [
      'null',
      '*',
      `${PAGE}/`,
      `${PAGE}/path`,
      `${PAGE}?x=1`,
      `${PAGE}#x`,
      'https://user:pass@app.example',
      `${PAGE} https://evil.example`,
      `${PAGE},https://evil.example`,
      'https://app.example:99999',
      'https://app.example:',
      'app.example',
      '//app.example',
      'javascript:alert(1)',
      'data:text/html,x',
      'https://',
      'https://app..example',
      `https://${'a'.repeat(600)}.example`,
    ];
    for (const origin of notOrigins) {
      expectNoCors(await fetch(`${open.url}${REST}/venues`, { headers: { origin } }));
      expectNoCors(await graphqlPost(open, { origin }));
      const refused = await preflight(open, `${REST}/venues`, origin);
      expect(refused.status, origin).toBe(403);
      expect(corsHeadersOf(refused), origin).toEqual([]);
    }
  });

  it('accepts origins with ports, IPv6 literals and other schemes, as browsers send them', async () => {
    for (const origin of [
      'http://127.0.0.1:8080',
      'http://[::1]:3000',
      'capacitor://localhost',
      'chrome-extension://abcdefghijklmnop',
    ]) {
      expectReflected(await fetch(`${open.url}${REST}/venues`, { headers: { origin } }), origin);
    }
  });

  it('answers a REST preflight 204 with the methods, the headers asked for that are safe, and a max age', async () => {
    const response = await preflight(
      open,
      `${REST}/venues/1`,
      PAGE,
      'DELETE',
      'Authorization, content-type, X-Custom-Trace, X-Forwarded-For, Cookie, Sec-Fetch-Mode, bad header',
    );
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
    expect(response.headers.get('access-control-max-age')).toBe('600');
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(allowed).toEqual(
      expect.arrayContaining([
        'authorization',
        'content-type',
        'x-wp-nonce',
        'x-requested-with',
        'if-none-match',
        'x-custom-trace',
      ]),
    );
    for (const refused of ['x-forwarded-for', 'cookie', 'sec-fetch-mode', 'bad header'])
      expect(allowed, refused).not.toContain(refused);
    expect(varyOf(response)).toEqual(
      expect.arrayContaining(['origin', 'access-control-request-method', 'access-control-request-headers']),
    );
  });

  it('answers a GraphQL preflight the same way (GraphQL Yoga does not decide CORS)', async () => {
    const response = await preflight(open, '/graphql', PAGE, 'POST', 'content-type, authorization');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
  });

  it('keeps a plain REST OPTIONS (no Access-Control-Request-Method) as the route description, with CORS headers', async () => {
    const response = await fetch(`${open.url}${REST}/venues`, { method: 'OPTIONS', headers: { origin: PAGE } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { namespace: string }).namespace).toBe('calendar/events/v1');
    expectReflected(response, PAGE);
  });

  it('puts CORS headers on errors and 304s, so a page can read them', async () => {
    const notFound = await fetch(`${open.url}${REST}/events/999999`, { headers: { origin: PAGE } });
    expect(notFound.status).toBe(404);
    expectReflected(notFound, PAGE);
    const noRoute = await fetch(`${open.url}/nowhere`, { headers: { origin: PAGE } });
    expect(noRoute.status).toBe(404);
    expectReflected(noRoute, PAGE);
    const badCredentials = await fetch(`${open.url}${REST}/venues`, {
      headers: { origin: PAGE, authorization: 'Basic bm9ib2R5Om5vdGhpbmc=' },
    });
    expect(badCredentials.status).toBe(401);
    expectReflected(badCredentials, PAGE);
    const badQuery = await graphqlPost(open, { origin: PAGE, accept: 'application/graphql-response+json' }, '{ nope');
    expect(badQuery.status).toBe(400);
    expectReflected(badQuery, PAGE);
    const first = await fetch(`${open.url}${REST}/venues`, { headers: { origin: PAGE } });
    const revalidated = await fetch(`${open.url}${REST}/venues`, {
      headers: { origin: PAGE, 'if-none-match': first.headers.get('etag')! },
    });
    expect(revalidated.status).toBe(304);
    expectReflected(revalidated, PAGE);
  });

  it('never answers one origin with another from the response cache', async () => {
    const url = `${open.url}${REST}/venues?per_page=3`;
    for (const origin of [PAGE, 'https://other.example', PAGE]) {
      expectReflected(await fetch(url, { headers: { origin } }), origin);
    }
    expect((await fetch(url)).headers.get('access-control-allow-origin')).toBeNull();
    expectNoCors(await fetch(url, { headers: { origin: 'null' } }));
  });
});

describe('CORS with CORS_ORIGINS listing origins', () => {
  const refusedOrigins = [
    'https://evil.example',
    'https://app.example.evil.example',
    'http://app.example',
    'https://app.example:443',
    'HTTPS://APP.EXAMPLE',
    'http://localhost:5174',
    'null',
  ];

  it('reflects a listed origin on REST and GraphQL', async () => {
    for (const origin of LISTED) {
      expectReflected(await fetch(`${listed.url}${REST}/venues`, { headers: { origin } }), origin);
      expectReflected(await graphqlPost(listed, { origin }), origin);
      const allowed = await preflight(listed, '/graphql', origin, 'POST');
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
    }
  });

  it('answers an unlisted origin without CORS headers (the request itself is served)', async () => {
    for (const origin of refusedOrigins) {
      const response = await fetch(`${listed.url}${REST}/venues`, { headers: { origin } });
      expect(response.status, origin).toBe(200);
      expectNoCors(response);
      expectNoCors(await graphqlPost(listed, { origin }));
    }
  });

  it("refuses an unlisted origin's REST preflight with 403 in the WordPress error shape", async () => {
    for (const origin of refusedOrigins) {
      const response = await preflight(listed, `${REST}/events`, origin, 'POST', 'authorization');
      expect(response.status, origin).toBe(403);
      expect(corsHeadersOf(response)).toEqual([]);
      const body = (await response.json()) as { code: string; message: string; data: { status: number } };
      expect(body.code).toBe('rest_cors_origin_not_allowed');
      expect(body.data.status).toBe(403);
      expect(body.message).toContain(origin);
    }
  });

  it("refuses an unlisted origin's GraphQL preflight with 403 as a GraphQL error", async () => {
    const response = await preflight(listed, '/graphql', 'https://evil.example', 'POST', 'content-type');
    expect(response.status).toBe(403);
    expect(corsHeadersOf(response)).toEqual([]);
    const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('FORBIDDEN');
  });
});

describe('CORS on an unexpected error', () => {
  let broken: TestServer;
  beforeAll(async () => {
    broken = await startServer({}, { logTo: { write: () => {} } });
  }, 60_000);
  afterAll(async () => {
    await broken?.close();
  });

  it('answers 500 with CORS headers, so that a page can read the error', async () => {
    // A table the queries need is gone: every read of venues fails unexpectedly, in REST and GraphQL.
    const schema =
      broken.app.config.engine === 'postgres'
        ? `"${new URL(broken.app.config.databaseUrl).searchParams.get('schema') ?? 'public'}".`
        : '';
    await broken.app.db.$executeRawUnsafe(`ALTER TABLE ${schema}"Venue" RENAME TO "VenueGone"`);
    const rest = await fetch(`${broken.url}${REST}/venues`, { headers: { origin: PAGE } });
    expect(rest.status).toBe(500);
    expect(((await rest.json()) as { code: string }).code).toBe('rest_internal_error');
    expectReflected(rest, PAGE);
    expect(rest.headers.get('cache-control')).toBe('no-store');
    const graphql = await graphqlPost(broken, { origin: PAGE });
    expect(((await graphql.json()) as { errors: unknown[] }).errors.length).toBeGreaterThan(0);
    expectReflected(graphql, PAGE);
  });
});
