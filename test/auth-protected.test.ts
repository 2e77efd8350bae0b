import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminData,
  createPeople,
  graphql,
  mapLimit,
  mayEdit,
  roleOf,
  ROLES,
  tableDiff,
  type HttpGraphQL,
  type People,
  type ViewerName,
} from './auth-fixtures.js';
import { call, dayAt, type RestResponse } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';
import { startImageServer, type ImageServer } from './support/image-server.js';

// Images given by URL are fetched: they come from a local image server.
let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
});
afterAll(() => images?.close());

// Password-protected events (docs/rest-compatibility.md: protected records, decision 3): a single read without the right `password` is
// REST 403 event-password-protected and GraphQL `isLocked` with the content fields blanked; with it, everything. Lists
// show protected events with their content blanked unless the list's `password` matches. Whoever may edit the event
// (editors and administrators, its author while the role may edit it) sees the content without a password. The
// password itself is never returned: every response this file receives is checked for it.

const TOKEN = 'protmx';
const RIGHT = 'open-sesame-7Qx';
const OTHER_PASSWORD = 'swordfish-4Kp';
const VENUE_PASSWORD = 'venue-pass-9Zr';
const PASSWORDS = [RIGHT, OTHER_PASSWORD, VENUE_PASSWORD];

let server: TestServer;
let people: People;
/** Every response body this file received, searched for the passwords at the end. */
const seen: string[] = [];
let protectedEvent: { id: number; slug: string };
let otherProtected: number;
let plain: number;
let protectedVenue: number;
/** A published protected event owned by an author, a contributor and `other`, keyed by owner. */
const ownedBy = new Map<string, number>();

const CONTENT = {
  description: '<p>The secret programme</p>',
  excerpt: 'Secret excerpt',
  cost: '$25',
  website: 'https://example.com/secret',
};

beforeAll(async () => {
  server = await startServer({ SITE_URL: 'http://calendar.test' });
  people = await createPeople(server, 'prot');
  const event = (title: string, password: string, authorId: number, extra = '') =>
    `{ title: "${TOKEN} ${title}", startDate: "${dayAt(8)}", endDate: "${dayAt(8, '12:00:00')}", timezone: "UTC", status: PUBLISH,
       authorId: ${authorId}, password: "${password}", description: ${JSON.stringify(CONTENT.description)}, excerpt: "${CONTENT.excerpt}",
       cost: "${CONTENT.cost}", website: "${CONTENT.website}", featured: true, sticky: true, ticketed: true, image: "${images.at('/secret.jpg')}",
       categories: ["Protected category"], tags: ["Protected tag"], venues: [{ new: { name: "${TOKEN} hall", city: "Berlin" } }],
       organizers: [{ new: { name: "${TOKEN} host", phone: "555-0199" } }] ${extra} }`;
  const other = people.other.id!;
  // Owners whose own-record rows differ from the others' rows (administrators and editors may edit any record).
  const owners = [
    ...(['author', 'contributor'] as const).map((role) => [role, people.actors[role].id!] as const),
    ['other', other] as const,
  ];
  const data = await adminData(
    server,
    `mutation {
      main: createEvent(input: ${event('main', RIGHT, other)}) { id: databaseId slug }
      second: createEvent(input: ${event('second', OTHER_PASSWORD, other)}) { id: databaseId }
      plain: createEvent(input: { title: "${TOKEN} plain", startDate: "${dayAt(8)}", endDate: "${dayAt(8, '13:00:00')}", description: "Open to all" }) { id: databaseId }
      venue: createVenue(input: { name: "${TOKEN} protected venue", city: "Hamburg", address: "Secret street 1", phone: "555-0123", password: "${VENUE_PASSWORD}" }) { id: databaseId }
      ${owners.map(([owner, id]) => `owned_${owner}: createEvent(input: ${event(`owned by ${owner}`, RIGHT, id)}) { id: databaseId }`).join('\n')}
    }`,
  );
  protectedEvent = data.main;
  otherProtected = data.second.id;
  plain = data.plain.id;
  protectedVenue = data.venue.id;
  for (const [owner] of owners) ownedBy.set(owner, data[`owned_${owner}`].id);
});
afterAll(() => server?.close());

async function rest(viewer: ViewerName, route: string, query: Record<string, unknown> = {}): Promise<RestResponse> {
  const response = await call(server, 'GET', route, {
    query,
    headers: { authorization: people.actors[viewer].authorization ?? '' },
  });
  seen.push(response.text);
  return response;
}

