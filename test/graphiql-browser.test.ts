import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVenue } from './support/factories.js';
import { startServer, type TestServer } from './support/server.js';

// GraphiQL in a real headless Chromium (Debian's, installed by .ci/run): it renders, loads the schema by
// introspection, runs a query, and every request it makes goes to the test server. Its screenshot is left in
// .vitest-tmp/ to look at.

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
const SCREENSHOT_DIR = fileURLToPath(new URL('../.vitest-tmp/', import.meta.url));

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is needed at ${CHROMIUM} for the GraphiQL browser test: apt-get install -y chromium (.ci/run installs it)`,
    );
  }
  [server, browser] = await Promise.all([
    startServer(),
    chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('GraphiQL in Chromium', () => {
  it('renders, loads the schema, runs a query, and requests nothing but the service', {
    timeout: 120_000,
  }, async () => {
    const venue = await createVenue(server, {}, 'name');
    const origin = new URL(server.url).origin;
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const requested: { url: string; method: string; body: string | null }[] = [];
    const problems: string[] = [];
    context.on('request', (request) =>
      requested.push({ url: request.url(), method: request.method(), body: request.postData() }),
    );
    const elsewhere = () => requested.map(({ url }) => url).filter((url) => new URL(url).origin !== origin);
    const diagnosis = () =>
      `requests to other hosts: ${JSON.stringify(elsewhere())}, errors: ${JSON.stringify(problems)}`;
    const page = await context.newPage();
    page.on('console', (message) => message.type() === 'error' && problems.push(`console: ${message.text()}`));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));

    await page.goto(`${server.url}/graphql`);
    await page
      .locator('.graphiql-container .graphiql-query-editor .monaco-editor')
      .waitFor({ timeout: 60_000 })
      .catch((error: Error) => {
        throw new Error(`GraphiQL's editor did not render; ${diagnosis()}`, { cause: error });
      });

    // The root types in the documentation explorer come from the schema GraphiQL introspected.
    await page.getByRole('button', { name: /Show Documentation Explorer/ }).click();
    await expect.poll(() => page.locator('.graphiql-doc-explorer').innerText()).toMatch(/query:\s*Query/);
    expect(requested.some(({ method, body }) => method === 'POST' && body?.includes('__schema'))).toBe(true);

    await page.locator('.graphiql-query-editor .monaco-editor').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(`{ venue(id: ${venue.id}) { name } }`);
    await page.getByRole('button', { name: /Execute query/ }).click();
    await expect.poll(() => page.locator('.graphiql-response').innerText(), { timeout: 30_000 }).toContain(venue.name);

    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOT_DIR, `graphiql-${process.env.TEST_ENGINE ?? 'sqlite'}.png`) });
    await context.close();

    expect(requested.filter(({ url }) => url.includes('.worker.js')).length, 'Monaco workers loaded').toBeGreaterThan(
      0,
    );
    expect(elsewhere()).toEqual([]);
    expect(problems).toEqual([]);
  });
});
