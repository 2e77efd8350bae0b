import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, createOrganizer, daysFromNow, unique } from './support/factories.js';
import { ADMIN_AUTHORIZATION, startServer, type As, type GraphQLResult, type TestServer } from './support/server.js';
import { startImageServer, type ImageServer } from './support/image-server.js';

// Images given by URL are fetched: they come from a local image server.
let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
});
afterAll(() => images?.close());

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ SITE_TIMEZONE: 'Europe/Berlin' });
});
afterAll(() => server.close());

const ORGANIZER_FIELDS = `id: databaseId name slug description(format: RAW) excerpt(format: RAW) status authorId publishedAt publishedLocal modifiedAt modifiedLocal
  phone website email hasPassword image { id: databaseId url extension }`;

const CREATE = `mutation ($input: OrganizerInput!) { createOrganizer(input: $input) { ${ORGANIZER_FIELDS} } }`;
const UPDATE = `mutation ($id: ID!, $input: OrganizerInput!) { updateOrganizer(id: $id, input: $input) { ${ORGANIZER_FIELDS} } }`;
const DELETE = `mutation ($id: ID!, $force: Boolean) { deleteOrganizer(id: $id, force: $force) { id: databaseId name status } }`;
const BY_ID = `query ($id: ID!) { organizer(id: $id) { ${ORGANIZER_FIELDS} } }`;
const BY_SLUG = `query ($slug: String!) { organizerBySlug(slug: $slug) { ${ORGANIZER_FIELDS} } }`;
const LIST = `query ($search: String, $event: Int, $hasEvents: Boolean, $onlyWithUpcoming: Boolean, $statuses: [PostStatus!],
  $first: Int, $after: String) {
  organizers(search: $search, event: $event, hasEvents: $hasEvents, onlyWithUpcoming: $onlyWithUpcoming, statuses: $statuses,
    first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage endCursor }
    edges { cursor node { id: databaseId name status } }
  }
}`;

function onlyError(result: GraphQLResult) {
  expect(result.errors, 'expected the operation to fail').toBeDefined();
  expect(result.errors).toHaveLength(1);
  return result.errors![0];
}

function expectInputError(result: GraphQLResult, ...fields: string[]) {
  const error = onlyError(result);
  expect(error.extensions?.code).toBe('BAD_USER_INPUT');
  expect(Object.keys(error.extensions?.fields ?? {}).sort()).toEqual([...fields].sort());
  return error;
}

/** The IDs the list answers, read as `as` (anonymous by default: published organizers only). */
async function listIds(variables: Record<string, unknown>, as?: As): Promise<number[]> {
  const data = await server.gqlOk(LIST, variables, as);
  return data.organizers.edges.map((edge: any) => edge.node.id);
}

/** The administrator's user ID: records it creates are its own. */
async function adminId(): Promise<number> {
  return (await server.gqlOk(`{ viewer { id: databaseId } }`, {}, ADMIN_AUTHORIZATION)).viewer.id;
}

