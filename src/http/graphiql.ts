import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { shouldRenderGraphiQL } from 'graphql-yoga';
import { sourceFile } from '../project-files.js';
import { StaticFile, type StaticFileOptions } from './precompressed.js';
import { REFERRER_POLICY } from './security-headers.js';

// GraphiQL served by this service alone: the page, its script, stylesheet, icon and Monaco's editor workers all come
// from /graphql/assets/, taken from @graphql-yoga/render-graphiql (fonts and images are data: URLs inside its CSS), so
// GraphiQL works with no internet access and under the page's Content-Security-Policy, which allows only this origin.

export const GRAPHIQL_ASSETS_PATH = '/graphql/assets/';

type Bundle = typeof import('@graphql-yoga/render-graphiql/graphiql');

const JAVASCRIPT = 'text/javascript; charset=utf-8';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const START_SCRIPT = readFileSync(sourceFile('http/graphiql-start.js'), 'utf8');

// Monaco's worker labels (what `getWorkerUrl` is asked for) → the bundle's export holding that worker.
const WORKERS = { editorWorkerService: 'editorWorkerService', json: 'jsonWorker', graphql: 'graphqlWorker' } as const;

// The bundle also sets styles at run time (style attributes, <style> elements), hence 'unsafe-inline' for styles;
// data: for the fonts and images inside the stylesheet.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** The bundle's 9 MB, loaded on the first asset request rather than by every server that never shows GraphiQL. */
let bundle: Promise<Bundle> | undefined;
const loadBundle = () => (bundle ??= import('@graphql-yoga/render-graphiql/graphiql'));
const fromBundle = (pick: (bundle: Bundle) => string) => async () => Buffer.from(pick(await loadBundle()));

/** Names every asset's URL: changes with the render-graphiql release and with our start script. */
function assetsFingerprint(): string {
  const require = createRequire(import.meta.url);
  const packageJson = join(dirname(require.resolve('@graphql-yoga/render-graphiql')), '..', 'package.json');
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  return createHash('sha256').update(version).update(START_SCRIPT).digest('hex').slice(0, 16);
}

function assetFiles(fingerprint: string): Map<string, StaticFile> {
  const file = (contentType: string, load: StaticFileOptions['load']) =>
    new StaticFile({ contentType, cacheControl: IMMUTABLE, version: fingerprint, load });
  const workers = Object.entries(WORKERS).map(
    ([label, name]) =>
      [
        `${label}.worker.js`,
        file(
          JAVASCRIPT,
          fromBundle((b) => b[name]),
        ),
      ] as const,
  );
  const files = new Map<string, StaticFile>([
    ['start.js', file(JAVASCRIPT, () => Buffer.from(START_SCRIPT))],
    [
      'graphiql.js',
      file(
        JAVASCRIPT,
        fromBundle((b) => b.js),
      ),
    ],
    [
      'graphiql.css',
      file(
        'text/css; charset=utf-8',
        fromBundle((b) => b.css),
      ),
    ],
    [
      'favicon.ico',
      file('image/x-icon', async () => Buffer.from((await loadBundle()).favicon.split(',')[1], 'base64')),
    ],
    ...workers,
  ]);
  return new Map([...files].map(([name, asset]) => [`${GRAPHIQL_ASSETS_PATH}${fingerprint}/${name}`, asset]));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** JSON inside <script>: `<` escaped so that no value can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function pageHtml(title: string, assetUrl: (name: string) => string): string {
  const workers = Object.fromEntries(Object.keys(WORKERS).map((label) => [label, assetUrl(`${label}.worker.js`)]));
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(title)}</title>
    <link rel="icon" href="${assetUrl('favicon.ico')}" />
    <link rel="stylesheet" href="${assetUrl('graphiql.css')}" />
    <script id="graphiql-config" type="application/json">${scriptJson({ graphiql: { title }, workers })}</script>
    <script defer src="${assetUrl('start.js')}"></script>
    <script defer src="${assetUrl('graphiql.js')}"></script>
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root"></div>
  </body>
</html>
`;
}

export interface GraphiQLOptions {
  title: string;
}

/**
 * GraphiQL's page and assets as two route handlers. `page` answers browsers only (a GET accepting text/html, as
 * GraphQL Yoga decides) and leaves every other request to the GraphQL endpoint by answering nothing.
 */
export function graphiql({ title }: GraphiQLOptions) {
  const fingerprint = assetsFingerprint();
  const assetUrl = (name: string) => `${GRAPHIQL_ASSETS_PATH}${fingerprint}/${name}`;
  const html = Buffer.from(pageHtml(title, assetUrl));
  const page = new StaticFile({
    contentType: 'text/html; charset=utf-8',
    // Revalidated every time (cheaply, by ETag): it names the current assets.
    cacheControl: 'no-cache',
    version: createHash('sha256').update(html).digest('hex').slice(0, 16),
    load: () => html,
    headers: { 'content-security-policy': CONTENT_SECURITY_POLICY, 'referrer-policy': REFERRER_POLICY },
  });
  const assets = assetFiles(fingerprint);
  return {
    page: (request: Request) => (shouldRenderGraphiQL(request) ? page.respond(request) : undefined),
    assets: (request: Request) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
      return assets.get(new URL(request.url).pathname)?.respond(request);
    },
  };
}
