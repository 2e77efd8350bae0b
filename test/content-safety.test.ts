// Stored content is safe to render: descriptions and excerpts keep the markup WordPress allows in post content and
// lose the rest (scripts, styles, frames, event handlers, javascript: links); titles and names are plain text; URL
// fields take http(s) only. Written through REST and GraphQL alike, since both go through the same schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, createVenue, onlyError, unique } from './support/factories.js';
import { restClient, type RestClient, type RestResponse } from './support/rest.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';
import { startImageServer, type ImageServer } from './support/image-server.js';

// Images given by URL are fetched: they come from a local image server.
let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
});
afterAll(() => images?.close());

let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer();
  rest = restClient(server);
});
afterAll(() => server?.close());

/** Markup WordPress keeps in post content. */
const ALLOWED = [
  '<h2>Programme</h2>',
  '<p>A <strong>bold</strong> and <em>lively</em> night: <a href="https://example.org/tickets">tickets</a>.</p>',
  '<ul><li>One</li><li>Two</li></ul>',
  '<blockquote>Music is the answer</blockquote>',
];
const ALLOWED_IMAGE = '<img src="https://example.org/poster.png" alt="Poster" />';

/** Markup that must not survive, each next to text that must. */
const DANGEROUS = [
  '<p>Before</p><script>alert("script")</script>',
  '<img src="https://example.org/x.png" alt="Broken" onerror="alert(1)" />',
  '<a href="javascript:alert(2)">bad link</a>',
  '<a href="data:text/html,&lt;script&gt;alert(3)&lt;/script&gt;">data link</a>',
  '<style>body { display: none }</style><iframe src="https://evil.example/"></iframe>',
  '<p onclick="alert(4)" style="position:fixed">After</p>',
];

const HTML_INPUT = [...ALLOWED, ALLOWED_IMAGE, ...DANGEROUS].join('\n');

function expectSafe(stored: string): void {
  for (const piece of ALLOWED) expect(stored).toContain(piece);
  expect(stored).toMatch(/<img src="https:\/\/example\.org\/poster\.png" alt="Poster"\s*\/?>/);
  for (const text of ['<p>Before</p>', '<a>bad link</a>', '<a>data link</a>', '<p>After</p>'])
    expect(stored).toContain(text);
  expect(stored).toMatch(/<img src="https:\/\/example\.org\/x\.png" alt="Broken"\s*\/?>/);
  for (const gone of [
    /<script/i,
    /alert\("script"\)/,
    /onerror/i,
    /onclick/i,
    /javascript:/i,
    /data:/i,
    /<style/i,
    /display: none/,
    /<iframe/i,
    /style=/i,
  ]) {
    expect(stored).not.toMatch(gone);
  }
}

/** What is stored, as GraphQL returns it unformatted (REST shows it through wpautop, see content-formatting.test.ts). */
async function storedContent(
  type: 'event' | 'venue' | 'organizer',
  id: number,
): Promise<{ description: string; excerpt: string }> {
  const data = await server.gqlOk(
    `query ($id: ID!) { record: ${type}(id: $id) { description(format: RAW) excerpt(format: RAW) } }`,
    { id: String(id) },
  );
  return data.record;
}

/** REST answers the stored content formatted: every allowed piece is still there, inside paragraphs or not. */
function expectFormattedSafe(shown: string): void {
  const text = shown.replace(/<\/?p>|<br \/>|\n/g, '');
  for (const piece of ALLOWED) expect(text).toContain(piece.replace(/<\/?p>/g, ''));
  for (const gone of [/<script/i, /onerror/i, /onclick/i, /javascript:/i, /data:/i, /<style/i, /<iframe/i, /style=/i])
    expect(shown).not.toMatch(gone);
}

function expectInvalidParam(response: RestResponse, param: string): void {
  expect(response.status, response.text).toBe(400);
  expect(response.body.code).toBe('rest_invalid_param');
  expect(Object.keys(response.body.data.params)).toEqual([param]);
}

const future = (days: number) => ({
  start_date: `2031-03-${String(days).padStart(2, '0')} 19:00:00`,
  end_date: `2031-03-${String(days).padStart(2, '0')} 22:00:00`,
});