describe('createOrganizer', () => {
  it('creates an organizer with every field and reads it back by ID and by slug', async () => {
    const name = `Jazz Club ${unique('jc')}`;
    const { createOrganizer: organizer } = await server.gqlOk(CREATE, {
      input: {
        name: `  ${name}  `,
        description: '<p>Runs concerts</p>',
        excerpt: 'Concerts',
        phone: '+49 30 123456',
        website: 'http://jazz.example.org/about',
        email: 'info@jazz.example.org',
        password: 'secret',
      },
    });
    expect(organizer).toMatchObject({
      name,
      slug: name.toLowerCase().replace(/ /g, '-'),
      description: '<p>Runs concerts</p>',
      excerpt: 'Concerts',
      status: 'PUBLISH',
      authorId: await adminId(),
      phone: '+49 30 123456',
      website: 'http://jazz.example.org/about',
      email: 'info@jazz.example.org',
      hasPassword: true,
      image: null,
    });
    expect(Math.abs(Date.parse(organizer.publishedAt) - Date.now())).toBeLessThan(60_000);
    // It is password-protected: the administrator, who may edit it, reads it whole; anyone else needs the password.
    expect((await server.gqlOk(BY_ID, { id: organizer.id }, ADMIN_AUTHORIZATION)).organizer).toEqual(organizer);
    const bySlug = await server.gqlOk(
      `query ($slug: String!, $password: String) { organizerBySlug(slug: $slug, password: $password) { ${ORGANIZER_FIELDS} } }`,
      { slug: organizer.slug, password: 'secret' },
    );
    expect(bySlug.organizerBySlug).toEqual(organizer);
  });

  it('withholds the content of a password-protected organizer from readers without the password', async () => {
    const name = unique('Locked Org');
    const content = {
      description: '<p>Hidden</p>',
      excerpt: 'Psst',
      phone: '555',
      website: 'https://secret.example',
      email: 'secret@example.com',
    };
    const image = images.at(`/${unique('locked')}.jpg`);
    const { id, slug } = await createOrganizer(server, { name, ...content, image, password: 'letmein' });
    const FIELDS =
      'id: databaseId name slug status hasPassword isLocked description(format: RAW) excerpt(format: RAW) phone website email image { url }';
    const READ = `query ($id: ID!, $slug: String!, $password: String) {
      byId: organizer(id: $id, password: $password) { ${FIELDS} } bySlug: organizerBySlug(slug: $slug, password: $password) { ${FIELDS} }
    }`;
    const blank = { description: '', excerpt: '', phone: '', website: '', email: '', image: null };
    for (const password of [undefined, 'nope']) {
      const data = await server.gqlOk(READ, { id, slug, password });
      for (const organizer of [data.byId, data.bySlug]) {
        expect(organizer, String(password)).toEqual({
          id,
          name,
          slug,
          status: 'PUBLISH',
          hasPassword: true,
          isLocked: true,
          ...blank,
        });
      }
    }
    const listed = await server.gqlOk(
      `query ($search: String) { organizers(search: $search) { edges { node { ${FIELDS} } } } }`,
      { search: name },
    );
    expect(listed.organizers.edges.map((edge: any) => edge.node)).toEqual([
      expect.objectContaining({ id, isLocked: true, ...blank }),
    ]);

    const unlocked = await server.gqlOk(READ, { id, slug, password: 'letmein' });
    for (const organizer of [unlocked.byId, unlocked.bySlug]) {
      expect(organizer).toEqual({
        id,
        name,
        slug,
        status: 'PUBLISH',
        hasPassword: true,
        isLocked: false,
        ...content,
        image: { url: image },
      });
    }
    const asAdmin = await server.gqlOk(READ, { id, slug }, ADMIN_AUTHORIZATION);
    expect(asAdmin.byId).toEqual(unlocked.byId);
  });

  it('fills defaults for the fields left out', async () => {
    const { createOrganizer: organizer } = await server.gqlOk(CREATE, { input: { name: unique('Bare') } });
    expect(organizer).toMatchObject({
      description: '',
      phone: '',
      website: '',
      email: '',
      status: 'PUBLISH',
      hasPassword: false,
      image: null,
    });
  });

  it('answers null for an unknown ID or slug', async () => {
    expect((await server.gqlOk(BY_ID, { id: 999_999 })).organizer).toBeNull();
    expect((await server.gqlOk(BY_SLUG, { slug: 'no-such-organizer-here' })).organizerBySlug).toBeNull();
  });

  it('takes the publication date in the site time zone, or in UTC', async () => {
    const local = await createOrganizer(server, { date: '2024-07-01 12:00:00' }, 'publishedAt publishedLocal');
    expect(local).toMatchObject({ publishedAt: '2024-07-01T10:00:00.000Z', publishedLocal: '2024-07-01 12:00:00' });
    const utc = await createOrganizer(server, { dateUtc: '2024-01-15 12:00:00' }, 'publishedAt publishedLocal');
    expect(utc).toMatchObject({ publishedAt: '2024-01-15T12:00:00.000Z', publishedLocal: '2024-01-15 13:00:00' });
  });

  it('accepts the ID of a known user as author', async () => {
    const user = await server.app.db.user.create({ data: { login: unique('author'), displayName: 'Grace' } });
    const organizer = await createOrganizer(server, { authorId: user.id }, 'authorId author { id: databaseId login }');
    expect(organizer).toMatchObject({ authorId: user.id, author: { id: user.id, login: user.login } });
  });

  describe('refuses bad input with BAD_USER_INPUT naming the field', () => {
    it('a missing name', async () => {
      expectInputError(await server.gql(CREATE, { input: { email: 'a@example.com' } }), 'name');
    });

    it('a blank name', async () => {
      expectInputError(await server.gql(CREATE, { input: { name: ' \t ' } }), 'name');
    });

    it('a website that is not an http(s) URL', async () => {
      expectInputError(
        await server.gql(CREATE, { input: { name: unique('O'), website: 'www.example.com' } }),
        'website',
      );
      expectInputError(
        await server.gql(CREATE, { input: { name: unique('O'), website: 'mailto:a@example.com' } }),
        'website',
      );
    });

    it('an e-mail address that is not one', async () => {
      expectInputError(await server.gql(CREATE, { input: { name: unique('O'), email: 'not-an-email' } }), 'email');
      expectInputError(await server.gql(CREATE, { input: { name: unique('O'), email: 'a@b' } }), 'email');
      expectInputError(await server.gql(CREATE, { input: { name: unique('O'), email: 'a b@example.com' } }), 'email');
    });

    it('an unknown authorId', async () => {
      expectInputError(await server.gql(CREATE, { input: { name: unique('O'), authorId: 424242 } }), 'authorId');
    });

    it('an image that is neither the ID of a known image nor an http(s) URL', async () => {
      expectInputError(await server.gql(CREATE, { input: { name: unique('O'), image: '/uploads/logo.png' } }), 'image');
      expectInputError(await server.gql(CREATE, { input: { name: unique('O'), image: '987654' } }), 'image');
    });

    it('every bad field at once, writing nothing', async () => {
      const name = unique('Refused');
      expectInputError(
        await server.gql(CREATE, { input: { name, website: 'nope', email: 'nope', image: 'nope' } }),
        'website',
        'email',
        'image',
      );
      expect(await listIds({ search: name, statuses: ['PUBLISH', 'DRAFT', 'TRASH'] }, ADMIN_AUTHORIZATION)).toEqual([]);
    });

    it('with the path of an organizer created along with an event', async () => {
      const result = await server.gql(
        `mutation ($input: EventInput!) { createEvent(input: $input) { id: databaseId } }`,
        {
          input: {
            title: unique('Event'),
            startDate: daysFromNow(1),
            endDate: daysFromNow(2),
            organizers: [{ new: { name: '', email: 'nope', dateUtc: 'not a date at all' } }],
          },
        },
      );
      expectInputError(result, 'organizers.0.name', 'organizers.0.email', 'organizers.0.dateUtc');
    });
  });

  describe('slugs', () => {
    it('generates the slug from the name and adds -2, -3 … when it is taken', async () => {
      const name = `Ünïque Örg ${unique('o')}`;
      const first = await createOrganizer(server, { name });
      const second = await createOrganizer(server, { name });
      const third = await createOrganizer(server, { name });
      expect(first.slug).toMatch(/^unique-org-o-/);
      expect(second.slug).toBe(`${first.slug}-2`);
      expect(third.slug).toBe(`${first.slug}-3`);
    });

    it('uses a given slug, normalised, and numbers it on a clash', async () => {
      const base = `Given Slug ${unique('g')}`;
      const first = await createOrganizer(server, { slug: base });
      expect(first.slug).toBe(base.toLowerCase().replace(/ /g, '-'));
      const second = await createOrganizer(server, { slug: first.slug });
      expect(second.slug).toBe(`${first.slug}-2`);
    });
  });

  describe('image', () => {
    it('keeps an image URL as a media record, reused for the same URL', async () => {
      const url = images.at(`/${unique('logo')}.png`);
      const first = await createOrganizer(server, { image: url }, 'image { id: databaseId url extension }');
      expect(first.image).toMatchObject({ url, extension: 'png' });
      const second = await createOrganizer(server, { image: url }, 'image { id: databaseId }');
      expect(second.image.id).toBe(first.image.id);
    });

    it('accepts the ID of a known image, also one first kept for a venue', async () => {
      const url = images.at(`/${unique('shared')}.png`);
      const venue = await server.gqlOk(
        `mutation ($input: VenueInput!) { createVenue(input: $input) { image { id: databaseId } } }`,
        {
          input: { name: unique('V'), image: url },
        },
      );
      const organizer = await createOrganizer(
        server,
        { image: String(venue.createVenue.image.id) },
        'image { id: databaseId url }',
      );
      expect(organizer.image).toEqual({ id: venue.createVenue.image.id, url });
    });
  });
});