async function gql(viewer: ViewerName, query: string, variables: Record<string, unknown> = {}): Promise<HttpGraphQL> {
  const result = await graphql(server, query, variables, people.actors[viewer].authorization);
  seen.push(result.text);
  return result;
}

/** The REST event fields a locked event blanks, as they read when blanked (docs/rest-compatibility.md). */
const BLANKED_EVENT = {
  description: '',
  excerpt: '',
  image: false,
  all_day: null,
  cost: '',
  cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
  website: '',
  show_map: null,
  show_map_link: null,
  hide_from_listings: null,
  sticky: null,
  featured: null,
  categories: [],
  tags: [],
  venue: [],
  organizer: [],
  custom_fields: [],
  ticketed: null,
};

function expectFullEvent(body: any) {
  expect(body.description).toContain('The secret programme');
  expect(body.excerpt).toContain(CONTENT.excerpt);
  expect(body.cost).toBe(CONTENT.cost);
  expect(body.website).toBe(CONTENT.website);
  expect(body.featured).toBe(true);
  expect(body.image).toMatchObject({ url: images.at('/secret.jpg') });
  expect(body.categories.map((term: { name: string }) => term.name)).toEqual(['Protected category']);
  expect(body.tags.map((term: { name: string }) => term.name)).toEqual(['Protected tag']);
  expect(body.venue).toMatchObject({ city: 'Berlin' });
  expect(body.organizer).toHaveLength(1);
}

describe('REST single event', () => {
  it.each([
    ['no password', {}],
    ['a wrong password', { password: 'not-it' }],
    ['the right password with different case', { password: RIGHT.toUpperCase() }],
  ])('with %s → 403 event-password-protected (by ID and by slug)', async (_label, query) => {
    for (const route of [`/events/${protectedEvent.id}`, `/events/by-slug/${protectedEvent.slug}`]) {
      for (const viewer of ['anonymous', 'subscriber'] as const) {
        const response = await rest(viewer, route, query);
        expect(response.status, `${viewer} ${route}`).toBe(403);
        expect(response.body).toEqual({
          code: 'event-password-protected',
          message: 'The requested event is password protected',
          data: { status: 403 },
        });
      }
    }
  });

  it('with the right password → 200 with the full event (by ID and by slug)', async () => {
    for (const route of [`/events/${protectedEvent.id}`, `/events/by-slug/${protectedEvent.slug}`]) {
      const response = await rest('anonymous', route, { password: RIGHT });
      expect(response.status, response.text).toBe(200);
      expectFullEvent(response.body);
    }
  });

  it("another event's password does not open it", async () => {
    expect((await rest('anonymous', `/events/${protectedEvent.id}`, { password: OTHER_PASSWORD })).status).toBe(403);
  });

  it('without a password, exactly the viewers who may edit the event see it (administrators, editors, its author)', async () => {
    const rows = (['anonymous', ...ROLES] as ViewerName[]).flatMap((viewer) =>
      [...ownedBy.keys()].map((owner) => ({ viewer, owner, own: owner === viewer })),
    );
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    await mapLimit(rows, 4, async ({ viewer, owner, own }) => {
      const label = `${viewer} reads event of ${owner}`;
      expected[label] = mayEdit(roleOf(viewer), own, 'publish') ? '200 full' : '403 event-password-protected';
      const response = await rest(viewer, `/events/${ownedBy.get(owner)}`);
      actual[label] =
        response.status === 200
          ? `200 ${response.body.description ? 'full' : 'blank'}`
          : `${response.status} ${response.body.code}`;
    });
    expect(tableDiff(expected, actual)).toEqual([]);
    // The rows the issue names, literally.
    expect(expected['administrator reads event of other']).toBe('200 full');
    expect(expected['editor reads event of other']).toBe('200 full');
    expect(expected['author reads event of author']).toBe('200 full');
    expect(expected['author reads event of other']).toBe('403 event-password-protected');
    expect(expected['contributor reads event of contributor']).toBe('403 event-password-protected');
  });
});

