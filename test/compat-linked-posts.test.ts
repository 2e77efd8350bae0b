import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeople, type People } from './auth-fixtures.js';
import { unique } from './support/factories.js';
import { dayAt, restClient, type RestClient, type RestResponse } from './support/rest.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// Issue 14, points 4–7: where the REST answers about venues and organizers differed from The Events Calendar.
// - inline venue/organizer objects on event writes, and removing the links with TEC's empty values;
// - duplicate avoidance (TEC's Tribe__Duplicate__Post with the linked posts' duplicate fields);
// - search by words (§6.1 WordPress's `s`, §6.2);
// - only_with_upcoming counting only the events the viewer may read (§6.2).

let server: TestServer;
let rest: RestClient;
let people: People;

beforeAll(async () => {
  server = await startServer();
  rest = restClient(server);
  people = await createPeople(server, 'compat');
});
afterAll(() => server.close());

const AS_ADMIN = { authorization: ADMIN_AUTHORIZATION };

function expectStatus(reply: RestResponse, status: number) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
}

async function write(
  method: 'POST' | 'PUT' | 'DELETE',
  route: string,
  json: Record<string, unknown>,
  authorization = ADMIN_AUTHORIZATION,
) {
  return rest.call(method, route, { json, headers: { authorization } });
}

async function newEvent(fields: Record<string, unknown> = {}, authorization = ADMIN_AUTHORIZATION) {
  const reply = await write(
    'POST',
    '/events',
    { title: unique('Event'), start_date: dayAt(10), end_date: dayAt(10, '12:00:00'), ...fields },
    authorization,
  );
  expectStatus(reply, 201);
  return reply.body;
}

async function count(plural: 'venues' | 'organizers'): Promise<number> {
  const reply = await rest.get(`/${plural}`, {
    query: 'per_page=1&status=publish,draft,pending,private,future',
    headers: AS_ADMIN,
  });
  expectStatus(reply, 200);
  return reply.body.total;
}

describe('inline venue and organizer objects on event writes (§4.1)', () => {
  it('accept every venue field, stateprovince included, and every organizer field', async () => {
    const venue = {
      venue: unique('Inline venue'),
      description: 'The hall.',
      address: '1 Main Street',
      city: 'Springfield',
      country: 'Canada',
      province: 'Ontario',
      state: 'ON',
      stateprovince: 'Ontario (ON)',
      zip: 'K1A 0B1',
      phone: '+1 555 0100',
      website: 'https://hall.example/',
      show_map: false,
      show_map_link: true,
    };
    const organizer = {
      organizer: unique('Inline organizer'),
      description: 'Runs it.',
      phone: '+1 555 0199',
      email: 'runs@example.com',
      website: 'https://runs.example/',
    };
    const event = await newEvent({ venue, organizer: [organizer] });
    const { venue: name, ...venueFields } = venue;
    expect(event.venue).toMatchObject({ venue: name, ...venueFields, description: '<p>The hall.</p>' });
    const { organizer: organizerName, ...organizerFields } = organizer;
    expect(event.organizer).toHaveLength(1);
    expect(event.organizer[0]).toMatchObject({
      organizer: organizerName,
      ...organizerFields,
      description: '<p>Runs it.</p>',
    });
    const stored = await rest.get(`/venues/${event.venue.id}`);
    expect(stored.body.stateprovince).toBe('Ontario (ON)');
  });

  for (const empty of [0, '0', '', [], null, false, ['', 0]]) {
    it(`remove the links on update when venue and organizer are ${JSON.stringify(empty)} (200)`, async () => {
      const event = await newEvent({
        venue: { venue: unique('Removed venue') },
        organizer: { organizer: unique('Removed organizer') },
      });
      expect(event.venue.id).toBeGreaterThan(0);
      const reply = await write('POST', `/events/${event.id}`, { venue: empty, organizer: empty });
      expectStatus(reply, 200);
      expect(reply.body.venue).toEqual([]);
      expect(reply.body.organizer).toEqual([]);
      const after = await rest.get(`/events/${event.id}`);
      expect(after.body.venue).toEqual([]);
      expect(after.body.organizer).toEqual([]);
    });
  }

  it('keep the links when venue and organizer are left out of an update', async () => {
    const event = await newEvent({
      venue: { venue: unique('Kept venue') },
      organizer: [{ organizer: unique('Kept organizer') }],
    });
    const reply = await write('POST', `/events/${event.id}`, { title: 'Renamed' });
    expectStatus(reply, 200);
    expect(reply.body.venue.id).toBe(event.venue.id);
    expect(reply.body.organizer.map((o: { id: number }) => o.id)).toEqual([event.organizer[0].id]);
  });

  it('refuse, without touching the links, a negative ID, a word, or a venue object without a name (400)', async () => {
    const event = await newEvent({ venue: { venue: unique('Guarded venue') } });
    for (const venue of [-1, 'nowhere', [0, 'nowhere'], { city: 'No name' }]) {
      const reply = await write('POST', `/events/${event.id}`, { venue });
      expectStatus(reply, 400);
      expect(reply.body.code).toBe('rest_invalid_param');
      expect(Object.keys(reply.body.data.params)).toEqual(['venue']);
    }
    expect((await rest.get(`/events/${event.id}`)).body.venue.id).toBe(event.venue.id);
  });
});