describe('descriptions and excerpts keep WordPress post markup only', () => {
  it('cleans an event description and excerpt written over REST, on create and on update', async () => {
    const created = await rest.post('/events', {
      json: { title: unique('Safe event'), ...future(1), description: HTML_INPUT, excerpt: HTML_INPUT },
    });
    expect(created.status, created.text).toBe(201);
    expectFormattedSafe(created.body.description);
    expectFormattedSafe(created.body.excerpt);

    const updated = await rest.post(`/events/${created.body.id}`, { json: { description: `<p>New</p>${HTML_INPUT}` } });
    expect(updated.status, updated.text).toBe(200);
    expectFormattedSafe(updated.body.description);
    const stored = await storedContent('event', created.body.id);
    expect(stored.description.startsWith('<p>New</p>')).toBe(true);
    expectSafe(stored.description);
    expectSafe(stored.excerpt);
  });

  it('cleans an event description written over GraphQL, and the venue and organizer it brings along', async () => {
    const event = await createEvent(server, {
      description: HTML_INPUT,
      excerpt: HTML_INPUT,
      venues: [{ new: { name: unique('Hall'), description: HTML_INPUT, excerpt: HTML_INPUT } }],
      organizers: [{ new: { name: unique('Crew'), description: HTML_INPUT } }],
    });
    const read = await server.gqlOk(
      `query ($id: ID!) { event(id: $id) { description(format: RAW) excerpt(format: RAW) venues { description(format: RAW) excerpt(format: RAW) } organizers { description(format: RAW) } } }`,
      { id: event.id },
    );
    for (const html of [
      read.event.description,
      read.event.excerpt,
      read.event.venues[0].description,
      read.event.venues[0].excerpt,
      read.event.organizers[0].description,
    ]) {
      expectSafe(html);
    }
  });

  it('cleans venue and organizer descriptions written over REST', async () => {
    const venue = await rest.post('/venues', {
      json: { venue: unique('REST hall'), description: HTML_INPUT, excerpt: HTML_INPUT },
    });
    expect(venue.status, venue.text).toBe(201);
    expectFormattedSafe((await rest.get(`/venues/${venue.body.id}`)).body.description);
    const storedVenue = await storedContent('venue', venue.body.id);
    expectSafe(storedVenue.description);
    expectSafe(storedVenue.excerpt);

    const organizer = await rest.post('/organizers', {
      json: { organizer: unique('REST crew'), description: HTML_INPUT },
    });
    expect(organizer.status, organizer.text).toBe(201);
    expectFormattedSafe((await rest.get(`/organizers/${organizer.body.id}`)).body.description);
    expectSafe((await storedContent('organizer', organizer.body.id)).description);
  });

  it('cleans venue and organizer descriptions updated over GraphQL', async () => {
    const venue = await createVenue(server);
    const updated = await server.gqlOk(
      `mutation ($id: ID!, $input: VenueInput!) { updateVenue(id: $id, input: $input) { description(format: RAW) excerpt(format: RAW) } }`,
      {
        id: venue.id,
        input: { description: HTML_INPUT, excerpt: HTML_INPUT },
      },
    );
    expectSafe(updated.updateVenue.description);
    expectSafe(updated.updateVenue.excerpt);

    const organizer = await server.gqlOk(
      `mutation ($input: OrganizerInput!) { createOrganizer(input: $input) { id } }`,
      { input: { name: unique('Crew') } },
    );
    const organizerUpdate = await server.gqlOk(
      `mutation ($id: ID!, $input: OrganizerInput!) { updateOrganizer(id: $id, input: $input) { description(format: RAW) } }`,
      {
        id: organizer.createOrganizer.id,
        input: { description: HTML_INPUT },
      },
    );
    expectSafe(organizerUpdate.updateOrganizer.description);
  });

  it('cleans category and tag descriptions, over REST and over GraphQL (inline literals too)', async () => {
    const category = await rest.post('/categories', { json: { name: unique('Category'), description: HTML_INPUT } });
    expect(category.status, category.text).toBe(201);
    expectSafe((await rest.get(`/categories/${category.body.id}`)).body.description);

    const tag = await server.gqlOk(
      `mutation { createEventTag(input: { name: "${unique('Tag')}", description: ${JSON.stringify(HTML_INPUT)} }) { id description } }`,
    );
    expectSafe(tag.createEventTag.description);
    const moved = await server.gqlOk(
      `mutation ($id: ID!, $input: TermInput!) { updateEventTag(id: $id, input: $input) { description } }`,
      {
        id: tag.createEventTag.id,
        input: { description: `<p>Updated</p>${HTML_INPUT}` },
      },
    );
    expectSafe(moved.updateEventTag.description);
  });
});