describe('REST event list', () => {
  const byId = (response: RestResponse) =>
    new Map<number, any>(response.body.events.map((event: { id: number }) => [event.id, event]));

  it('lists protected events with their content blanked; title, dates, url and status stay', async () => {
    const response = await rest('anonymous', '/events', { search: TOKEN, per_page: 50 });
    expect(response.status, response.text).toBe(200);
    const events = byId(response);
    const locked = events.get(protectedEvent.id);
    expect(locked).toMatchObject(BLANKED_EVENT);
    expect(locked.title).toBe(`${TOKEN} main`);
    expect(locked.status).toBe('publish');
    expect(locked.slug).toBe(protectedEvent.slug);
    expect(locked.start_date).toBe(dayAt(8));
    expect(locked.url).toContain(protectedEvent.slug);
    expect(events.get(otherProtected)).toMatchObject(BLANKED_EVENT);
    expect(events.get(plain).description).toContain('Open to all');
  });

  it("the list's password opens only the events it belongs to", async () => {
    const response = await rest('anonymous', '/events', { search: TOKEN, per_page: 50, password: OTHER_PASSWORD });
    const events = byId(response);
    expect(events.get(otherProtected).description).toContain('The secret programme');
    expect(events.get(otherProtected).venue).toMatchObject({ city: 'Berlin' });
    expect(events.get(protectedEvent.id)).toMatchObject(BLANKED_EVENT);
    expect(response.body.rest_url).not.toContain('password');
  });

  it('editors and administrators see the content in lists without a password; authors only of their own', async () => {
    for (const viewer of ['administrator', 'editor'] as const) {
      const events = byId(await rest(viewer, '/events', { search: TOKEN, per_page: 50 }));
      expectFullEvent(events.get(protectedEvent.id));
    }
    const author = byId(await rest('author', '/events', { search: TOKEN, per_page: 50 }));
    expect(author.get(protectedEvent.id)).toMatchObject(BLANKED_EVENT);
    expect(author.get(ownedBy.get('author')!).description).toContain('The secret programme');
  });
});

describe('REST protected venue', () => {
  it('single read: 200 with the content blanked, full with the password', async () => {
    const locked = await rest('anonymous', `/venues/${protectedVenue}`);
    expect(locked.status, locked.text).toBe(200);
    expect(locked.body.venue).toBe(`${TOKEN} protected venue`);
    expect(locked.body.city).toBe('');
    expect(locked.body.address).toBe('');
    expect(locked.body.phone).toBe('');
    const open = await rest('anonymous', `/venues/${protectedVenue}`, { password: VENUE_PASSWORD });
    expect(open.body.city).toBe('Hamburg');
    expect(open.body.address).toBe('Secret street 1');
    const editor = await rest('editor', `/venues/${protectedVenue}`);
    expect(editor.body.city).toBe('Hamburg');
  });
});

