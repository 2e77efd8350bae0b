import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, createVenue, daysFromNow, unique } from './support/factories.js';
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

const VENUE_FIELDS = `id: databaseId name slug description(format: RAW) excerpt(format: RAW) status authorId publishedAt publishedLocal modifiedAt modifiedLocal
  address city country province state zip phone stateProvince website showMap showMapLink latitude longitude hasPassword
  image { id: databaseId url extension }`;

const CREATE = `mutation ($input: VenueInput!) { createVenue(input: $input) { ${VENUE_FIELDS} } }`;
const UPDATE = `mutation ($id: ID!, $input: VenueInput!) { updateVenue(id: $id, input: $input) { ${VENUE_FIELDS} } }`;
const DELETE = `mutation ($id: ID!, $force: Boolean) { deleteVenue(id: $id, force: $force) { id: databaseId name status } }`;
const BY_ID = `query ($id: ID!) { venue(id: $id) { ${VENUE_FIELDS} } }`;
const LIST = `query ($search: String, $eventId: ID, $event: Int, $hasEvents: Boolean, $onlyWithUpcoming: Boolean, $statuses: [PostStatus!],
  $first: Int, $after: String) {
  venues(search: $search, eventId: $eventId, event: $event, hasEvents: $hasEvents, onlyWithUpcoming: $onlyWithUpcoming, statuses: $statuses,
    first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage endCursor }
    edges { cursor node { id: databaseId name status } }
  }
}`;

/** The single error of a failed operation, with its code and (for bad input) the offending fields. */
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

/** The IDs the list answers, read as `as` (anonymous by default: published venues only). */
async function listIds(variables: Record<string, unknown>, as?: As): Promise<number[]> {
  const data = await server.gqlOk(LIST, variables, as);
  return data.venues.edges.map((edge: any) => edge.node.id);
}

/** The administrator's user ID: records it creates are its own. */
async function adminId(): Promise<number> {
  return (await server.gqlOk(`{ viewer { id: databaseId } }`, {}, ADMIN_AUTHORIZATION)).viewer.id;
}

