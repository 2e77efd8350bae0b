import { get } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server.js';

// GraphiQL as a browser loads it, over HTTP: the page, every asset it names, nothing from another host, compressed
// bytes that decompress to the same content, and caching. test/graphiql-browser.test.ts opens it in Chromium.

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET whose body is left as sent (fetch would decompress it). */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    get(`${server.url}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    }).on('error', reject);
  });
}

const BROWSER_PAGE_HEADERS = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

async function graphiqlPage(): Promise<string> {
  const response = await fetch(`${server.url}/graphql`, { headers: BROWSER_PAGE_HEADERS });
  expect(response.status).toBe(200);
  return response.text();
}

/** Every URL the page makes a browser load: src and href attributes, and Monaco's worker scripts in its config. */
function assetUrls(html: string): string[] {
  const attributes = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1]);
  const config = html.match(/<script id="graphiql-config" type="application\/json">(.*?)<\/script>/s);
  const workers = config ? Object.values(JSON.parse(config[1]).workers as Record<string, string>) : [];
  return [...attributes, ...workers];
}

const EXPECTED_TYPES: [RegExp, RegExp][] = [
  [/\.js$/, /^text\/javascript\b/],
  [/\.css$/, /^text\/css\b/],
  [/\.ico$/, /^image\//],
];

const expectedType = (url: string) => EXPECTED_TYPES.find(([extension]) => extension.test(url))?.[1];

// Hosts that serve GraphiQL's pieces elsewhere; the JavaScript also names documentation pages (GitHub, react.dev ...)
// in messages, which no browser loads: test/graphiql-browser.test.ts records every request GraphiQL really makes.
const CDN_HOSTS = /unpkg\.com|jsdelivr\.net|esm\.sh|cdnjs|googleapis\.com|gstatic\.com|skypack\.dev|jspm\.io/;

/** What in a stylesheet a browser fetches: url(...) and @import targets that are not data: URLs. */
function stylesheetFetches(css: string): string[] {
  const urls = [...css.matchAll(/url\(\s*(['"]?)(.*?)\1\s*\)/g)].map((match) => match[2]);
  const imports = [...css.matchAll(/@import\s+(['"])(.*?)\1/g)].map((match) => match[2]);
  return [...urls, ...imports].filter((url) => !url.startsWith('data:') && !url.startsWith('#'));
}

describe('GraphiQL over HTTP', () => {
  it('serves the GraphiQL page, titled for this service, to a GET accepting text/html', async () => {
    const response = await fetch(`${server.url}/graphql`, { headers: BROWSER_PAGE_HEADERS });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<title>Calendar events service</title>');
    expect(html).toContain('<div id="root"></div>');
  });

  it('answers GraphQL, not the page, to GET and POST requests that do not accept text/html', async () => {
    const viaGet = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { accept: 'application/json' },
    });
    expect(await viaGet.json()).toEqual({ data: { __typename: 'Query' } });
    const viaPost = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/html, application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(await viaPost.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('names its script, stylesheet, icon and three editor workers, each answering 200 with its content type', async () => {
    const urls = assetUrls(await graphiqlPage());
    expect(urls.filter((url) => url.endsWith('.js'))).toHaveLength(5); // start, bundle, three workers
    expect(urls.filter((url) => url.endsWith('.css'))).toHaveLength(1);
    for (const url of urls) {
      const response = await fetch(new URL(url, server.url));
      expect({ url, status: response.status }).toEqual({ url, status: 200 });
      expect(response.headers.get('content-type'), url).toMatch(expectedType(url) ?? /^never$/);
      expect((await response.arrayBuffer()).byteLength, url).toBeGreaterThan(0);
    }
  });

  it('names no other host in the page, and its assets load nothing from another one', async () => {
    const html = await graphiqlPage();
    const urls = assetUrls(html);
    for (const url of urls) expect(url, 'a path on this server').toMatch(/^\/[^/]/);
    expect(html).not.toMatch(/\b(?:https?:)?\/\/[a-z0-9]/i);
    for (const url of urls) {
      const text = await (await fetch(new URL(url, server.url))).text();
      expect(text, url).not.toMatch(CDN_HOSTS);
      if (url.endsWith('.css')) expect(stylesheetFetches(text), url).toEqual([]);
    }
  });

  it('lets the page load nothing but this origin, by its Content-Security-Policy', async () => {
    const response = await fetch(`${server.url}/graphql`, { headers: BROWSER_PAGE_HEADERS });
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).not.toMatch(/https?:|\*/);
  });

  it.each(['br', 'gzip'] as const)(
    'sends the page and every asset with %s to a client accepting it, the same bytes decompressed',
    async (encoding) => {
      const decompress = encoding === 'br' ? brotliDecompressSync : gunzipSync;
      const paths = ['/graphql', ...assetUrls(await graphiqlPage())];
      for (const path of paths) {
        const plain = await rawGet(path, { ...BROWSER_PAGE_HEADERS, 'accept-encoding': 'identity' });
        const compressed = await rawGet(path, { ...BROWSER_PAGE_HEADERS, 'accept-encoding': `${encoding}, deflate` });
        expect(plain.headers['content-encoding'], path).toBeUndefined();
        expect(compressed.headers['content-encoding'], path).toBe(encoding);
        expect(compressed.headers.vary, path).toMatch(/accept-encoding/i);
        expect(compressed.body.length, path).toBeLessThan(plain.body.length);
        expect(decompress(compressed.body).equals(plain.body), path).toBe(true);
      }
    },
  );

  it("prefers brotli among encodings a browser accepts equally, and follows the client's q-values", async () => {
    const [asset] = assetUrls(await graphiqlPage()).filter((url) => url.endsWith('.css'));
    const asChrome = await rawGet(asset, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(asChrome.headers['content-encoding']).toBe('br');
    const gzipPreferred = await rawGet(asset, { 'accept-encoding': 'br;q=0.5, gzip' });
    expect(gzipPreferred.headers['content-encoding']).toBe('gzip');
    const noHeader = await rawGet(asset);
    expect(noHeader.headers['content-encoding']).toBeUndefined();
  });

  it('lets browsers keep the assets for a year and revalidate the page, both by ETag with 304', async () => {
    const html = await graphiqlPage();
    const page = await rawGet('/graphql', { ...BROWSER_PAGE_HEADERS, 'accept-encoding': 'br' });
    expect(page.headers['cache-control']).toBe('no-cache');
    const pageAgain = await rawGet('/graphql', {
      ...BROWSER_PAGE_HEADERS,
      'accept-encoding': 'br',
      'if-none-match': String(page.headers.etag),
    });
    expect(pageAgain.status).toBe(304);
    expect(pageAgain.body.length).toBe(0);

    for (const url of assetUrls(html)) {
      const asset = await rawGet(url, { 'accept-encoding': 'gzip' });
      expect(asset.headers['cache-control'], url).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.etag, url).toMatch(/^"[^"]+"$/);
      const again = await rawGet(url, { 'accept-encoding': 'gzip', 'if-none-match': String(asset.headers.etag) });
      expect(again.status, url).toBe(304);
      // Each coding has its tag; a copy in another coding is the same content, and its 304 names the tag sent.
      const brotli = await rawGet(url, { 'accept-encoding': 'br' });
      expect(brotli.headers.etag, url).toBe(String(asset.headers.etag).replace(/-gzip"$/, '-br"'));
      const otherEncoding = await rawGet(url, { 'accept-encoding': 'br', 'if-none-match': String(asset.headers.etag) });
      expect([otherEncoding.status, otherEncoding.headers.etag], url).toEqual([304, asset.headers.etag]);
      const stale = await rawGet(url, {
        'accept-encoding': 'br',
        'if-none-match': String(asset.headers.etag).replace(/.-gzip"$/, 'x-gzip"'),
      });
      expect(stale.status, `${url}: another version's tag`).toBe(200);
    }
  });

  it('answers 404 for an asset of another GraphiQL release', async () => {
    const [script] = assetUrls(await graphiqlPage()).filter((url) => url.endsWith('graphiql.js'));
    const stale = script.replace(/\/assets\/[^/]+\//, '/assets/0000000000000000/');
    expect(stale).not.toBe(script);
    expect((await fetch(new URL(stale, server.url))).status).toBe(404);
  });
});