describe('protected venues in GraphQL and embedded in events', () => {
  it('GraphQL venue(id): content withheld while locked, shown with the password or to an editor', async () => {
    const query = `query ($password: String) { venue(id: ${protectedVenue}, password: $password) { name isLocked city address phone } }`;
    expect((await gql('anonymous', query)).body.data.venue).toEqual({
      name: `${TOKEN} protected venue`,
      isLocked: true,
      city: '',
      address: '',
      phone: '',
    });
    expect((await gql('anonymous', query, { password: VENUE_PASSWORD })).body.data.venue).toMatchObject({
      isLocked: false,
      city: 'Hamburg',
    });
    expect((await gql('editor', query)).body.data.venue).toMatchObject({ isLocked: false, city: 'Hamburg' });
  });

  it('an event embedding a protected venue does not show its content', async () => {
    const { e } = await adminData(
      server,
      `mutation { e: createEvent(input: { title: "${TOKEN} at protected venue", startDate: "${dayAt(8)}", endDate: "${dayAt(8, '12:00:00')}", venues: [{ id: ${protectedVenue} }] }) { id: databaseId } }`,
    );
    const response = await rest('anonymous', `/events/${e.id}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.venue).toMatchObject({ id: protectedVenue, venue: `${TOKEN} protected venue` });
    for (const content of ['Hamburg', 'Secret street', '555-0123']) expect(response.text).not.toContain(content);
  });
});

describe('GraphQL', () => {
  const FIELDS = `id: databaseId title slug status hasPassword isLocked description(format: RAW) excerpt(format: RAW) cost website featured
    costDetails { currencySymbol values } image { url } categories { name } tags { name } venues { city } organizers { name }`;
  const LOCKED = {
    hasPassword: true,
    isLocked: true,
    description: '',
    excerpt: '',
    cost: '',
    website: '',
    costDetails: { currencySymbol: '', values: [] },
    image: null,
    categories: [],
    tags: [],
  };
  const expectOpen = (event: any) => {
    expect(event).toMatchObject({
      hasPassword: true,
      isLocked: false,
      excerpt: CONTENT.excerpt,
      cost: CONTENT.cost,
      website: CONTENT.website,
    });
    expect(event.description).toContain('The secret programme');
    expect(event.image).toEqual({ url: images.at('/secret.jpg') });
    expect(event.categories).toEqual([{ name: 'Protected category' }]);
    expect(event.costDetails.values).toEqual(['25']);
  };

  it('event(id) / eventBySlug without or with a wrong password: isLocked, content blank, title and status shown', async () => {
    for (const password of [null, 'not-it', OTHER_PASSWORD]) {
      const result = await gql(
        'anonymous',
        `query ($id: ID!, $slug: String!, $password: String) { byId: event(id: $id, password: $password) { ${FIELDS} } bySlug: eventBySlug(slug: $slug, password: $password) { ${FIELDS} } }`,
        { id: protectedEvent.id, slug: protectedEvent.slug, password },
      );
      expect(result.status).toBe(200);
      expect(result.body.errors).toBeUndefined();
      for (const event of [result.body.data.byId, result.body.data.bySlug]) {
        expect(event, String(password)).toMatchObject({
          ...LOCKED,
          id: protectedEvent.id,
          title: `${TOKEN} main`,
          status: 'PUBLISH',
        });
      }
    }
  });

  it('with the right password: isLocked false and the full content', async () => {
    const result = await gql(
      'anonymous',
      `query ($id: ID!, $password: String) { event(id: $id, password: $password) { ${FIELDS} } }`,
      {
        id: protectedEvent.id,
        password: RIGHT,
      },
    );
    expectOpen(result.body.data.event);
  });

  it('events(password): opens only the events it belongs to; an unprotected event is never locked', async () => {
    const result = await gql(
      'anonymous',
      `query ($password: String) { events(filter: { search: "${TOKEN}" }, password: $password, first: 50) { edges { node { ${FIELDS} } } } }`,
      {
        password: RIGHT,
      },
    );
    const events = new Map<number, any>(result.body.data.events.edges.map(({ node }: any) => [node.id, node]));
    expectOpen(events.get(protectedEvent.id));
    expect(events.get(otherProtected)).toMatchObject(LOCKED);
    expect(events.get(plain)).toMatchObject({ hasPassword: false, isLocked: false, description: 'Open to all' });
  });

  it('administrators and editors see the content without a password; an author not owning it does not', async () => {
    for (const viewer of ['administrator', 'editor'] as const) {
      const result = await gql(viewer, `{ event(id: ${protectedEvent.id}) { ${FIELDS} } }`);
      expectOpen(result.body.data.event);
    }
    const author = await gql('author', `{ event(id: ${protectedEvent.id}) { ${FIELDS} } }`);
    expect(author.body.data.event).toMatchObject(LOCKED);
  });

  it('updating the password does not echo it, and an empty password removes the protection', async () => {
    const created = await gql(
      'administrator',
      `mutation { e: createEvent(input: { title: "${TOKEN} temp2", startDate: "${dayAt(8)}", endDate: "${dayAt(8, '12:00:00')}", password: "${RIGHT}" }) { id: databaseId hasPassword } }`,
    );
    expect(created.body.data.e.hasPassword).toBe(true);
    const cleared = await gql(
      'administrator',
      `mutation { e: updateEvent(id: ${created.body.data.e.id}, input: { password: "" }) { hasPassword } }`,
    );
    expect(cleared.body.data.e.hasPassword).toBe(false);
    const open = await rest('anonymous', `/events/${created.body.data.e.id}`);
    expect(open.status).toBe(200);
  });
});

describe('the password', () => {
  it('never appears in any response (REST or GraphQL, locked or open, lists or single reads)', () => {
    expect(seen.length).toBeGreaterThan(30);
    const leaks = seen.flatMap((text, index) =>
      PASSWORDS.filter((password) => text.includes(password)).map((password) => `response ${index} holds ${password}`),
    );
    expect(leaks).toEqual([]);
  });
});