describe('duplicate venues and organizers are not created (§4.3)', () => {
  it('POST /venues answers 201 with the existing venue when the name matches in any case and the given fields match', async () => {
    const name = unique('Dup Hall');
    const first = await write('POST', '/venues', {
      venue: name,
      city: 'Lyon',
      address: '12 Rue de la République',
      zip: '69002',
    });
    expectStatus(first, 201);
    const before = await count('venues');
    // A subset of the fields, other letter case, the address's words in another order.
    const again = await write('POST', '/venues', {
      venue: name.toUpperCase(),
      city: 'LYON',
      address: 'république rue 12',
    });
    expectStatus(again, 201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.venue).toBe(name);
    expect(await count('venues')).toBe(before);
  });

  it('POST /venues creates another venue when a given field differs, or the match is in the trash', async () => {
    const name = unique('Dup Hall');
    const first = (await write('POST', '/venues', { venue: name, city: 'Lyon' })).body;
    const otherCity = await write('POST', '/venues', { venue: name, city: 'Paris' });
    expectStatus(otherCity, 201);
    expect(otherCity.body.id).not.toBe(first.id);
    const otherAddress = await write('POST', '/venues', { venue: name, city: 'Lyon', address: 'Somewhere else' });
    expect(otherAddress.body.id).not.toBe(first.id);
    expectStatus(await write('DELETE', `/venues/${otherCity.body.id}`, {}), 200);
    const afterTrash = await write('POST', '/venues', { venue: name, city: 'Paris' });
    expectStatus(afterTrash, 201);
    expect([first.id, otherCity.body.id]).not.toContain(afterTrash.body.id);
  });

  it('POST /organizers answers 201 with the existing organizer when the name matches in any case and the given fields match', async () => {
    const name = unique('Dup Org');
    const first = await write('POST', '/organizers', { organizer: name, email: 'Dup@Example.com', phone: '555 0101' });
    expectStatus(first, 201);
    const before = await count('organizers');
    const again = await write('POST', '/organizers', { organizer: name.toLowerCase(), email: 'dup@example.com' });
    expectStatus(again, 201);
    expect(again.body.id).toBe(first.body.id);
    expect(await count('organizers')).toBe(before);
    const otherPhone = await write('POST', '/organizers', { organizer: name, phone: '555 0102' });
    expectStatus(otherPhone, 201);
    expect(otherPhone.body.id).not.toBe(first.body.id);
  });

  it('inline venue and organizer objects reuse the existing records, and one list does not create the same organizer twice', async () => {
    const venueName = unique('Inline dup venue');
    const organizerName = unique('Inline dup org');
    const venue = (await write('POST', '/venues', { venue: venueName, city: 'Lyon' })).body;
    const organizer = (await write('POST', '/organizers', { organizer: organizerName })).body;
    const venues = await count('venues');
    const organizers = await count('organizers');
    const event = await newEvent({
      venue: { venue: venueName.toLowerCase(), city: 'lyon' },
      organizer: [
        { organizer: organizerName.toUpperCase() },
        { organizer: `${organizerName} B` },
        { organizer: `${organizerName} b` },
      ],
    });
    expect(event.venue.id).toBe(venue.id);
    expect(event.organizer.map((o: { id: number }) => o.id).slice(0, 1)).toEqual([organizer.id]);
    expect(event.organizer).toHaveLength(2);
    expect(event.organizer[1].organizer).toBe(`${organizerName} B`);
    expect(await count('venues')).toBe(venues);
    expect(await count('organizers')).toBe(organizers + 1);
  });

  it('LIKE wildcards in a name are plain characters, and another user’s draft is not answered to a contributor', async () => {
    const stem = unique('Wild');
    const plain = (await write('POST', '/venues', { venue: `${stem} 50xoff` })).body;
    const wild = await write('POST', '/venues', { venue: `${stem} 50%_off` });
    expectStatus(wild, 201);
    expect(wild.body.id).not.toBe(plain.id);
    const again = await write('POST', '/venues', { venue: `${stem} 50%_OFF` });
    expect(again.body.id).toBe(wild.body.id);

    const secret = unique('Others draft');
    const draft = await write(
      'POST',
      '/organizers',
      { organizer: secret, status: 'draft' },
      people.other.authorization!,
    );
    expectStatus(draft, 201);
    const mine = await write('POST', '/organizers', { organizer: secret }, people.actors.contributor.authorization!);
    expectStatus(mine, 201);
    expect(mine.body.id).not.toBe(draft.body.id);
  });
});

