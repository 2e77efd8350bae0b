import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, createOrganizer, createVenue, daysFromNow, unique } from './support/factories.js';
import { startServer, type TestServer } from './support/server.js';

// The public pages in a real headless Chromium (Debian's, installed by .ci/run) with JavaScript switched off: they
// must read without it. Screenshots are left in .vitest-tmp/ to look at.

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
const ENGINE = process.env.TEST_ENGINE ?? 'sqlite';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is needed at ${CHROMIUM} for the public pages' browser test: apt-get install -y chromium (.ci/run installs it)`,
    );
  }
  [server, browser] = await Promise.all([
    startServer({ SITE_URL: 'http://calendar.test' }),
    chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
  ]);
  context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1024, height: 900 } });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

describe('public pages in Chromium without JavaScript', () => {
  it('shows an event page: title, local dates, venue, organizer, description and the calendar link', {
    timeout: 60_000,
  }, async () => {
    const venue = await createVenue(
      server,
      { address: 'Karl-Marx-Allee 1', city: 'Berlin', country: 'Germany', latitude: 52.52, longitude: 13.42 },
      'name',
    );
    const organizer = await createOrganizer(server, {}, 'name');
    const event = await createEvent(
      server,
      {
        title: unique('Open air cinema: 1 < 2 & "talk"'),
        startDate: '2030-07-04 21:00:00',
        endDate: '2030-07-04 23:30:00',
        timezone: 'Europe/Berlin',
        description: 'A film under the stars.\n\nBring a <em>blanket</em>.',
        venues: [{ id: String(venue.id) }],
        organizers: [{ id: String(organizer.id) }],
      },
      'title',
    );
    const page = await context.newPage();
    const refusedByPolicy: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    const response = await page.goto(`${server.url}/event/${event.slug}/`);
    expect(response?.status()).toBe(200);
    // The page's Content-Security-Policy lets its own stylesheet apply (46rem wide body) and refuses nothing it uses.
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(await page.locator('body').evaluate((body) => getComputedStyle(body).maxWidth)).toBe('736px');
    expect(await page.locator('h1').innerText()).toBe(event.title);
    expect(await page.title()).toBe(event.title);
    expect(await page.locator('.when').innerText()).toBe('Thursday 4 July 2030, 21:00 – 23:30 CEST');
    expect(await page.getByRole('link', { name: venue.name }).getAttribute('href')).toBe(`/venue/${venue.slug}/`);
    expect(await page.getByRole('link', { name: 'Show on map' }).getAttribute('href')).toMatch(
      /openstreetmap\.org\/\?mlat=52\.52&mlon=13\.42/,
    );
    expect(await page.getByRole('link', { name: organizer.name }).isVisible()).toBe(true);
    expect(await page.locator('.description em').innerText()).toBe('blanket');
    expect(await page.getByRole('link', { name: /Add to calendar/ }).getAttribute('href')).toBe(
      `/wp-json/calendar/events/v1/events/${event.id}.ics`,
    );
    // The only script element is the JSON-LD data, which a browser does not run.
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('script').getAttribute('type')).toBe('application/ld+json');
    expect(refusedByPolicy).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `event-page-${ENGINE}.png`), fullPage: true });
    await page.close();
  });

  it('shows the list of upcoming events in order, whose links open the events’ pages', {
    timeout: 60_000,
  }, async () => {
    const second = await createEvent(
      server,
      { title: unique('Second'), startDate: daysFromNow(2), endDate: daysFromNow(2.1) },
      'title',
    );
    const first = await createEvent(
      server,
      { title: unique('First'), startDate: daysFromNow(1), endDate: daysFromNow(1.1) },
      'title',
    );
    const page = await context.newPage();
    expect((await page.goto(`${server.url}/events/`))?.status()).toBe(200);
    expect(await page.locator('h1').innerText()).toBe('Upcoming events');
    const titles = await page.locator('ol.events li a').allInnerTexts();
    expect(titles.indexOf(first.title)).toBeGreaterThanOrEqual(0);
    expect(titles.indexOf(second.title)).toBeGreaterThan(titles.indexOf(first.title));
    await page.screenshot({ path: join(SCREENSHOT_DIR, `events-list-${ENGINE}.png`), fullPage: true });
    await page.getByRole('link', { name: second.title }).click();
    expect(await page.locator('h1').innerText()).toBe(second.title);
    expect(new URL(page.url()).pathname).toBe(`/event/${second.slug}/`);
    await page.close();
  });
});
