import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCategory,
  createEvent,
  createOrganizer,
  createTag,
  createVenue,
  daysFromNow,
  unique,
} from './support/factories.js';
import { call } from './support/rest.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// The public pages the API's `url` fields point at: server-rendered HTML, the API's visibility rules, nothing a
// record's text can inject. The same pages in a browser: test/public-pages-browser.test.ts.

const SITE = 'http://calendar.test';
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ SITE_URL: SITE });
});
afterAll(() => server?.close());

interface Page {
  status: number;
  type: string | null;
  text: string;
}

async function page(path: string, authorization?: string): Promise<Page> {
  const response = await fetch(`${server.url}${path}`, { headers: authorization ? { authorization } : {} });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** The page's schema.org data. */
function jsonLdOf(text: string): any {
  const match = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(text);
  if (!match) throw new Error('no JSON-LD in the page');
  return JSON.parse(match[1]!);
}

const scriptsIn = (text: string) => text.match(/<script\b/gi)?.length ?? 0;

describe('the event page', () => {
  let event: any;
  let venue: any;
  let organizer: any;
  beforeAll(async () => {
    venue = await createVenue(
      server,
      {
        address: '1 Unter den Linden',
        city: 'Berlin',
        zip: '10117',
        country: 'Germany',
        latitude: 52.5163,
        longitude: 13.3777,
      },
      'name',
    );
    organizer = await createOrganizer(server, { email: 'team@example.org', phone: '+49 30 1234' }, 'name');
    event = await createEvent(
      server,
      {
        title: unique('Winter concert'),
        startDate: '2030-01-15 19:30:00',
        endDate: '2030-01-15 21:45:00',
        timezone: 'Europe/Berlin',
        description: 'First paragraph.\n\nSecond <strong>strong</strong> paragraph.',
        venues: [{ id: String(venue.id) }],
        organizers: [{ id: String(organizer.id) }],
      },
      'title',
    );
  });

  it('shows title, dates in the event’s zone, venue with a map link, organizer and description as an HTML page', async () => {
    const answer = await page(`/event/${event.slug}/`);
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('text/html; charset=utf-8');
    expect(answer.text).toMatch(/^<!DOCTYPE html>\s*<html lang="en">/);
    expect(answer.text).toContain('<meta name="viewport"');
    expect(answer.text).toContain(`<h1>${event.title}</h1>`);
    // 19:30 Berlin is 18:30 UTC: the page speaks the event's own zone.
    expect(answer.text).toContain(
      'Tuesday 15 January 2030, 19:30</time> – <time datetime="2030-01-15T21:45:00+01:00">21:45 CET</time>',
    );
    expect(answer.text).toContain('datetime="2030-01-15T19:30:00+01:00"');
    expect(answer.text).toContain(`<a href="/venue/${venue.slug}/">${venue.name}</a>`);
    expect(answer.text).toContain('1 Unter den Linden, 10117 Berlin, Germany');
    expect(answer.text).toContain(
      'href="https://www.openstreetmap.org/?mlat=52.5163&amp;mlon=13.3777#map=16/52.5163/13.3777"',
    );
    expect(answer.text).toContain(`<a href="/organizer/${organizer.slug}/">${organizer.name}</a>`);
    expect(answer.text).toContain('mailto:team@example.org');
    expect(answer.text).toContain('<p>First paragraph.</p>');
    expect(answer.text).toContain('Second <strong>strong</strong> paragraph.');
    expect(scriptsIn(answer.text)).toBe(1);
  });

  it('links to the event’s iCalendar file, which answers text/calendar', async () => {
    const answer = await page(`/event/${event.slug}/`);
    const ics = `/wp-json/calendar/events/v1/events/${event.id}.ics`;
    expect(answer.text).toContain(`href="${ics}"`);
    const response = await fetch(`${server.url}${ics}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(await response.text()).toContain(`SUMMARY:${event.title}`);
  });

  it('carries schema.org JSON-LD of type Event with its start in its zone', async () => {
    const data = jsonLdOf((await page(`/event/${event.slug}/`)).text);
    expect(data['@type']).toBe('Event');
    expect(data.name).toBe(event.title);
    expect(data.startDate).toBe('2030-01-15T19:30:00+01:00');
    expect(data.url).toBe(`${SITE}/event/${event.slug}/`);
    expect(data.location.name).toBe(venue.name);
  });

  it('is what the REST `url` of the event points at', async () => {
    const rest = await call(server, 'GET', `/events/${event.id}`);
    expect(rest.body.url).toBe(`${SITE}/event/${event.slug}/`);
    const answer = await page(new URL(rest.body.url).pathname);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(`<h1>${event.title}</h1>`);
  });

  it('answers HEAD like GET without a body, with an ETag that a conditional GET answers 304', async () => {
    const head = await fetch(`${server.url}/event/${event.slug}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await head.text()).toBe('');
    const etag = head.headers.get('etag');
    expect(etag).toMatch(/^"/);
    const again = await fetch(`${server.url}/event/${event.slug}/`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });
});

describe('venue and organizer pages', () => {
  it('shows the venue with its address, map link by address, and its upcoming events', async () => {
    const venue = await createVenue(
      server,
      { address: 'Rue de Rivoli', city: 'Paris', country: 'France', description: 'A <em>big</em> hall.' },
      'name',
    );
    const event = await createEvent(
      server,
      { startDate: daysFromNow(3), endDate: daysFromNow(3.1), venues: [{ id: String(venue.id) }] },
      'title',
    );
    const answer = await page(`/venue/${venue.slug}/`);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(`<h1>${venue.name}</h1>`);
    expect(answer.text).toContain(
      'href="https://www.openstreetmap.org/search?query=Rue%20de%20Rivoli%2C%20Paris%2C%20France"',
    );
    expect(answer.text).toContain('A <em>big</em> hall.');
    expect(answer.text).toContain(`<a href="/event/${event.slug}/">${event.title}</a>`);
    expect(jsonLdOf(answer.text)['@type']).toBe('Place');
  });

  it('shows the organizer with contact details and the events they run', async () => {
    const organizer = await createOrganizer(server, { website: 'https://org.example/', phone: '555-0100' }, 'name');
    const event = await createEvent(
      server,
      { startDate: daysFromNow(4), endDate: daysFromNow(4.1), organizers: [{ id: String(organizer.id) }] },
      'title',
    );
    const answer = await page(`/organizer/${organizer.slug}`);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(`<h1>${organizer.name}</h1>`);
    expect(answer.text).toContain('Phone: 555-0100');
    expect(answer.text).toContain('href="https://org.example/"');
    expect(answer.text).toContain(`<a href="/event/${event.slug}/">${event.title}</a>`);
    expect(jsonLdOf(answer.text)).toMatchObject({ '@type': 'Person', name: organizer.name, telephone: '555-0100' });
  });

  it('gives a venue page the page’s own URL in its JSON-LD, and the venue’s address', async () => {
    const venue = await createVenue(server, { city: 'Lyon', country: 'France' }, 'name');
    const data = jsonLdOf((await page(`/venue/${venue.slug}/`)).text);
    expect(data).toMatchObject({ '@context': 'http://schema.org', '@type': 'Place', name: venue.name });
    expect(data.url).toBe(`${SITE}/venue/${venue.slug}/`);
    expect(JSON.stringify(data.address)).toContain('Lyon');
  });

  it.each(['venue', 'organizer'] as const)(
    'shows a password-protected %s’s name with a notice, never its description, contact or events',
    async (kind) => {
      const secret = unique('secret-description');
      const fields = { password: 'open-sesame', description: secret, phone: '555-0199' };
      const post =
        kind === 'venue' ? await createVenue(server, fields, 'name') : await createOrganizer(server, fields, 'name');
      const answer = await page(`/${kind}/${post.slug}/`);
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(`<h1>${post.name}</h1>`);
      expect(answer.text).toContain(`This ${kind} is password-protected`);
      expect(answer.text).not.toContain(secret);
      expect(answer.text).not.toContain('555-0199');
      expect(answer.text).not.toContain('Upcoming events');
    },
  );
});

describe('the category and tag pages', () => {
  it('are what the REST `url` of a category and of a tag point at: the term and its upcoming events in order', async () => {
    const category = await createCategory(
      server,
      { name: unique('Jazz & Blues'), description: 'Live <b>music</b>' },
      'databaseId slug name',
    );
    const tag = await createTag(server, { name: unique('outdoor') }, 'databaseId slug name');
    const event = (title: string, days: number, terms: Record<string, string[]>) =>
      createEvent(
        server,
        { title: unique(title), startDate: daysFromNow(days), endDate: daysFromNow(days + 0.1), ...terms },
        'title slug',
      );
    const later = await event('Later gig', 603, {
      categories: [String(category.databaseId)],
      tags: [String(tag.databaseId)],
    });
    const sooner = await event('Sooner gig', 601, { categories: [String(category.databaseId)] });
    const past = await event('Past gig', -3, { categories: [String(category.databaseId)] });
    const other = await event('Other', 602, {});

    const restCategory = await call(server, 'GET', `/categories/${category.databaseId}`);
    expect(restCategory.body.url).toBe(`${SITE}/events/category/${category.slug}/`);
    const categoryPage = await page(new URL(restCategory.body.url).pathname);
    expect(categoryPage.status).toBe(200);
    expect(categoryPage.type).toBe('text/html; charset=utf-8');
    // The name and description as text, never as markup.
    expect(categoryPage.text).toContain(`<h1>${category.name.replace('&', '&amp;')}</h1>`);
    expect(categoryPage.text).toContain('Live &lt;b&gt;music&lt;/b&gt;');
    expect(categoryPage.text).toContain(`<link rel="canonical" href="${SITE}/events/category/${category.slug}/">`);
    const soonerAt = categoryPage.text.indexOf(`<a href="/event/${sooner.slug}/">`);
    expect(soonerAt).toBeGreaterThan(0);
    expect(categoryPage.text.indexOf(`<a href="/event/${later.slug}/">`)).toBeGreaterThan(soonerAt);
    expect(categoryPage.text).not.toContain(past.title);
    expect(categoryPage.text).not.toContain(other.title);

    const restTag = await call(server, 'GET', `/tags/${tag.databaseId}`);
    expect(restTag.body.url).toBe(`${SITE}/tag/${tag.slug}/`);
    const tagPage = await page(new URL(restTag.body.url).pathname);
    expect(tagPage.status).toBe(200);
    expect(tagPage.text).toContain(`<a href="/event/${later.slug}/">`);
    expect(tagPage.text).not.toContain(sooner.title);

    // Not kept stale by the response cache: an event added to the category, and the category renamed, show at once.
    const added = await event('Added gig', 602.5, { categories: [String(category.databaseId)] });
    await server.gqlOk(
      `mutation($id: ID!) { updateEventCategory(id: $id, input: { name: "Renamed jazz" }) { name } }`,
      {
        id: category.id,
      },
    );
    const again = await page(`/events/category/${category.slug}/`);
    expect(again.text).toContain(`<a href="/event/${added.slug}/">`);
    expect(again.text).toContain('<h1>Renamed jazz</h1>');
  });

  it('answers 404 for an unknown term, a category slug asked as a tag, and 400 for a page that is not one', async () => {
    const category = await createCategory(server, {}, 'slug');
    expect((await page('/events/category/no-such-category/')).status).toBe(404);
    expect((await page(`/tag/${category.slug}/`)).status).toBe(404);
    expect((await page('/events/category/%E0%A4%A/')).status).toBe(404);
    expect((await page(`/events/category/${category.slug}/?page=0`)).status).toBe(400);
    expect((await page(`/events/category/${category.slug}`)).status).toBe(200);
  });

  it('shows a term’s events a page at a time, with links between the pages', async () => {
    const category = await createCategory(server, {}, 'databaseId slug');
    for (let i = 0; i < 21; i++)
      await createEvent(server, {
        title: `Paged ${String(i).padStart(2, '0')} ${category.slug}`,
        // Far ahead, so that they stay off the first page of the whole events list other tests read.
        startDate: daysFromNow(600 + i / 100),
        endDate: daysFromNow(600.001 + i / 100),
        categories: [String(category.databaseId)],
      });
    const first = await page(`/events/category/${category.slug}/`);
    expect(first.text.match(/Paged \d\d/g)).toHaveLength(20);
    expect(first.text).toContain(`<a href="/events/category/${category.slug}/?page=2">Later events</a>`);
    const second = await page(`/events/category/${category.slug}/?page=2`);
    expect(second.text.match(/Paged \d\d/g)).toEqual(['Paged 20']);
    expect(second.text).toContain(`<a href="/events/category/${category.slug}/">Earlier events</a>`);
  });
});

describe('the events list', () => {
  it('shows upcoming events in start order, each linking to its page, and leaves out past ones', async () => {
    const later = await createEvent(
      server,
      { title: unique('Later'), startDate: daysFromNow(2), endDate: daysFromNow(2.1) },
      'title',
    );
    const sooner = await createEvent(
      server,
      { title: unique('Sooner'), startDate: daysFromNow(1), endDate: daysFromNow(1.1) },
      'title',
    );
    const past = await createEvent(
      server,
      { title: unique('Past'), startDate: daysFromNow(-3), endDate: daysFromNow(-2.9) },
      'title',
    );
    const answer = await page('/events/');
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('text/html; charset=utf-8');
    const soonerAt = answer.text.indexOf(`<a href="/event/${sooner.slug}/">${sooner.title}</a>`);
    const laterAt = answer.text.indexOf(`<a href="/event/${later.slug}/">${later.title}</a>`);
    expect(soonerAt).toBeGreaterThan(0);
    expect(laterAt).toBeGreaterThan(soonerAt);
    expect(answer.text).not.toContain(past.title);
  });

  it('shows a month grouped by day, and refuses a month that is not one', async () => {
    const first = await createEvent(
      server,
      { title: unique('March A'), startDate: '2031-03-02 10:00:00', endDate: '2031-03-02 11:00:00' },
      'title',
    );
    const second = await createEvent(
      server,
      { title: unique('March B'), startDate: '2031-03-20 10:00:00', endDate: '2031-03-20 11:00:00' },
      'title',
    );
    const april = await createEvent(
      server,
      { title: unique('April'), startDate: '2031-04-01 10:00:00', endDate: '2031-04-01 11:00:00' },
      'title',
    );
    const answer = await page('/events/?month=2031-03');
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<h1>Events in March 2031</h1>');
    const day2 = answer.text.indexOf('Sunday 2 March 2031</h2>');
    const day20 = answer.text.indexOf('Thursday 20 March 2031</h2>');
    expect(day2).toBeGreaterThan(0);
    expect(answer.text.indexOf(first.title)).toBeGreaterThan(day2);
    expect(day20).toBeGreaterThan(answer.text.indexOf(first.title));
    expect(answer.text.indexOf(second.title)).toBeGreaterThan(day20);
    expect(answer.text).not.toContain(april.title);
    expect((await page('/events/?month=2031-13')).status).toBe(400);
    expect((await page('/events/?page=0')).status).toBe(400);
  });
});

describe('visibility', () => {
  it('answers 404 for a draft to an anonymous reader and shows it to the administrator', async () => {
    const draft = await createEvent(server, { status: 'DRAFT', title: unique('Draft') }, 'title');
    const anonymous = await page(`/event/${draft.slug}/`);
    expect(anonymous.status).toBe(404);
    expect(anonymous.type).toBe('text/html; charset=utf-8');
    expect(anonymous.text).not.toContain(draft.title);
    const admin = await page(`/event/${draft.slug}/`, ADMIN_AUTHORIZATION);
    expect(admin.status).toBe(200);
    expect(admin.text).toContain(draft.title);
  });

  it('shows a password-protected event’s title and dates with a notice, never its description', async () => {
    const secret = unique('secret-description');
    const event = await createEvent(
      server,
      { password: 'open-sesame', description: secret, title: unique('Protected') },
      'title',
    );
    const answer = await page(`/event/${event.slug}/`);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(`<h1>${event.title}</h1>`);
    expect(answer.text).toContain('password-protected');
    expect(answer.text).toContain('15 January 2030');
    expect(answer.text).not.toContain(secret);
    expect(JSON.stringify(jsonLdOf(answer.text))).not.toContain(secret);
  });

  it('answers 404 for a trashed event, an unknown slug, and refuses wrong credentials', async () => {
    const trashed = await createEvent(server, {}, 'title');
    await server.gqlOk('mutation ($id: ID!) { deleteEvent(id: $id) { id } }', { id: String(trashed.id) });
    expect((await page(`/event/${trashed.slug}/`)).status).toBe(404);
    expect((await page(`/event/${trashed.slug}/`, ADMIN_AUTHORIZATION)).status).toBe(404);
    const unknown = await page(`/event/${unique('no-such-event')}/`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('Page not found');
    expect((await page('/venue/%E0%A4%A/')).status).toBe(404);
    expect((await page('/events/', 'Basic d3Jvbmc6d3Jvbmc=')).status).toBe(401);
  });
});

describe('paths and methods', () => {
  it('answers only GET and HEAD, 405 with Allow otherwise', async () => {
    const response = await fetch(`${server.url}/events/`, { method: 'POST', body: 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('serves below SITE_URL’s path, with or without that path in the request, and links below it', async () => {
    const below = await startServer({ SITE_URL: 'http://calendar.test/calendar/' });
    try {
      const venue = await createVenue(below, {}, 'name');
      const event = await createEvent(below, { venues: [{ id: String(venue.id) }] }, 'title');
      const rest = await call(below, 'GET', `/events/${event.id}`);
      expect(rest.body.url).toBe(`http://calendar.test/calendar/event/${event.slug}/`);
      for (const path of [`/calendar/event/${event.slug}/`, `/event/${event.slug}/`]) {
        const response = await fetch(`${below.url}${path}`);
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(text).toContain(`<a href="/calendar/venue/${venue.slug}/">`);
        expect(text).toContain(`href="/calendar/wp-json/calendar/events/v1/events/${event.id}.ics"`);
        expect(text).toContain('<a href="/calendar/events/">');
      }
      expect((await fetch(`${below.url}/calendar/events/`)).status).toBe(200);
    } finally {
      await below.close();
    }
  });
});

describe('nothing a record holds is executed', () => {
  it('writes a title with markup as text and keeps script out of the description and the JSON-LD', async () => {
    // PlainText strips tags, but keeps the markup characters that are not part of one.
    const title = `${unique('Evil')} 1 < /script> && "quoted" 'single' 2 > 1`;
    const event = await createEvent(
      server,
      {
        title,
        startDate: daysFromNow(5),
        endDate: daysFromNow(5.1),
        description:
          '<img src=x onerror="alert(2)"><script>alert(3)</script><a href="javascript:alert(4)">x</a></section></main><p>after</p>',
      },
      'title',
    );
    expect(event.title).toBe(title);
    const escapedTitle = title
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;');
    for (const path of [`/event/${event.slug}/`, '/events/']) {
      const answer = await page(path);
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(`>${escapedTitle}<`);
      expect(answer.text).not.toContain(title);
      expect(answer.text).not.toContain('<script>alert');
      expect(answer.text).not.toMatch(/onerror|javascript:/i);
      expect(scriptsIn(answer.text)).toBe(path === '/events/' ? 0 : 1);
    }
    const eventPage = (await page(`/event/${event.slug}/`)).text;
    expect(eventPage).toContain(`<h1>${escapedTitle}</h1>`);
    expect(eventPage).toContain('1 \\u003c /script\\u003e \\u0026\\u0026');
    expect(jsonLdOf(eventPage).name).toBe(event.title);
  });
});