describe('titles and names are plain text', () => {
  it('strips tags from an event title, keeps the text and decodes character references', async () => {
    const token = unique('Title');
    const created = await rest.post('/events', {
      json: { title: `<b>${token}</b> Jazz &amp; <i>Blues</i><script>steal()</script>`, ...future(2) },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.title).toBe(`${token} Jazz & Blues`);
    expect(created.body.slug).toBe(`${token.toLowerCase()}-jazz-and-blues`);
    const read = await server.gqlOk(`query ($id: ID!) { event(id: $id) { title } }`, { id: created.body.id });
    expect(read.event.title).toBe(`${token} Jazz & Blues`);
  });

  it('never stores a tag, even one sent encoded, and keeps characters that are not markup', async () => {
    const token = unique('Encoded');
    const venue = await createVenue(server, { name: `${token} &lt;script&gt;alert(1)&lt;/script&gt;Hall` }, 'name');
    expect(venue.name).toBe(`${token} Hall`);
    const organizer = await server.gqlOk(
      `mutation ($input: OrganizerInput!) { createOrganizer(input: $input) { name } }`,
      {
        input: { name: `${token} 5 > 3 & 2 < 4` },
      },
    );
    expect(organizer.createOrganizer.name).toBe(`${token} 5 > 3 & 2 < 4`);
  });

  it('strips tags from category and tag names written over REST', async () => {
    const token = unique('Term');
    const category = await rest.post('/categories', { json: { name: `<em>${token}</em> Rock &amp; Roll` } });
    expect(category.status, category.text).toBe(201);
    expect(category.body.name).toBe(`${token} Rock & Roll`);
    const tag = await rest.post('/tags', { form: { name: `<a href="https://example.org">${token}</a> outdoor` } });
    expect(tag.status, tag.text).toBe(201);
    expect(tag.body.name).toBe(`${token} outdoor`);
  });

  it('refuses a title that is nothing but markup, naming title', async () => {
    expectInvalidParam(
      await rest.post('/events', { json: { title: '<b></b><script>x()</script>', ...future(3) } }),
      'title',
    );
  });
});

describe('URL fields take http(s) only', () => {
  const BAD_URLS = ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'ftp://example.org/file.png'];

  async function eventsTitled(title: string): Promise<number> {
    const data = await server.gqlOk(
      `query ($search: String) { events(filter: { search: $search, statuses: [PUBLISH, DRAFT, PENDING] }) { totalCount } }`,
      { search: title },
      ADMIN_AUTHORIZATION,
    );
    return data.events.totalCount;
  }

  it.each(BAD_URLS)(
    'refuses %s as an event website or image over REST, naming the parameter, and stores nothing',
    async (url) => {
      for (const param of ['website', 'image']) {
        const title = unique('Refused');
        expectInvalidParam(await rest.post('/events', { json: { title, ...future(4), [param]: url } }), param);
        expect(await eventsTitled(title)).toBe(0);
        // The same with an https URL is stored and found the same way.
        expect(
          (await rest.post('/events', { json: { title, ...future(4), [param]: images.at('/ok.png') } })).status,
        ).toBe(201);
        expect(await eventsTitled(title)).toBe(1);
      }
    },
  );

  it.each(BAD_URLS)(
    'refuses %s as a venue or organizer website or image over REST, and stores nothing',
    async (url) => {
      for (const [route, nameParam] of [
        ['/venues', 'venue'],
        ['/organizers', 'organizer'],
      ] as const) {
        for (const param of ['website', 'image']) {
          const name = unique('Refused');
          const named = async () => {
            const listed = await rest.get(route, { query: { search: name } });
            expect(listed.status, listed.text).toBe(200);
            return (listed.body[route.slice(1)] as Array<{ id: number }>).length;
          };
          expectInvalidParam(await rest.post(route, { json: { [nameParam]: name, [param]: url } }), param);
          expect(await named(), `${route} ${param}`).toBe(0);
          expect((await rest.post(route, { json: { [nameParam]: name, [param]: images.at('/ok.png') } })).status).toBe(
            201,
          );
          expect(await named(), `${route} ${param}`).toBe(1);
        }
      }
    },
  );

  it.each(BAD_URLS)('refuses %s in GraphQL input, naming the field, also in a venue brought along', async (url) => {
    const title = unique('Refused');
    const refused = onlyError(
      await server.gql(`mutation ($input: EventInput!) { createEvent(input: $input) { id } }`, {
        input: {
          title,
          startDate: '2031-04-01 10:00:00',
          endDate: '2031-04-01 11:00:00',
          website: url,
          venues: [{ new: { name: unique('Hall'), website: url } }],
        },
      }),
    );
    expect(refused.code).toBe('BAD_USER_INPUT');
    expect(Object.keys(refused.fields!).sort()).toEqual(['venues.0.website', 'website']);
    expect(await eventsTitled(title)).toBe(0);
  });

  it('refuses a bad URL on update and keeps the stored one', async () => {
    const created = await rest.post('/events', {
      json: { title: unique('Kept'), ...future(5), website: 'https://example.org/kept' },
    });
    expect(created.status, created.text).toBe(201);
    expectInvalidParam(
      await rest.post(`/events/${created.body.id}`, { json: { website: 'javascript:alert(1)' } }),
      'website',
    );
    expect((await rest.get(`/events/${created.body.id}`)).body.website).toBe('https://example.org/kept');
  });
});