describe('createVenue', () => {
  it('creates a venue with every field and reads it back by ID and by slug', async () => {
    const name = `Town Hall ${unique('th')}`;
    const { createVenue: venue } = await server.gqlOk(CREATE, {
      input: {
        name: `  ${name}  `,
        description: '<p>Big room</p>',
        excerpt: 'Big',
        address: '1 Main Street',
        city: 'Springfield',
        country: 'United States',
        province: 'Ontario',
        state: 'IL',
        zip: '62701',
        phone: '+1 555 0100',
        stateProvince: 'IL',
        website: 'https://townhall.example.com',
        showMap: false,
        showMapLink: false,
        latitude: 39.8,
        longitude: -89.65,
        password: 'secret',
      },
    });
    expect(venue).toMatchObject({
      name,
      description: '<p>Big room</p>',
      excerpt: 'Big',
      status: 'PUBLISH',
      authorId: await adminId(),
      address: '1 Main Street',
      city: 'Springfield',
      country: 'United States',
      province: 'Ontario',
      state: 'IL',
      zip: '62701',
      phone: '+1 555 0100',
      stateProvince: 'IL',
      website: 'https://townhall.example.com',
      showMap: false,
      showMapLink: false,
      latitude: 39.8,
      longitude: -89.65,
      hasPassword: true,
      image: null,
    });
    expect(venue.slug).toBe(name.toLowerCase().replace(/ /g, '-'));
    expect(venue.publishedLocal).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(Math.abs(Date.parse(venue.publishedAt) - Date.now())).toBeLessThan(60_000);

    // It is password-protected: the administrator, who may edit it, reads it whole; anyone else needs the password.
    expect((await server.gqlOk(BY_ID, { id: venue.id }, ADMIN_AUTHORIZATION)).venue).toEqual(venue);
    const bySlug = await server.gqlOk(
      `query ($slug: String!, $password: String) { venueBySlug(slug: $slug, password: $password) { ${VENUE_FIELDS} } }`,
      {
        slug: venue.slug,
        password: 'secret',
      },
    );
    expect(bySlug.venueBySlug).toEqual(venue);
  });

  it('withholds the content of a password-protected venue from readers without the password', async () => {
    const name = unique('Locked Hall');
    const content = {
      description: '<p>Hidden</p>',
      excerpt: 'Psst',
      address: '1 Secret St',
      city: 'Hush',
      country: 'Narnia',
      province: 'North',
      zip: '90000',
      phone: '555',
      stateProvince: 'NR',
      website: 'https://secret.example',
      latitude: 1.5,
      longitude: 2.5,
    };
    const image = images.at(`/${unique('locked')}.jpg`);
    const { id, slug } = await createVenue(server, { name, state: 'CA', ...content, image, password: 'letmein' });
    const FIELDS = `id: databaseId name slug status state showMap hasPassword isLocked description(format: RAW) excerpt(format: RAW) address city country province zip
      phone stateProvince website latitude longitude image { url }`;
    const READ = `query ($id: ID!, $slug: String!, $password: String) {
      byId: venue(id: $id, password: $password) { ${FIELDS} } bySlug: venueBySlug(slug: $slug, password: $password) { ${FIELDS} }
    }`;
    const blank = {
      description: '',
      excerpt: '',
      address: '',
      city: '',
      country: '',
      province: '',
      zip: '',
      phone: '',
      stateProvince: '',
      website: '',
      latitude: null,
      longitude: null,
      image: null,
    };
    for (const password of [undefined, 'nope']) {
      const data = await server.gqlOk(READ, { id, slug, password });
      for (const venue of [data.byId, data.bySlug]) {
        expect(venue, String(password)).toEqual({
          id,
          name,
          slug,
          status: 'PUBLISH',
          state: 'CA',
          showMap: true,
          hasPassword: true,
          isLocked: true,
          ...blank,
        });
      }
    }
    const listed = await server.gqlOk(
      `query ($search: String) { venues(search: $search) { edges { node { ${FIELDS} } } } }`,
      { search: name },
    );
    expect(listed.venues.edges.map((edge: any) => edge.node)).toEqual([
      expect.objectContaining({ id, isLocked: true, ...blank }),
    ]);

    const unlocked = await server.gqlOk(READ, { id, slug, password: 'letmein' });
    for (const venue of [unlocked.byId, unlocked.bySlug]) {
      expect(venue).toEqual({
        id,
        name,
        slug,
        status: 'PUBLISH',
        state: 'CA',
        showMap: true,
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
    const { createVenue: venue } = await server.gqlOk(CREATE, { input: { name: unique('Bare') } });
    expect(venue).toMatchObject({
      description: '',
      address: '',
      website: '',
      status: 'PUBLISH',
      showMap: true,
      showMapLink: true,
      latitude: null,
      longitude: null,
      hasPassword: false,
      image: null,
    });
  });

  it('answers null for an unknown ID or slug', async () => {
    expect((await server.gqlOk(BY_ID, { id: 999_999 })).venue).toBeNull();
    expect(
      (await server.gqlOk(`{ venueBySlug(slug: "no-such-venue-here") { id: databaseId } }`)).venueBySlug,
    ).toBeNull();
  });

  it('takes the publication date in the site time zone, or in UTC', async () => {
    const local = await createVenue(server, { date: '2024-07-01 12:00:00' }, 'publishedAt publishedLocal');
    expect(local).toMatchObject({ publishedAt: '2024-07-01T10:00:00.000Z', publishedLocal: '2024-07-01 12:00:00' });
    const utc = await createVenue(server, { dateUtc: '2024-01-15 12:00:00' }, 'publishedAt publishedLocal');
    expect(utc).toMatchObject({ publishedAt: '2024-01-15T12:00:00.000Z', publishedLocal: '2024-01-15 13:00:00' });
  });

  it('creates a draft when asked for that status', async () => {
    expect(await createVenue(server, { status: 'DRAFT' }, 'status')).toMatchObject({ status: 'DRAFT' });
  });

  describe('refuses bad input with BAD_USER_INPUT naming the field', () => {
    it('a missing name', async () => {
      expectInputError(await server.gql(CREATE, { input: { city: 'Nowhere' } }), 'name');
    });

    it('a blank name', async () => {
      expectInputError(await server.gql(CREATE, { input: { name: '   ' } }), 'name');
    });

    it('a blank slug', async () => {
      expectInputError(await server.gql(CREATE, { input: { name: unique('V'), slug: ' ' } }), 'slug');
    });

    it('a website that is not an http(s) URL', async () => {
      expectInputError(await server.gql(CREATE, { input: { name: unique('V'), website: 'not a url' } }), 'website');
      expectInputError(
        await server.gql(CREATE, { input: { name: unique('V'), website: 'ftp://files.example.com' } }),
        'website',
      );
    });

    it('a latitude without a longitude, and a longitude without a latitude', async () => {
      expectInputError(await server.gql(CREATE, { input: { name: unique('V'), latitude: 10 } }), 'latitude');
      expectInputError(await server.gql(CREATE, { input: { name: unique('V'), longitude: 10 } }), 'longitude');
      expectInputError(
        await server.gql(CREATE, { input: { name: unique('V'), latitude: null, longitude: 10 } }),
        'longitude',
      );
      expectInputError(
        await server.gql(CREATE, { input: { name: unique('V'), latitude: 10, longitude: null } }),
        'latitude',
      );
    });

    it('a latitude outside -90..90 and a longitude outside -180..180', async () => {
      expectInputError(
        await server.gql(CREATE, { input: { name: unique('V'), latitude: 90.5, longitude: 0 } }),
        'latitude',
      );
      expectInputError(
        await server.gql(CREATE, { input: { name: unique('V'), latitude: 0, longitude: -180.5 } }),
        'longitude',
      );
    });

    it('an unknown authorId', async () => {
      const error = expectInputError(
        await server.gql(CREATE, { input: { name: unique('V'), authorId: 424242 } }),
        'authorId',
      );
      expect(error.extensions?.fields.authorId).toContain('424242');
    });

    it('an image that is neither the ID of a known image nor an http(s) URL', async () => {
      expectInputError(await server.gql(CREATE, { input: { name: unique('V'), image: 'picture.jpg' } }), 'image');
      expectInputError(await server.gql(CREATE, { input: { name: unique('V'), image: '987654' } }), 'image');
    });

    it('a publication date that is not a date', async () => {
      expectInputError(await server.gql(CREATE, { input: { name: unique('V'), date: 'not a date at all' } }), 'date');
    });

    it('every bad field at once, writing nothing', async () => {
      const name = unique('Refused');
      expectInputError(
        await server.gql(CREATE, { input: { name, website: 'nope', latitude: 100, longitude: 0, authorId: 424242 } }),
        'website',
        'latitude',
        'authorId',
      );
      expect(await listIds({ search: name, statuses: ['PUBLISH', 'DRAFT', 'TRASH'] }, ADMIN_AUTHORIZATION)).toEqual([]);
    });
  });

  it('accepts the ID of a known user as author', async () => {
    const user = await server.app.db.user.create({ data: { login: unique('author'), displayName: 'Ada' } });
    const venue = await createVenue(
      server,
      { authorId: user.id },
      'authorId author { id: databaseId login displayName }',
    );
    expect(venue).toMatchObject({ authorId: user.id, author: { id: user.id, login: user.login, displayName: 'Ada' } });
  });

  it('names the bad fields of a venue created along with an event by their path', async () => {
    const result = await server.gql(
      `mutation ($input: EventInput!) { createEvent(input: $input) { id: databaseId } }`,
      {
        input: {
          title: unique('Event'),
          startDate: daysFromNow(1),
          endDate: daysFromNow(2),
          venues: [
            { new: { name: unique('Fine') } },
            { new: { name: ' ', website: 'nope', latitude: 1, date: 'not a date at all' } },
          ],
        },
      },
    );
    expectInputError(result, 'venues.1.name', 'venues.1.website', 'venues.1.latitude', 'venues.1.date');
  });

  describe('slugs', () => {
    it('generates the slug from the name, folding case and accents', async () => {
      const token = unique('s');
      const venue = await createVenue(server, { name: `Café Über ${token}!` });
      expect(venue.slug).toBe(`cafe-uber-${token.toLowerCase()}`);
    });

    it('adds -2, -3 … when the slug is taken', async () => {
      const name = `Same Name ${unique('sn')}`;
      const first = await createVenue(server, { name });
      const second = await createVenue(server, { name });
      const third = await createVenue(server, { name });
      expect(second.slug).toBe(`${first.slug}-2`);
      expect(third.slug).toBe(`${first.slug}-3`);
    });

    it('uses a given slug, normalised, and numbers it on a clash', async () => {
      const base = `my-slug-${unique('s')}`.toLowerCase();
      const first = await createVenue(server, { slug: base.toUpperCase() });
      expect(first.slug).toBe(base);
      const second = await createVenue(server, { slug: base });
      expect(second.slug).toBe(`${base}-2`);
    });
  });

  describe('image', () => {
    it('keeps an image URL as a media record, reused for the same URL', async () => {
      const url = images.at(`/${unique('photo')}.JPG`);
      const first = await createVenue(server, { image: url }, 'image { id: databaseId url extension }');
      expect(first.image).toMatchObject({ url, extension: 'jpg' });
      const second = await createVenue(server, { image: url }, 'image { id: databaseId url }');
      expect(second.image.id).toBe(first.image.id);
      const other = await createVenue(
        server,
        { image: images.at(`/${unique('other')}.png`) },
        'image { id: databaseId }',
      );
      expect(other.image.id).not.toBe(first.image.id);
    });

    it('accepts the ID of a known image', async () => {
      const url = images.at(`/${unique('known')}.png`);
      const withUrl = await createVenue(server, { image: url }, 'image { id: databaseId }');
      const byId = await createVenue(server, { image: String(withUrl.image.id) }, 'image { id: databaseId url }');
      expect(byId.image).toEqual({ id: withUrl.image.id, url });
    });
  });
});

describe('updateVenue', () => {
  it('changes only the fields given and the modification date', async () => {
    const { globalId: _globalId, ...venue } = await createVenue(
      server,
      { city: 'Old Town', zip: '111', date: '2020-01-01 10:00:00' },
      VENUE_FIELDS,
    );
    const { updateVenue: updated } = await server.gqlOk(UPDATE, {
      id: venue.id,
      input: { city: 'New Town', showMap: false },
    });
    expect(updated).toMatchObject({
      ...venue,
      city: 'New Town',
      showMap: false,
      modifiedAt: expect.any(String),
      modifiedLocal: expect.any(String),
    });
    expect(updated.zip).toBe('111');
    expect(updated.publishedAt).toBe(venue.publishedAt);
    expect((await server.gqlOk(BY_ID, { id: venue.id })).venue).toEqual(updated);
  });

  it('leaves a text field as it is when it is sent as null', async () => {
    const venue = await createVenue(server, { city: 'Keep Me', phone: '123' }, 'city phone');
    const { updateVenue: updated } = await server.gqlOk(UPDATE, {
      id: venue.id,
      input: { city: null, phone: null, showMap: null },
    });
    expect(updated).toMatchObject({ city: 'Keep Me', phone: '123', showMap: true });
  });

  it('clears a text field sent as an empty string', async () => {
    const venue = await createVenue(server, { city: 'Gone Soon' });
    const { updateVenue: updated } = await server.gqlOk(UPDATE, { id: venue.id, input: { city: '' } });
    expect(updated.city).toBe('');
  });

  it('keeps the slug when the name changes', async () => {
    const venue = await createVenue(server);
    const { updateVenue: updated } = await server.gqlOk(UPDATE, { id: venue.id, input: { name: unique('Renamed') } });
    expect(updated.slug).toBe(venue.slug);
  });

  it('moves to a requested slug, numbered when another venue has it, unchanged when it is its own', async () => {
    const taken = await createVenue(server);
    const venue = await createVenue(server);
    const { updateVenue: same } = await server.gqlOk(UPDATE, { id: venue.id, input: { slug: venue.slug } });
    expect(same.slug).toBe(venue.slug);
    const { updateVenue: moved } = await server.gqlOk(UPDATE, { id: venue.id, input: { slug: taken.slug } });
    expect(moved.slug).toBe(`${taken.slug}-2`);
    expect(
      (
        await server.gqlOk(`query ($slug: String!) { venueBySlug(slug: $slug) { id: databaseId } }`, {
          slug: moved.slug,
        })
      ).venueBySlug.id,
    ).toBe(venue.id);
  });

  it('sets, replaces and clears the image', async () => {
    const venue = await createVenue(server);
    const url = images.at(`/${unique('a')}.gif`);
    const { updateVenue: withImage } = await server.gqlOk(UPDATE, { id: venue.id, input: { image: url } });
    expect(withImage.image.url).toBe(url);
    const { updateVenue: untouched } = await server.gqlOk(UPDATE, { id: venue.id, input: { city: 'X' } });
    expect(untouched.image.url).toBe(url);
    const { updateVenue: cleared } = await server.gqlOk(UPDATE, { id: venue.id, input: { image: '' } });
    expect(cleared.image).toBeNull();
  });

  it('sets and clears the coordinates together', async () => {
    const venue = await createVenue(server);
    const { updateVenue: placed } = await server.gqlOk(UPDATE, {
      id: venue.id,
      input: { latitude: 52.52, longitude: 13.405 },
    });
    expect(placed).toMatchObject({ latitude: 52.52, longitude: 13.405 });
    const { updateVenue: cleared } = await server.gqlOk(UPDATE, {
      id: venue.id,
      input: { latitude: null, longitude: null },
    });
    expect(cleared).toMatchObject({ latitude: null, longitude: null });
  });

  it('validates like create', async () => {
    const venue = await createVenue(server);
    expectInputError(await server.gql(UPDATE, { id: venue.id, input: { name: '' } }), 'name');
    expectInputError(await server.gql(UPDATE, { id: venue.id, input: { website: 'javascript:alert(1)' } }), 'website');
    expectInputError(await server.gql(UPDATE, { id: venue.id, input: { latitude: 10 } }), 'latitude');
    expectInputError(await server.gql(UPDATE, { id: venue.id, input: { longitude: null } }), 'longitude');
    expectInputError(await server.gql(UPDATE, { id: venue.id, input: { latitude: 1, longitude: null } }), 'latitude');
    expectInputError(await server.gql(UPDATE, { id: venue.id, input: { latitude: -91, longitude: 0 } }), 'latitude');
    expectInputError(await server.gql(UPDATE, { id: venue.id, input: { authorId: 424242 } }), 'authorId');
    expectInputError(await server.gql(UPDATE, { id: venue.id, input: { image: '987654' } }), 'image');
  });

  it('answers NOT_FOUND for an unknown venue', async () => {
    const error = onlyError(await server.gql(UPDATE, { id: 999_999, input: { city: 'X' } }));
    expect(error.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('deleteVenue', () => {
  it('moves the venue to the trash first, then refuses a second delete with ALREADY_TRASHED', async () => {
    const venue = await createVenue(server, {}, 'name');
    const { deleteVenue: trashed } = await server.gqlOk(DELETE, { id: venue.id });
    expect(trashed).toEqual({ id: venue.id, name: venue.name, status: 'TRASH' });
    expect((await server.gqlOk(BY_ID, { id: venue.id }, ADMIN_AUTHORIZATION)).venue.status).toBe('TRASH');
    expect(onlyError(await server.gql(BY_ID, { id: venue.id })).extensions).toMatchObject({
      code: 'FORBIDDEN',
      reason: 'NO_LONGER_AVAILABLE',
    });

    const error = onlyError(await server.gql(DELETE, { id: venue.id }));
    expect(error.extensions?.code).toBe('ALREADY_TRASHED');
    expect((await server.gqlOk(BY_ID, { id: venue.id }, ADMIN_AUTHORIZATION)).venue.status).toBe('TRASH');
  });

  it('deletes for good with force, answering the venue as it was', async () => {
    const venue = await createVenue(server, {}, 'name');
    const { deleteVenue: deleted } = await server.gqlOk(DELETE, { id: venue.id, force: true });
    expect(deleted).toEqual({ id: venue.id, name: venue.name, status: 'PUBLISH' });
    expect((await server.gqlOk(BY_ID, { id: venue.id })).venue).toBeNull();
    expect(onlyError(await server.gql(DELETE, { id: venue.id })).extensions?.code).toBe('NOT_FOUND');
  });

  it('deletes a trashed venue for good with force', async () => {
    const venue = await createVenue(server);
    await server.gqlOk(DELETE, { id: venue.id });
    const { deleteVenue: deleted } = await server.gqlOk(DELETE, { id: venue.id, force: true });
    expect(deleted.status).toBe('TRASH');
    expect((await server.gqlOk(BY_ID, { id: venue.id }, ADMIN_AUTHORIZATION)).venue).toBeNull();
  });

  it('takes a trashed venue off its events', async () => {
    const venue = await createVenue(server);
    const other = await createVenue(server);
    const event = await createEvent(server, { venues: [{ id: venue.id }, { id: other.id }] });
    await server.gqlOk(DELETE, { id: venue.id });
    const data = await server.gqlOk(`query ($id: ID!) { event(id: $id) { venues { id: databaseId } } }`, {
      id: event.id,
    });
    expect(data.event.venues).toEqual([{ id: other.id }]);
  });

  it('takes a venue deleted for good off its events', async () => {
    const venue = await createVenue(server);
    const event = await createEvent(server, { venues: [{ id: venue.id }] });
    await server.gqlOk(DELETE, { id: venue.id, force: true });
    const data = await server.gqlOk(`query ($id: ID!) { event(id: $id) { venues { id: databaseId } } }`, {
      id: event.id,
    });
    expect(data.event.venues).toEqual([]);
  });

  it('answers NOT_FOUND for an unknown venue', async () => {
    expect(onlyError(await server.gql(DELETE, { id: 999_999 })).extensions?.code).toBe('NOT_FOUND');
  });
});

describe('venues (list)', () => {
  it('lists published venues only to readers, every status but trash to writers, unless other statuses are asked for', async () => {
    const token = unique('st');
    const published = await createVenue(server, { name: `${token} published` });
    const draft = await createVenue(server, { name: `${token} draft`, status: 'DRAFT' });
    const pending = await createVenue(server, { name: `${token} pending`, status: 'PENDING' });
    const trashed = await createVenue(server, { name: `${token} trashed` });
    await server.gqlOk(DELETE, { id: trashed.id });

    expect(await listIds({ search: token })).toEqual([published.id]);
    expect(await listIds({ search: token, statuses: ['PUBLISH'] })).toEqual([published.id]);
    expectInputError(await server.gql(LIST, { search: token, statuses: ['DRAFT'] }), 'statuses');
    expect((await listIds({ search: token }, ADMIN_AUTHORIZATION)).sort()).toEqual(
      [published.id, draft.id, pending.id].sort(),
    );
    expect(await listIds({ search: token, statuses: ['DRAFT'] }, ADMIN_AUTHORIZATION)).toEqual([draft.id]);
    expect(
      (await listIds({ search: token, statuses: ['DRAFT', 'PENDING', 'TRASH'] }, ADMIN_AUTHORIZATION)).sort(),
    ).toEqual([draft.id, pending.id, trashed.id].sort());
  });

  it('searches case-insensitively over name, description, excerpt, address, city, province, state, state/province, zip and phone', async () => {
    const token = unique('needle').toLowerCase();
    const fields = [
      'name',
      'description',
      'excerpt',
      'address',
      'city',
      'province',
      'state',
      'stateProvince',
      'zip',
      'phone',
    ];
    const byField: Record<string, number> = {};
    for (const field of fields) {
      const input: Record<string, unknown> = { [field]: `before ${token} after` };
      if (field !== 'name') input.name = unique('Plain');
      byField[field] = (await createVenue(server, input)).id;
    }
    const notMatching = await createVenue(server, { website: `https://${token}.example.com`, country: token });

    const found = await listIds({ search: token.toUpperCase(), first: 100 });
    expect(found.sort()).toEqual(Object.values(byField).sort());
    expect(found).not.toContain(notMatching.id);
  });

  it('refuses a blank search', async () => {
    expectInputError(await server.gql(LIST, { search: '  ' }), 'search');
  });

  it('treats % and _ in the search as plain characters', async () => {
    const token = unique('pct');
    const literal = await createVenue(server, { name: `${token} 100% sure` });
    await createVenue(server, { name: `${token} 100 sure` });
    expect(await listIds({ search: `${token} 100%` })).toEqual([literal.id]);
    expect(await listIds({ search: `${token}_` })).toEqual([]);
  });

  it('filters by event: only the venues linked to it', async () => {
    const token = unique('ev');
    const linked = await createVenue(server, { name: `${token} linked` });
    const second = await createVenue(server, { name: `${token} second` });
    await createVenue(server, { name: `${token} unlinked` });
    const event = await createEvent(server, { venues: [{ id: linked.id }, { id: second.id }] });
    await createEvent(server, { venues: [{ id: second.id }] });

    expect((await listIds({ event: event.id })).sort()).toEqual([linked.id, second.id].sort());
    expect(await listIds({ event: event.id, search: 'linked' })).toEqual([linked.id]);
    // `eventId` takes the event's global ID or its database ID, as every ID argument does; `event` is deprecated.
    for (const eventId of [event.globalId, String(event.id)])
      expect((await listIds({ eventId })).sort()).toEqual([linked.id, second.id].sort());
    const both = expectInputError(await server.gql(LIST, { eventId: event.globalId, event: event.id }), 'eventId');
    expect(both.extensions?.fields.eventId).toBe('give `eventId` or `event`, not both');
    const unknown = expectInputError(await server.gql(LIST, { eventId: 'RXZlbnQ6OTk5OTk5' }), 'eventId');
    expect(unknown.extensions?.fields.eventId).toBe('no event with ID 999999');
    const schema = await server.gqlOk(
      '{ __type(name: "Query") { fields { name args(includeDeprecated: true) { name isDeprecated } } } }',
    );
    const venuesArgs = schema.__type.fields.find((field: { name: string }) => field.name === 'venues').args;
    expect(venuesArgs.filter((arg: { name: string }) => /^event/.test(arg.name))).toEqual([
      { name: 'event', isDeprecated: true },
      { name: 'eventId', isDeprecated: false },
    ]);
  });

  it('answers BAD_USER_INPUT naming `event` for an unknown event', async () => {
    const error = expectInputError(await server.gql(LIST, { event: 999_999 }), 'event');
    expect(error.extensions?.fields.event).toContain('999999');
  });

  it('filters by hasEvents, where draft, pending and trashed events do not count', async () => {
    const token = unique('has');
    const withPublished = await createVenue(server, { name: `${token} published event` });
    const withDraft = await createVenue(server, { name: `${token} draft event` });
    const withPending = await createVenue(server, { name: `${token} pending event` });
    const withNone = await createVenue(server, { name: `${token} no event` });
    await createEvent(server, { venues: [{ id: withPublished.id }] });
    await createEvent(server, { venues: [{ id: withDraft.id }], status: 'DRAFT' });
    await createEvent(server, { venues: [{ id: withPending.id }], status: 'PENDING' });
    const trashedEvent = await createEvent(server, { venues: [{ id: withNone.id }] });
    await server.gqlOk(`mutation ($id: ID!) { deleteEvent(id: $id) { id: databaseId } }`, { id: trashedEvent.id });

    expect(await listIds({ search: token, hasEvents: true })).toEqual([withPublished.id]);
    expect((await listIds({ search: token, hasEvents: false })).sort()).toEqual(
      [withDraft.id, withPending.id, withNone.id].sort(),
    );
    expect(await listIds({ search: token })).toHaveLength(4);
  });

  it('filters by onlyWithUpcoming: venues linked to events starting from now', async () => {
    const token = unique('up');
    const upcoming = await createVenue(server, { name: `${token} upcoming` });
    const past = await createVenue(server, { name: `${token} past` });
    const running = await createVenue(server, { name: `${token} running` });
    const none = await createVenue(server, { name: `${token} none` });
    await createEvent(server, { venues: [{ id: upcoming.id }], startDate: daysFromNow(3), endDate: daysFromNow(4) });
    await createEvent(server, { venues: [{ id: past.id }], startDate: daysFromNow(-10), endDate: daysFromNow(-9) });
    await createEvent(server, { venues: [{ id: running.id }], startDate: daysFromNow(-1), endDate: daysFromNow(1) });

    expect(await listIds({ search: token, onlyWithUpcoming: true })).toEqual([upcoming.id]);
    expect((await listIds({ search: token, onlyWithUpcoming: false })).sort()).toEqual(
      [upcoming.id, past.id, running.id, none.id].sort(),
    );
  });

  it('finds draft venues with upcoming events when drafts are asked for', async () => {
    const token = unique('upd');
    const draft = await createVenue(server, { name: `${token} draft`, status: 'DRAFT' });
    await createEvent(server, { venues: [{ id: draft.id }], startDate: daysFromNow(3), endDate: daysFromNow(4) });
    expect(await listIds({ search: token, statuses: ['DRAFT'], onlyWithUpcoming: true }, ADMIN_AUTHORIZATION)).toEqual([
      draft.id,
    ]);
  });

  it('does not count a draft upcoming event for onlyWithUpcoming', async () => {
    const token = unique('upx');
    await createEvent(server, {
      venues: [{ new: { name: `${token} venue` } }],
      status: 'DRAFT',
      startDate: daysFromNow(3),
      endDate: daysFromNow(4),
    });
    expect(await listIds({ search: token })).toHaveLength(1);
    expect(await listIds({ search: token, onlyWithUpcoming: true })).toEqual([]);
  });

  it('orders by publication date, newest first, then by ID descending', async () => {
    const token = unique('ord');
    const oldest = await createVenue(server, { name: `${token} a`, date: '2021-01-01 09:00:00' });
    const newest = await createVenue(server, { name: `${token} b`, date: '2023-06-01 09:00:00' });
    const sameA = await createVenue(server, { name: `${token} c`, date: '2022-03-03 09:00:00' });
    const sameB = await createVenue(server, { name: `${token} d`, date: '2022-03-03 09:00:00' });
    expect(await listIds({ search: token })).toEqual([newest.id, sameB.id, sameA.id, oldest.id]);
  });

  it('pages with first/after and counts every match in totalCount', async () => {
    const token = unique('page');
    const ids: number[] = [];
    for (let day = 1; day <= 5; day++)
      ids.unshift((await createVenue(server, { name: `${token} ${day}`, date: `2022-01-0${day} 10:00:00` })).id);

    const first = (await server.gqlOk(LIST, { search: token, first: 2 })).venues;
    expect(first.totalCount).toBe(5);
    expect(first.edges.map((edge: any) => edge.node.id)).toEqual(ids.slice(0, 2));
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });

    const second = (await server.gqlOk(LIST, { search: token, first: 2, after: first.pageInfo.endCursor })).venues;
    expect(second.edges.map((edge: any) => edge.node.id)).toEqual(ids.slice(2, 4));
    expect(second.totalCount).toBe(5);

    const last = (await server.gqlOk(LIST, { search: token, first: 2, after: second.pageInfo.endCursor })).venues;
    expect(last.edges.map((edge: any) => edge.node.id)).toEqual(ids.slice(4));
    expect(last.pageInfo.hasNextPage).toBe(false);
  });
});

describe('venue.events', () => {
  it('lists the events held at the venue by start', async () => {
    const venue = await createVenue(server);
    const later = await createEvent(server, {
      venues: [{ id: venue.id }],
      startDate: daysFromNow(10),
      endDate: daysFromNow(11),
    });
    const earlier = await createEvent(server, {
      venues: [{ id: venue.id }],
      startDate: daysFromNow(-5),
      endDate: daysFromNow(-4),
    });
    const middle = await createEvent(server, {
      venues: [{ id: venue.id }],
      startDate: daysFromNow(2),
      endDate: daysFromNow(3),
    });
    await createEvent(server);
    const data = await server.gqlOk(
      `query ($id: ID!) { venue(id: $id) { events { totalCount edges { node { id: databaseId } } } } }`,
      { id: venue.id },
    );
    expect(data.venue.events.totalCount).toBe(3);
    expect(data.venue.events.edges.map((edge: any) => edge.node.id)).toEqual([earlier.id, middle.id, later.id]);
  });

  it('loads the events of a page of venues without one query per venue', async () => {
    const token = unique('batch');
    for (let i = 0; i < 5; i++) {
      const venue = await createVenue(server, { name: `${token} ${i}` });
      await createEvent(server, { venues: [{ id: venue.id }] });
    }
    const query = `query ($search: String) { venues(search: $search) { edges { node { id: databaseId events { edges { node { id: databaseId title } } } } } } }`;
    const count = await server.countQueries(() => server.gqlOk(query, { search: token }));
    expect(count).toBeLessThanOrEqual(6);
  });
});