describe('updateOrganizer', () => {
  it('changes only the fields given', async () => {
    const { globalId: _globalId, ...organizer } = await createOrganizer(
      server,
      { phone: '1', email: 'old@example.com' },
      ORGANIZER_FIELDS,
    );
    const { updateOrganizer: updated } = await server.gqlOk(UPDATE, {
      id: organizer.id,
      input: { email: 'new@example.com' },
    });
    expect(updated).toMatchObject({
      ...organizer,
      email: 'new@example.com',
      modifiedAt: expect.any(String),
      modifiedLocal: expect.any(String),
    });
    expect((await server.gqlOk(BY_ID, { id: organizer.id })).organizer).toEqual(updated);
  });

  it('leaves a text field as it is when it is sent as null, and clears it with an empty string', async () => {
    const organizer = await createOrganizer(server, { phone: '42', email: 'keep@example.com' });
    const { updateOrganizer: kept } = await server.gqlOk(UPDATE, {
      id: organizer.id,
      input: { phone: null, email: null, status: null },
    });
    expect(kept).toMatchObject({ phone: '42', email: 'keep@example.com', status: 'PUBLISH' });
    const { updateOrganizer: cleared } = await server.gqlOk(UPDATE, {
      id: organizer.id,
      input: { phone: '', email: '' },
    });
    expect(cleared).toMatchObject({ phone: '', email: '' });
  });

  it('keeps the slug when the name changes, and moves to a free one when asked for a taken slug', async () => {
    const taken = await createOrganizer(server);
    const organizer = await createOrganizer(server);
    const { updateOrganizer: renamed } = await server.gqlOk(UPDATE, {
      id: organizer.id,
      input: { name: unique('Renamed') },
    });
    expect(renamed.slug).toBe(organizer.slug);
    const { updateOrganizer: moved } = await server.gqlOk(UPDATE, { id: organizer.id, input: { slug: taken.slug } });
    expect(moved.slug).toBe(`${taken.slug}-2`);
  });

  it('sets and clears the image', async () => {
    const organizer = await createOrganizer(server);
    const url = images.at(`/${unique('o')}.webp`);
    expect((await server.gqlOk(UPDATE, { id: organizer.id, input: { image: url } })).updateOrganizer.image.url).toBe(
      url,
    );
    expect((await server.gqlOk(UPDATE, { id: organizer.id, input: { image: '' } })).updateOrganizer.image).toBeNull();
  });

  it('validates like create', async () => {
    const organizer = await createOrganizer(server);
    expectInputError(await server.gql(UPDATE, { id: organizer.id, input: { name: '  ' } }), 'name');
    expectInputError(await server.gql(UPDATE, { id: organizer.id, input: { email: 'x' } }), 'email');
    expectInputError(await server.gql(UPDATE, { id: organizer.id, input: { website: 'x' } }), 'website');
    expectInputError(await server.gql(UPDATE, { id: organizer.id, input: { authorId: 424242 } }), 'authorId');
  });

  it('answers NOT_FOUND for an unknown organizer', async () => {
    expect(onlyError(await server.gql(UPDATE, { id: 999_999, input: { phone: '1' } })).extensions?.code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('deleteOrganizer', () => {
  it('moves the organizer to the trash first, then refuses a second delete with ALREADY_TRASHED', async () => {
    const organizer = await createOrganizer(server, {}, 'name');
    expect((await server.gqlOk(DELETE, { id: organizer.id })).deleteOrganizer).toEqual({
      id: organizer.id,
      name: organizer.name,
      status: 'TRASH',
    });
    expect((await server.gqlOk(BY_ID, { id: organizer.id }, ADMIN_AUTHORIZATION)).organizer.status).toBe('TRASH');
    expect(onlyError(await server.gql(BY_ID, { id: organizer.id })).extensions).toMatchObject({
      code: 'FORBIDDEN',
      reason: 'NO_LONGER_AVAILABLE',
    });
    expect(onlyError(await server.gql(DELETE, { id: organizer.id })).extensions?.code).toBe('ALREADY_TRASHED');
  });

  it('deletes for good with force, answering the organizer as it was', async () => {
    const organizer = await createOrganizer(server, {}, 'name');
    expect((await server.gqlOk(DELETE, { id: organizer.id, force: true })).deleteOrganizer).toEqual({
      id: organizer.id,
      name: organizer.name,
      status: 'PUBLISH',
    });
    expect((await server.gqlOk(BY_ID, { id: organizer.id })).organizer).toBeNull();
  });

  it('takes a trashed organizer off its events, keeping the others in their order', async () => {
    const first = await createOrganizer(server);
    const trashed = await createOrganizer(server);
    const last = await createOrganizer(server);
    const event = await createEvent(server, { organizers: [{ id: first.id }, { id: trashed.id }, { id: last.id }] });
    await server.gqlOk(DELETE, { id: trashed.id });
    const data = await server.gqlOk(`query ($id: ID!) { event(id: $id) { organizers { id: databaseId } } }`, {
      id: event.id,
    });
    expect(data.event.organizers).toEqual([{ id: first.id }, { id: last.id }]);
    const organizer = await server.gqlOk(
      `query ($id: ID!) { organizer(id: $id) { events { totalCount edges { node { id: databaseId } } } } }`,
      { id: trashed.id },
      ADMIN_AUTHORIZATION,
    );
    expect(organizer.organizer.events).toEqual({ totalCount: 0, edges: [] });
  });

  it('answers NOT_FOUND for an unknown organizer', async () => {
    expect(onlyError(await server.gql(DELETE, { id: 999_999, force: true })).extensions?.code).toBe('NOT_FOUND');
  });
});

describe('organizers (list)', () => {
  it('lists published organizers only to readers, every status but trash to writers, unless other statuses are asked for', async () => {
    const token = unique('st');
    const published = await createOrganizer(server, { name: `${token} published` });
    const draft = await createOrganizer(server, { name: `${token} draft`, status: 'DRAFT' });
    const privateOne = await createOrganizer(server, { name: `${token} private`, status: 'PRIVATE' });
    expect(await listIds({ search: token })).toEqual([published.id]);
    expectInputError(await server.gql(LIST, { search: token, statuses: ['DRAFT', 'PRIVATE'] }), 'statuses');
    expect((await listIds({ search: token }, ADMIN_AUTHORIZATION)).sort()).toEqual(
      [published.id, draft.id, privateOne.id].sort(),
    );
    expect((await listIds({ search: token, statuses: ['DRAFT', 'PRIVATE'] }, ADMIN_AUTHORIZATION)).sort()).toEqual(
      [draft.id, privateOne.id].sort(),
    );
  });

  it('searches case-insensitively over name, description, excerpt, phone, e-mail and website', async () => {
    const token = unique('needle').toLowerCase();
    const expected: number[] = [];
    expected.push((await createOrganizer(server, { name: `The ${token} Org` })).id);
    expected.push((await createOrganizer(server, { description: `<p>${token}</p>` })).id);
    expected.push((await createOrganizer(server, { excerpt: `about ${token}` })).id);
    expected.push((await createOrganizer(server, { phone: `555 ${token}` })).id);
    expected.push((await createOrganizer(server, { email: `${token}@example.com` })).id);
    expected.push((await createOrganizer(server, { website: `https://example.com/${token}` })).id);
    await createOrganizer(server, { name: unique('Unrelated') });
    expect((await listIds({ search: token.toUpperCase(), first: 100 })).sort()).toEqual(expected.sort());
  });

  it('treats % and _ in the search as plain characters', async () => {
    const token = unique('lit');
    const underscore = await createOrganizer(server, { email: `${token}_x@example.com` });
    await createOrganizer(server, { email: `${token}-x@example.com` });
    expect(await listIds({ search: `${token}_x` })).toEqual([underscore.id]);
    expect(await listIds({ search: `${token}%x` })).toEqual([]);
  });

  it('refuses a blank search', async () => {
    expectInputError(await server.gql(LIST, { search: '' }), 'search');
  });

  it('filters by event: only the organizers linked to it', async () => {
    const token = unique('ev');
    const linked = await createOrganizer(server, { name: `${token} linked` });
    const elsewhere = await createOrganizer(server, { name: `${token} elsewhere` });
    const event = await createEvent(server, { organizers: [{ id: linked.id }] });
    await createEvent(server, { organizers: [{ id: elsewhere.id }] });
    expect(await listIds({ event: event.id })).toEqual([linked.id]);
  });

  it('answers BAD_USER_INPUT naming `event` for an unknown event', async () => {
    expectInputError(await server.gql(LIST, { event: 999_999 }), 'event');
  });

  it('filters by hasEvents, where draft and pending events do not count', async () => {
    const token = unique('has');
    const withPublished = await createOrganizer(server, { name: `${token} published event` });
    const withFuture = await createOrganizer(server, { name: `${token} scheduled event` });
    const withDraft = await createOrganizer(server, { name: `${token} draft event` });
    const withPending = await createOrganizer(server, { name: `${token} pending event` });
    const withNone = await createOrganizer(server, { name: `${token} no event` });
    await createEvent(server, { organizers: [{ id: withPublished.id }] });
    await createEvent(server, { organizers: [{ id: withFuture.id }], status: 'FUTURE' });
    await createEvent(server, { organizers: [{ id: withDraft.id }], status: 'DRAFT' });
    await createEvent(server, { organizers: [{ id: withPending.id }], status: 'PENDING' });

    expect((await listIds({ search: token, hasEvents: true })).sort()).toEqual(
      [withPublished.id, withFuture.id].sort(),
    );
    expect((await listIds({ search: token, hasEvents: false })).sort()).toEqual(
      [withDraft.id, withPending.id, withNone.id].sort(),
    );
  });

  it('filters by onlyWithUpcoming: organizers linked to events starting from now', async () => {
    const token = unique('up');
    const upcoming = await createOrganizer(server, { name: `${token} upcoming` });
    const past = await createOrganizer(server, { name: `${token} past` });
    const both = await createOrganizer(server, { name: `${token} both` });
    await createEvent(server, {
      organizers: [{ id: upcoming.id }, { id: both.id }],
      startDate: daysFromNow(1),
      endDate: daysFromNow(2),
    });
    await createEvent(server, {
      organizers: [{ id: past.id }, { id: both.id }],
      startDate: daysFromNow(-3),
      endDate: daysFromNow(-2),
    });
    expect((await listIds({ search: token, onlyWithUpcoming: true })).sort()).toEqual([upcoming.id, both.id].sort());
  });

  it('orders by publication date, newest first, then by ID descending', async () => {
    const token = unique('ord');
    const oldest = await createOrganizer(server, { name: `${token} a`, dateUtc: '2019-05-05 05:05:05' });
    const newest = await createOrganizer(server, { name: `${token} b`, dateUtc: '2025-05-05 05:05:05' });
    const tieFirst = await createOrganizer(server, { name: `${token} c`, dateUtc: '2020-01-01 00:00:00' });
    const tieSecond = await createOrganizer(server, { name: `${token} d`, dateUtc: '2020-01-01 00:00:00' });
    expect(await listIds({ search: token })).toEqual([newest.id, tieSecond.id, tieFirst.id, oldest.id]);
  });

  it('pages with first/after and counts every match in totalCount', async () => {
    const token = unique('page');
    const ids: number[] = [];
    for (let day = 1; day <= 3; day++)
      ids.unshift((await createOrganizer(server, { name: `${token} ${day}`, date: `2022-02-0${day} 10:00:00` })).id);
    const first = (await server.gqlOk(LIST, { search: token, first: 2 })).organizers;
    expect(first).toMatchObject({ totalCount: 3, pageInfo: { hasNextPage: true } });
    expect(first.edges.map((edge: any) => edge.node.id)).toEqual(ids.slice(0, 2));
    const rest = (await server.gqlOk(LIST, { search: token, first: 2, after: first.pageInfo.endCursor })).organizers;
    expect(rest).toMatchObject({ totalCount: 3, pageInfo: { hasNextPage: false } });
    expect(rest.edges.map((edge: any) => edge.node.id)).toEqual(ids.slice(2));
  });
});

describe('organizer.events', () => {
  it('lists the events the organizer runs by start', async () => {
    const organizer = await createOrganizer(server);
    const later = await createEvent(server, {
      organizers: [{ id: organizer.id }],
      startDate: daysFromNow(30),
      endDate: daysFromNow(31),
    });
    const earlier = await createEvent(server, {
      organizers: [{ id: organizer.id }],
      startDate: daysFromNow(-30),
      endDate: daysFromNow(-29),
    });
    await createEvent(server);
    const data = await server.gqlOk(
      `query ($id: ID!) { organizer(id: $id) { events { totalCount edges { node { id: databaseId } } } } }`,
      { id: organizer.id },
    );
    expect(data.organizer.events.totalCount).toBe(2);
    expect(data.organizer.events.edges.map((edge: any) => edge.node.id)).toEqual([earlier.id, later.id]);
  });
});
