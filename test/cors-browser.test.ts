import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminData } from './auth-fixtures.js';
import { createVenue } from './support/factories.js';
import { basicAuthorization, startServer, type TestServer } from './support/server.js';

// CORS in a real headless Chromium (Debian's, as in test/graphiql-browser.test.ts): a page served from another origin
// (a tiny node:http server on its own port) reads REST and GraphQL answers with and without credentials; a page from
// an origin CORS_ORIGINS does not list cannot read them.

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const REST = '/wp-json/calendar/events/v1';

/** A server of one empty page: the page's origin is what the test is about. */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>client</title>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let api: TestServer;
let allowed: { server: Server; origin: string };
let refused: { server: Server; origin: string };
let browser: Browser;
let authorization: string;
let login: string;
let venueName: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is needed at ${CHROMIUM}: apt-get install -y chromium (.ci/run installs it)`);
  [allowed, refused] = await Promise.all([pageServer(), pageServer()]);
  [api, browser] = await Promise.all([
    startServer({ CORS_ORIGINS: allowed.origin }),
    chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
  ]);
  venueName = (await createVenue(api, {}, 'name')).name;
  login = `cors-${Date.now()}`;
  const { user } = await adminData<{ user: { id: number } }>(
    api,
    `mutation { user: createUser(input: { login: "${login}", role: AUTHOR }) { id: databaseId } }`,
  );
  const { password } = await adminData<{ password: { secret: string } }>(
    api,
    `mutation { password: createApplicationPassword(name: "browser", userId: ${user.id}) { secret } }`,
  );
  authorization = basicAuthorization(login, password.secret);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await Promise.all(
    [allowed, refused].filter(Boolean).map(({ server }) => new Promise((resolve) => server.close(resolve))),
  );
});

async function openPage(origin: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${origin}/`);
  return page;
}

/** What a page's script gets from fetch: the answer it may read, or the error fetch rejected with. */
type Outcome =
  | { ok: true; status: number; json: any; headers: Record<string, string | null> }
  | { ok: false; error: string };

const fetchFromPage = (
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; credentials?: 'include' | 'omit' },
) =>
  page.evaluate(
    async ({ url, init }): Promise<Outcome> => {
      try {
        const response = await fetch(url, init);
        const names = ['etag', 'link', 'x-wp-total', 'x-tec-total', 'cache-control'];
        return {
          ok: true,
          status: response.status,
          json: await response.json(),
          headers: Object.fromEntries(names.map((name) => [name, response.headers.get(name)])),
        };
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    },
    { url, init },
  );

const graphqlInit = (query: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
  body: JSON.stringify({ query }),
});

describe('CORS in Chromium', { timeout: 120_000 }, () => {
  it('lets a page of a listed origin read REST and GraphQL anonymously, with the exposed headers', async () => {
    const page = await openPage(allowed.origin);
    const rest = await fetchFromPage(page, `${api.url}${REST}/venues`, {});
    expect(rest.ok && rest.status).toBe(200);
    if (!rest.ok) return;
    expect(rest.json.venues.map((venue: { venue: string }) => venue.venue)).toContain(venueName);
    expect(rest.headers.etag).toMatch(/^"/);
    expect(rest.headers.link).toContain('rel="https://api.w.org/"');
    const graphql = await fetchFromPage(
      page,
      `${api.url}/graphql`,
      graphqlInit('{ viewer { login } venues(first: 5) { totalCount } }'),
    );
    expect(graphql.ok && graphql.json.data).toEqual({ viewer: null, venues: { totalCount: 1 } });
    await page.close();
  });

  it("sends an application password with credentials: 'include' through the preflight, to REST and GraphQL", async () => {
    const page = await openPage(allowed.origin);
    const graphql = await fetchFromPage(page, `${api.url}/graphql`, {
      ...graphqlInit('{ viewer { login } }', { authorization }),
      credentials: 'include',
    });
    expect(graphql.ok && graphql.json.data).toEqual({ viewer: { login } });
    const rest = await fetchFromPage(page, `${api.url}${REST}/venues`, {
      headers: { authorization },
      credentials: 'include',
    });
    expect(rest.ok && rest.status).toBe(200);
    expect(rest.ok && rest.headers['cache-control']).toBe('private, no-cache');
    const created = await fetchFromPage(page, `${api.url}${REST}/venues`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ venue: 'Made from the browser' }),
      credentials: 'include',
    });
    expect(created.ok && [created.status, created.json.venue]).toEqual([201, 'Made from the browser']);
    const wrong = await fetchFromPage(page, `${api.url}${REST}/venues`, {
      headers: { authorization: basicAuthorization(login, 'wrong') },
      credentials: 'include',
    });
    expect(wrong.ok && wrong.status, 'an error is readable too').toBe(401);
    await page.close();
  });

  it('keeps the answers from a page of an origin CORS_ORIGINS does not list', async () => {
    const page = await openPage(refused.origin);
    const outcomes = [
      await fetchFromPage(page, `${api.url}${REST}/venues`, {}),
      await fetchFromPage(page, `${api.url}/graphql`, graphqlInit('{ venues(first: 1) { totalCount } }')),
      await fetchFromPage(page, `${api.url}/graphql`, {
        ...graphqlInit('{ viewer { login } }', { authorization }),
        credentials: 'include',
      }),
      await fetchFromPage(page, `${api.url}${REST}/venues`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: '{"venue":"Refused"}',
        credentials: 'include',
      }),
    ];
    for (const outcome of outcomes)
      expect(outcome).toEqual({ ok: false, error: expect.stringMatching(/TypeError: Failed to fetch/) });
    // The preflighted write never ran.
    const names = (await (await fetch(`${api.url}${REST}/venues?per_page=50`)).json()) as {
      venues: { venue: string }[];
    };
    expect(names.venues.map((venue) => venue.venue)).not.toContain('Refused');
    await page.close();
  });
});