describe('search is by words (§6.1, §6.2)', () => {
  const ids = (reply: RestResponse, key: string): number[] =>
    reply.body[key].map((record: { id: number }) => record.id);

  it('venues: every word, in any order and in any of name, address, city, province, state, zip and phone', async () => {
    const token = unique('vword').replace(/-/g, '');
    const hall = (
      await write('POST', '/venues', {
        venue: `Blue ${token} Hall`,
        address: '7 Quay Road',
        city: 'Dunmore',
        province: 'Leinster',
        state: 'KY',
        zip: 'D02XY45',
        phone: '+353 1 555 0123',
      })
    ).body;
    const other = (await write('POST', '/venues', { venue: `Red ${token} Hall`, city: 'Dunmore' })).body;
    const search = async (words: string) =>
      ids(await rest.get('/venues', { query: `per_page=50&search=${encodeURIComponent(words)}` }), 'venues');
    expect(await search(`hall ${token} blue`)).toEqual([hall.id]);
    expect(await search(`${token} quay dunmore`)).toEqual([hall.id]);
    expect(await search(`${token} leinster`)).toEqual([hall.id]);
    expect(await search(`${token} d02xy45 0123`)).toEqual([hall.id]);
    expect((await search(`${token} dunmore`)).sort()).toEqual([hall.id, other.id].sort());
    expect(await search(`${token} dunmore green`)).toEqual([]);
  });

  it('organizers: every word, in any of name, phone, e-mail and website', async () => {
    const token = unique('oword').replace(/-/g, '');
    const org = (
      await write('POST', '/organizers', {
        organizer: `Friends of ${token}`,
        phone: '555 0177',
        email: 'hello@friends.example',
        website: 'https://friendly-site.example/',
      })
    ).body;
    const search = async (words: string) =>
      ids(await rest.get('/organizers', { query: `per_page=50&search=${encodeURIComponent(words)}` }), 'organizers');
    expect(await search(`${token} FRIENDS 0177`)).toEqual([org.id]);
    expect(await search(`hello@friends ${token}`)).toEqual([org.id]);
    expect(await search(`friendly-site ${token}`)).toEqual([org.id]);
    expect(await search(`${token} enemies`)).toEqual([]);
  });

  it('events: every word, in any of title, description and excerpt, and a quoted phrase as one', async () => {
    const token = unique('eword').replace(/-/g, '');
    const event = await newEvent({
      title: `Jazz ${token} night`,
      description: 'Swing music by the river',
      excerpt: 'Bring a chair',
    });
    const search = async (words: string) =>
      ids(await rest.get('/events', { query: `per_page=50&search=${encodeURIComponent(words)}` }), 'events');
    expect(await search(`night ${token} jazz`)).toEqual([event.id]);
    expect(await search(`${token} river chair`)).toEqual([event.id]);
    expect(await search(`${token} "swing music"`)).toEqual([event.id]);
    expect(await search(`${token} "music swing"`)).toEqual([]);
    expect(await search(`${token} blues`)).toEqual([]);
    // WordPress's `-word` excludes, and its stopwords ("with") and single letters are not required.
    expect(await search(`${token} -blues`)).toEqual([event.id]);
    expect(await search(`${token} -river`)).toEqual([]);
    expect(await search(`${token} jazz with x`)).toEqual([event.id]);
  });

  it('% and _ in the words are plain characters on both engines', async () => {
    const token = unique('like').replace(/-/g, '');
    const percent = (await write('POST', '/venues', { venue: `${token} 100% cotton_mill` })).body;
    const plain = (await write('POST', '/venues', { venue: `${token} 1000 cottonXmill` })).body;
    const search = async (words: string) =>
      ids(await rest.get('/venues', { query: `per_page=50&search=${encodeURIComponent(words)}` }), 'venues');
    expect((await search(`${token} 100`)).sort()).toEqual([percent.id, plain.id].sort());
    expect(await search(`${token} 100%`)).toEqual([percent.id]);
    expect(await search(`${token} cotton_mill`)).toEqual([percent.id]);
    expect(await search(`${token} %`)).toEqual([percent.id]);
    expect(await search(`${token} _`)).toEqual([percent.id]);
    expect(await search(`${token} \\`)).toEqual([]);
  });
});

