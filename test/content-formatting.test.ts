// Descriptions and excerpts are stored as sent and shown as WordPress's `the_content` shows them (wpautop): REST
// always formats, GraphQL formats by default and answers the stored text with `format: RAW`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, unique } from './support/factories.js';
import { restClient, type RestClient } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer();
  rest = restClient(server);
});
afterAll(() => server?.close());

const at = (day: number) => ({
  start_date: `2032-04-${String(day).padStart(2, '0')} 19:00:00`,
  end_date: `2032-04-${String(day).padStart(2, '0')} 21:00:00`,
});

/** Stored text → what WordPress 6.x's wpautop (then TEC's trim) makes of it. */
const CASES: [string, string, string][] = [
  ['a single line', 'An event content', '<p>An event content</p>'],
  [
    'blank-line-separated paragraphs',
    'First paragraph.\n\nSecond paragraph.',
    '<p>First paragraph.</p>\n<p>Second paragraph.</p>',
  ],
  ['a single newline', 'Line one\nLine two', '<p>Line one<br />\nLine two</p>'],
  ['Windows line ends', 'One\r\n\r\nTwo', '<p>One</p>\n<p>Two</p>'],
  ['text already in a paragraph', '<p>Already a paragraph</p>', '<p>Already a paragraph</p>'],
  ['a block element beside text', '<h2>Programme</h2>\nDoors at seven', '<h2>Programme</h2>\n<p>Doors at seven</p>'],
  ['a list', '<ul>\n<li>One</li>\n<li>Two</li>\n</ul>', '<ul>\n<li>One</li>\n<li>Two</li>\n</ul>'],
  ['inline markup', 'A <strong>bold</strong> night', '<p>A <strong>bold</strong> night</p>'],
  ['only whitespace', '   \n\n  ', ''],
];

describe('REST shows descriptions and excerpts formatted, as the_content does', () => {
  it.each(CASES)('%s', async (_label, stored, shown) => {
    const created = await rest.post('/events', {
      json: { title: unique('Formatted'), ...at(3), description: stored, excerpt: stored },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.description).toBe(shown);
    expect(created.body.excerpt).toBe(shown);
    const read = await rest.get(`/events/${created.body.id}`);
    expect(read.body.description).toBe(shown);
    const listed = await rest.get('/events', { query: { include: created.body.id, start_date: '2032-04-01' } });
    expect(listed.body.events[0].description).toBe(shown);
  });

  it('formats venue and organizer descriptions, alone and inside an event', async () => {
    const created = await rest.post('/events', {
      json: {
        title: unique('With places'),
        ...at(4),
        venue: { venue: unique('Hall'), description: 'Big room\n\nUpstairs' },
        organizer: { organizer: unique('Crew'), description: 'We run\nthings' },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.venue.description).toBe('<p>Big room</p>\n<p>Upstairs</p>');
    expect(created.body.organizer[0].description).toBe('<p>We run<br />\nthings</p>');
    const venue = await rest.get(`/venues/${created.body.venue.id}`);
    expect(venue.body.description).toBe('<p>Big room</p>\n<p>Upstairs</p>');
    const organizer = await rest.get(`/organizers/${created.body.organizer[0].id}`);
    expect(organizer.body.description).toBe('<p>We run<br />\nthings</p>');
  });

  it('stores the text as sent: formatting a second time changes nothing, and an update round-trips', async () => {
    const created = await rest.post('/events', {
      json: { title: unique('Round trip'), ...at(5), description: 'One\n\nTwo' },
    });
    const id = created.body.id;
    // A client that writes back what it read (already formatted) does not get paragraphs in paragraphs.
    const written = await rest.post(`/events/${id}`, { json: { description: created.body.description } });
    expect(written.status, written.text).toBe(200);
    expect(written.body.description).toBe('<p>One</p>\n<p>Two</p>');
    const raw = await server.gqlOk(`query ($id: ID!) { event(id: $id) { description(format: RAW) } }`, {
      id: String(id),
    });
    expect(raw.event.description).toBe('<p>One</p>\n<p>Two</p>');
  });
});

describe('GraphQL offers both forms', () => {
  it('formats by default and answers the stored text with format: RAW', async () => {
    const event = await createEvent(server, { description: 'Line one\nLine two\n\nNext', excerpt: 'Short' });
    const data = await server.gqlOk(
      `query ($id: ID!) { event(id: $id) { rendered: description raw: description(format: RAW) explicit: description(format: RENDERED) excerpt rawExcerpt: excerpt(format: RAW) } }`,
      { id: event.globalId },
    );
    expect(data.event).toEqual({
      rendered: '<p>Line one<br />\nLine two</p>\n<p>Next</p>',
      raw: 'Line one\nLine two\n\nNext',
      explicit: '<p>Line one<br />\nLine two</p>\n<p>Next</p>',
      excerpt: '<p>Short</p>',
      rawExcerpt: 'Short',
    });
  });

  it('refuses a format that is not one of the two', async () => {
    const event = await createEvent(server, { description: 'x' });
    const result = await server.gql(`query ($id: ID!) { event(id: $id) { description(format: HTML) } }`, {
      id: event.globalId,
    });
    expect(result.errors?.[0]?.message).toMatch(/ContentFormat/);
  });

  it('keeps a locked event locked in both forms', async () => {
    const event = await createEvent(server, { description: 'Secret\n\nplan', password: 'letmein' });
    const data = await server.gqlOk(
      `query ($id: ID!) { event(id: $id) { isLocked description raw: description(format: RAW) } }`,
      { id: event.globalId },
    );
    expect(data.event).toEqual({ isLocked: true, description: '', raw: '' });
  });
});

describe('formatting adds no markup a reader could abuse', () => {
  it('keeps what the sanitizer removed out of the formatted text', async () => {
    const stored = 'Hello\n\n<script>alert(1)</script>\n<p onclick="x()">Click</p>';
    const created = await rest.post('/events', { json: { title: unique('Hostile'), ...at(6), description: stored } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.description).not.toMatch(/<script|onclick|alert\(1\)/);
    expect(created.body.description).toContain('<p>Hello</p>');
    expect(created.body.description).toContain('Click');
  });

  it('formats a long description with many paragraphs in full', async () => {
    const paragraphs = Array.from({ length: 400 }, (_, index) => `Paragraph ${index}`);
    const created = await rest.post('/events', {
      json: { title: unique('Long'), ...at(7), description: paragraphs.join('\n\n') },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.description).toBe(paragraphs.map((text) => `<p>${text}</p>`).join('\n'));
  });
});