describe('only_with_upcoming counts only events the viewer may read (§6.2)', () => {
  it('a venue and an organizer whose only upcoming event is private are listed for an editor, not for an anonymous reader or an author', async () => {
    const venue = (await write('POST', '/venues', { venue: unique('Private upcoming venue') })).body;
    const organizer = (await write('POST', '/organizers', { organizer: unique('Private upcoming org') })).body;
    const publicVenue = (await write('POST', '/venues', { venue: unique('Public upcoming venue') })).body;
    await newEvent({ status: 'private', venue: venue.id, organizer: organizer.id });
    await newEvent({ venue: publicVenue.id });
    const listed = async (plural: 'venues' | 'organizers', authorization: string | null) => {
      const reply = await rest.get(`/${plural}`, {
        query: 'per_page=50&only_with_upcoming=true',
        headers: authorization ? { authorization } : {},
      });
      expectStatus(reply, 200);
      return reply.body[plural].map((record: { id: number }) => record.id) as number[];
    };
    const anonymousVenues = await listed('venues', null);
    expect(anonymousVenues).toContain(publicVenue.id);
    expect(anonymousVenues).not.toContain(venue.id);
    expect(await listed('organizers', null)).not.toContain(organizer.id);
    expect(await listed('venues', people.actors.author.authorization)).not.toContain(venue.id);
    expect(await listed('venues', people.actors.editor.authorization)).toContain(venue.id);
    expect(await listed('organizers', people.actors.editor.authorization)).toContain(organizer.id);
  });

  it('an author’s own private upcoming event counts for that author', async () => {
    const venue = (await write('POST', '/venues', { venue: unique('Authors venue') })).body;
    await newEvent({ status: 'private', venue: venue.id }, people.actors.author.authorization!);
    const reply = await rest.get('/venues', {
      query: 'per_page=50&only_with_upcoming=true',
      headers: { authorization: people.actors.author.authorization! },
    });
    expect(reply.body.venues.map((record: { id: number }) => record.id)).toContain(venue.id);
    const anonymous = await rest.get('/venues', { query: 'per_page=50&only_with_upcoming=true' });
    expect(anonymous.body.venues.map((record: { id: number }) => record.id)).not.toContain(venue.id);
  });
});

describe('GraphQL: a venue or organizer brought along by an event', () => {
  const mutation = `mutation ($input: EventInput!) { createEvent(input: $input) { venues { databaseId } organizers { databaseId } } }`;
  const eventInput = (links: Record<string, unknown>) => ({
    title: unique('GraphQL event'),
    startDate: dayAt(12),
    endDate: dayAt(12, '12:00:00'),
    timezone: 'UTC',
    ...links,
  });

  it('newUnlessDuplicate links the existing match; new creates another', async () => {
    const name = unique('GraphQL dup venue');
    const existing = (await write('POST', '/venues', { venue: name, zip: '10115' })).body;
    const reused = await server.gqlOk(mutation, {
      input: eventInput({ venues: [{ newUnlessDuplicate: { name: name.toUpperCase(), zip: '10115' } }] }),
    });
    expect(reused.createEvent.venues).toEqual([{ databaseId: existing.id }]);
    const fresh = await server.gqlOk(mutation, { input: eventInput({ venues: [{ new: { name, zip: '10115' } }] }) });
    expect(fresh.createEvent.venues[0].databaseId).not.toBe(existing.id);
  });

  it('refuses a link that gives more than one of id, new and newUnlessDuplicate', async () => {
    const name = unique('GraphQL both');
    const result = await server.gql(mutation, {
      input: eventInput({ organizers: [{ new: { name }, newUnlessDuplicate: { name } }] }),
    });
    expect(result.errors?.length).toBeGreaterThan(0);
    expect(result.data?.createEvent ?? null).toBeNull();
    const listed = await rest.get('/organizers', { query: `search=${encodeURIComponent(`"${name}"`)}` });
    expect(listed.body.organizers).toEqual([]);
  });
});
