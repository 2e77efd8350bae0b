import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCategory,
  createEvent,
  createOrganizer,
  createTag,
  createVenue,
  onlyError,
  unique,
} from './support/factories.js';
import { ADMIN_AUTHORIZATION, startServer, type As, type TestServer } from './support/server.js';

let server: TestServer;
/** A second server whose site time zone is New York: filter dates without an offset are read there. */
let newYorkSite: TestServer;
beforeAll(async () => {
  [server, newYorkSite] = await Promise.all([startServer(), startServer({ SITE_TIMEZONE: 'America/New_York' })]);
});
afterAll(() => Promise.all([server.close(), newYorkSite.close()]));

const EVENTS = `query ($filter: EventsFilter, $first: Int, $after: String) {
  events(filter: $filter, first: $first, after: $after) {
    totalCount
    edges { cursor node { id: databaseId } }
    pageInfo { hasNextPage hasPreviousPage endCursor }
  }
}`;

type Filter = Record<string, unknown>;

/**
 * IDs the `events` list answers for `filter`, in list order. `among` keeps each test to its own events (the
 * `include` filter), so that tests sharing a server cannot see each other's data.
 */
async function listed(
  filter: Filter,
  among: Array<{ id: number }>,
  on: TestServer = server,
  as?: As,
): Promise<number[]> {
  const data = await on.gqlOk(
    EVENTS,
    { filter: { ...filter, include: among.map((event) => event.id) }, first: 100 },
    as,
  );
  return data.events.edges.map((edge: { node: { id: number } }) => edge.node.id);
}

/** The same list, as a set of the given events' names, so a failure says which event was wrong. `as`: the reader (anonymous by default). */
async function listedNames(
  filter: Filter,
  events: Record<string, { id: number }>,
  on: TestServer = server,
  as?: As,
): Promise<string[]> {
  const ids = await listed(filter, Object.values(events), on, as);
  const names = new Map(Object.entries(events).map(([name, event]) => [event.id, name]));
  return ids.map((id) => names.get(id)!).sort();
}

async function refusedFields(filter: Filter): Promise<Record<string, string>> {
  const error = onlyError(await server.gql(EVENTS, { filter }));
  expect(error.code).toBe('BAD_USER_INPUT');
  return error.fields!;
}

const at = (start: string, end: string, input: Filter = {}) => ({
  startDate: start,
  endDate: end,
  timezone: 'UTC',
  ...input,
});

describe('whole-day date filters (not strict)', () => {
  // Day D is 2031-03-10; every event here is in UTC, so the wall clock and the instant agree.
  let events: Record<string, { id: number }>;
  beforeAll(async () => {
    const make = (start: string, end: string) => createEvent(server, at(start, end));
    events = {
      lastSecondBefore: await make('2031-03-09 23:59:59', '2031-03-09 23:59:59'),
      midnight: await make('2031-03-10 00:00:00', '2031-03-10 01:00:00'),
      lastSecond: await make('2031-03-10 23:59:59', '2031-03-10 23:59:59'),
      nextMidnight: await make('2031-03-11 00:00:00', '2031-03-11 01:00:00'),
      intoNextDay: await make('2031-03-10 10:00:00', '2031-03-11 00:00:00'),
      spanning: await make('2031-03-09 10:00:00', '2031-03-11 10:00:00'),
    };
  });

  it('startDate includes an event at 00:00:00 that day and excludes one at 23:59:59 the day before', async () => {
    expect(await listedNames({ startDate: '2031-03-10' }, events)).toEqual([
      'intoNextDay',
      'lastSecond',
      'midnight',
      'nextMidnight',
    ]);
  });

  it('startDate means the whole day even when given with a time', async () => {
    expect(await listedNames({ startDate: '2031-03-10 18:00:00' }, events)).toEqual([
      'intoNextDay',
      'lastSecond',
      'midnight',
      'nextMidnight',
    ]);
  });

  it('endDate includes an event ending at 23:59:59 that day and excludes one ending at 00:00:00 the next', async () => {
    expect(await listedNames({ endDate: '2031-03-10' }, events)).toEqual([
      'lastSecond',
      'lastSecondBefore',
      'midnight',
    ]);
    expect(await listedNames({ endDate: '2031-03-10 08:00:00' }, events)).toEqual([
      'lastSecond',
      'lastSecondBefore',
      'midnight',
    ]);
  });

  it('startDate and endDate of one day list the events held entirely within it', async () => {
    expect(await listedNames({ startDate: '2031-03-10', endDate: '2031-03-10' }, events)).toEqual([
      'lastSecond',
      'midnight',
    ]);
  });

  it('leaves out a multi-day event that starts before startDate or ends after endDate', async () => {
    expect(await listedNames({ startDate: '2031-03-09', endDate: '2031-03-11' }, events)).toContain('spanning');
    expect(await listedNames({ startDate: '2031-03-10', endDate: '2031-03-11' }, events)).not.toContain('spanning');
    expect(await listedNames({ startDate: '2031-03-09', endDate: '2031-03-10' }, events)).not.toContain('spanning');
  });

  it('startsBefore means before the end of that day: its last second is still in', async () => {
    expect(await listedNames({ startsBefore: '2031-03-10' }, events)).toEqual([
      'intoNextDay',
      'lastSecond',
      'lastSecondBefore',
      'midnight',
      'spanning',
    ]);
  });

  it('startsAfter means after the end of that day: nothing on that day is in', async () => {
    expect(await listedNames({ startsAfter: '2031-03-10' }, events)).toEqual(['nextMidnight']);
    expect(await listedNames({ startsAfter: '2031-03-09' }, events)).toEqual([
      'intoNextDay',
      'lastSecond',
      'midnight',
      'nextMidnight',
    ]);
  });

  it('endsBefore means before the end of that day: an event ending at its last second is in', async () => {
    expect(await listedNames({ endsBefore: '2031-03-10' }, events)).toEqual([
      'lastSecond',
      'lastSecondBefore',
      'midnight',
    ]);
  });

  it('endsAfter means after the end of that day: an event ending at its last second is out', async () => {
    expect(await listedNames({ endsAfter: '2031-03-10' }, events)).toEqual(['intoNextDay', 'nextMidnight', 'spanning']);
  });

  it('lists a multi-day event on a day in its middle with startsBefore and endsAfter', async () => {
    expect(await listedNames({ startsBefore: '2031-03-09', endsAfter: '2031-03-10' }, events)).toEqual(['spanning']);
  });

  it('refuses a date it cannot read, naming the field', async () => {
    const fields = await refusedFields({ startDate: 'someday', endsAfter: '2031-02-30' });
    expect(Object.keys(fields).sort()).toEqual(['endsAfter', 'startDate']);
  });
});

describe('whole-day date filters across time zones', () => {
  let events: Record<string, { id: number }>;
  beforeAll(async () => {
    events = {
      // 23:30 in New York on the 10th is 04:30 UTC on the 11th.
      lateNewYork: await createEvent(
        server,
        at('2031-03-10 23:30:00', '2031-03-10 23:45:00', { timezone: 'America/New_York' }),
      ),
      // 08:00 in Tokyo on the 10th is 23:00 UTC on the 9th.
      earlyTokyo: await createEvent(
        server,
        at('2031-03-10 08:00:00', '2031-03-10 09:00:00', { timezone: 'Asia/Tokyo' }),
      ),
      // 00:30 in Berlin on the 11th is 23:30 UTC on the 10th.
      earlyBerlinNextDay: await createEvent(
        server,
        at('2031-03-11 00:30:00', '2031-03-11 00:45:00', { timezone: 'Europe/Berlin' }),
      ),
    };
  });

  it('puts each event on the day of its own wall clock, not its UTC day', async () => {
    expect(await listedNames({ startDate: '2031-03-10', endDate: '2031-03-10' }, events)).toEqual([
      'earlyTokyo',
      'lateNewYork',
    ]);
    expect(await listedNames({ startDate: '2031-03-11', endDate: '2031-03-11' }, events)).toEqual([
      'earlyBerlinNextDay',
    ]);
    expect(await listedNames({ endsBefore: '2031-03-09' }, events)).toEqual([]);
  });

  it('compares exact instants with strictDates, where the UTC day decides', async () => {
    const utcTenth = { startDate: '2031-03-10T00:00:00Z', endDate: '2031-03-10T23:59:59Z', strictDates: true };
    expect(await listedNames(utcTenth, events)).toEqual(['earlyBerlinNextDay']);
  });

  it('reads the day of a filter date with an offset in the site time zone', async () => {
    // 02:00 UTC on the 11th is still the 10th in New York (the site zone of newYorkSite), but the 11th in UTC.
    const onNewYorkSite = {
      lateNewYork: await createEvent(
        newYorkSite,
        at('2031-03-10 23:30:00', '2031-03-10 23:45:00', { timezone: 'America/New_York' }),
      ),
    };
    const onUtcSite = { lateNewYork: events.lateNewYork! };
    expect(await listedNames({ startDate: '2031-03-11T02:00:00Z' }, onNewYorkSite, newYorkSite)).toEqual([
      'lateNewYork',
    ]);
    expect(await listedNames({ startDate: '2031-03-11T02:00:00Z' }, onUtcSite)).toEqual([]);
  });

  it('reads relative filter dates such as "today" against the current day', async () => {
    const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
    const relative = {
      yesterday: await createEvent(server, at(`${day(-1)} 12:00:00`, `${day(-1)} 13:00:00`)),
      tomorrow: await createEvent(server, at(`${day(1)} 12:00:00`, `${day(1)} 13:00:00`)),
    };
    expect(await listedNames({ startDate: 'today' }, relative)).toEqual(['tomorrow']);
    expect(await listedNames({ endDate: 'today' }, relative)).toEqual(['yesterday']);
  });
});

describe('strict date filters', () => {
  let events: Record<string, { id: number }>;
  beforeAll(async () => {
    events = {
      // 10:00 to 12:00 UTC, given as 11:00 to 13:00 in Berlin (winter).
      event: await createEvent(server, at('2031-02-10 11:00:00', '2031-02-10 13:00:00', { timezone: 'Europe/Berlin' })),
    };
  });

  const strict = (filter: Filter) => listedNames({ ...filter, strictDates: true }, events);

  it('startDate includes an event starting exactly then and excludes it a second later', async () => {
    expect(await strict({ startDate: '2031-02-10T10:00:00Z' })).toEqual(['event']);
    expect(await strict({ startDate: '2031-02-10T10:00:01Z' })).toEqual([]);
  });

  it('endDate includes an event ending exactly then and excludes it a second earlier', async () => {
    expect(await strict({ endDate: '2031-02-10T12:00:00Z' })).toEqual(['event']);
    expect(await strict({ endDate: '2031-02-10T11:59:59Z' })).toEqual([]);
  });

  it('startsBefore and startsAfter exclude the exact start instant', async () => {
    expect(await strict({ startsBefore: '2031-02-10T10:00:00Z' })).toEqual([]);
    expect(await strict({ startsBefore: '2031-02-10T10:00:01Z' })).toEqual(['event']);
    expect(await strict({ startsAfter: '2031-02-10T10:00:00Z' })).toEqual([]);
    expect(await strict({ startsAfter: '2031-02-10T09:59:59Z' })).toEqual(['event']);
  });

  it('endsBefore and endsAfter exclude the exact end instant', async () => {
    expect(await strict({ endsBefore: '2031-02-10T12:00:00Z' })).toEqual([]);
    expect(await strict({ endsBefore: '2031-02-10T12:00:01Z' })).toEqual(['event']);
    expect(await strict({ endsAfter: '2031-02-10T12:00:00Z' })).toEqual([]);
    expect(await strict({ endsAfter: '2031-02-10T11:59:59Z' })).toEqual(['event']);
  });

  it('reads a strict date without offset in the site time zone', async () => {
    expect(await strict({ startDate: '2031-02-10 10:00:00' })).toEqual(['event']);
    const onNewYorkSite = {
      event: await createEvent(
        newYorkSite,
        at('2031-02-10 11:00:00', '2031-02-10 13:00:00', { timezone: 'Europe/Berlin' }),
      ),
    };
    // 05:00 in New York is 10:00 UTC, the start; 05:00:01 is after it.
    expect(
      await listedNames({ startDate: '2031-02-10 05:00:00', strictDates: true }, onNewYorkSite, newYorkSite),
    ).toEqual(['event']);
    expect(
      await listedNames({ startDate: '2031-02-10 05:00:01', strictDates: true }, onNewYorkSite, newYorkSite),
    ).toEqual([]);
  });

  it('differs from the whole-day reading for an event just after midnight in its zone', async () => {
    // 00:30 in Berlin on the 11th is 23:30 UTC on the 10th.
    const early = {
      early: await createEvent(server, at('2031-02-11 00:30:00', '2031-02-11 01:00:00', { timezone: 'Europe/Berlin' })),
    };
    expect(await listedNames({ startDate: '2031-02-11' }, early)).toEqual(['early']);
    expect(await listedNames({ startDate: '2031-02-11', strictDates: true }, early)).toEqual([]);
  });
});

describe('search', () => {
  it('finds a part of the title, description or excerpt, ignoring case', async () => {
    const token = unique('Bonfire');
    const events = {
      title: await createEvent(server, { title: `Midsummer ${token} night` }),
      description: await createEvent(server, { description: `<p>Bring wood for the ${token.toUpperCase()}</p>` }),
      excerpt: await createEvent(server, { excerpt: `a ${token.toLowerCase()} by the lake` }),
      none: await createEvent(server, { title: 'Something else', description: 'bon fire' }),
    };
    expect(await listedNames({ search: token.toLowerCase() }, events)).toEqual(['description', 'excerpt', 'title']);
  });

  it('takes % and _ in the search text literally', async () => {
    const token = unique('pct');
    const events = {
      percent: await createEvent(server, { title: `${token} 100% fun` }),
      digits: await createEvent(server, { title: `${token} 1000 fun` }),
      underscore: await createEvent(server, { title: `${token} a_b` }),
      letter: await createEvent(server, { title: `${token} axb` }),
    };
    expect(await listedNames({ search: '100%' }, events)).toEqual(['percent']);
    expect(await listedNames({ search: 'a_b' }, events)).toEqual(['underscore']);
  });

  it('refuses an empty search, naming search', async () => {
    expect(Object.keys(await refusedFields({ search: '  ' }))).toEqual(['search']);
  });

  // The contract on both engines: ASCII letters match whatever their case, and any text matches itself exactly.
  // Folding other letters is the engine's nature (PostgreSQL's ILIKE folds `Ê`, SQLite's LIKE does not), so a
  // search for `FÊTE` is deliberately not asserted either way.
  it('folds ASCII case on every engine and matches accented text as written', async () => {
    const token = unique('Musique');
    const events = { fete: await createEvent(server, { title: `Fête de la ${token}` }) };
    expect(await listedNames({ search: token.toUpperCase() }, events)).toEqual(['fete']);
    expect(await listedNames({ search: `Fête de la ${token}` }, events)).toEqual(['fete']);
    expect(await listedNames({ search: `fête DE LA ${token.toLowerCase()}` }, events)).toEqual(['fete']);
  });
});

describe('filters by linked records', () => {
  it('filters by categories given as IDs or slugs, any of them', async () => {
    const music = await createCategory(server);
    const art = await createCategory(server);
    const other = await createCategory(server);
    const events = {
      music: await createEvent(server, { categories: [String(music.id)] }),
      art: await createEvent(server, { categories: [String(art.id), String(other.id)] }),
      other: await createEvent(server, { categories: [String(other.id)] }),
      none: await createEvent(server),
    };
    expect(await listedNames({ categories: [String(music.id)] }, events)).toEqual(['music']);
    expect(await listedNames({ categories: [music.slug, art.slug] }, events)).toEqual(['art', 'music']);
    expect(await listedNames({ categories: [String(music.id), art.slug] }, events)).toEqual(['art', 'music']);
    expect(await listedNames({ categories: [music.slug.toUpperCase()] }, events)).toEqual(['music']);
  });

  it('filters by tags given as IDs or slugs', async () => {
    const tag = await createTag(server);
    const events = {
      tagged: await createEvent(server, { tags: [String(tag.id)] }),
      untagged: await createEvent(server),
    };
    expect(await listedNames({ tags: [String(tag.id)] }, events)).toEqual(['tagged']);
    expect(await listedNames({ tags: [tag.slug] }, events)).toEqual(['tagged']);
  });

  it('requires both a category and a tag when both are given', async () => {
    const category = await createCategory(server);
    const tag = await createTag(server);
    const events = {
      both: await createEvent(server, { categories: [String(category.id)], tags: [String(tag.id)] }),
      categoryOnly: await createEvent(server, { categories: [String(category.id)] }),
      tagOnly: await createEvent(server, { tags: [String(tag.id)] }),
    };
    expect(await listedNames({ categories: [category.slug], tags: [tag.slug] }, events)).toEqual(['both']);
  });

  it('refuses unknown category and tag IDs or slugs, naming the field', async () => {
    const tag = await createTag(server);
    const fields = await refusedFields({ categories: ['987654', 'no-such-category'], tags: [tag.slug, 'no-such-tag'] });
    expect(Object.keys(fields).sort()).toEqual(['categories', 'tags']);
    expect(fields.categories).toContain('987654');
    expect(fields.categories).toContain('no-such-category');
    expect(fields.tags).toContain('no-such-tag');
    expect(fields.tags).not.toContain(tag.slug);
  });

  it('refuses a tag slug given as a category, naming categories', async () => {
    const tag = await createTag(server);
    expect(Object.keys(await refusedFields({ categories: [tag.slug] }))).toEqual(['categories']);
  });

  it('filters by venues, listing an event with two of them once', async () => {
    const [a, b, c] = [await createVenue(server), await createVenue(server), await createVenue(server)];
    const events = {
      both: await createEvent(server, { venues: [{ id: a.id }, { id: b.id }] }),
      onlyB: await createEvent(server, { venues: [{ id: b.id }] }),
      onlyC: await createEvent(server, { venues: [{ id: c.id }] }),
      none: await createEvent(server),
    };
    expect(await listedNames({ venues: [a.id, b.id] }, events)).toEqual(['both', 'onlyB']);
    expect(await listedNames({ venues: [c.id] }, events)).toEqual(['onlyC']);
  });

  it('filters by organizers', async () => {
    const [a, b] = [await createOrganizer(server), await createOrganizer(server)];
    const events = {
      a: await createEvent(server, { organizers: [{ id: a.id }] }),
      ab: await createEvent(server, { organizers: [{ id: b.id }, { id: a.id }] }),
      none: await createEvent(server),
    };
    expect(await listedNames({ organizers: [a.id] }, events)).toEqual(['a', 'ab']);
    expect(await listedNames({ organizers: [b.id] }, events)).toEqual(['ab']);
  });

  it('takes global IDs as well as database IDs in venueIds, organizerIds, ids and parentId; the Int fields stay', async () => {
    const venue = await createVenue(server);
    const organizer = await createOrganizer(server);
    const events = {
      both: await createEvent(server, { venues: [{ id: venue.id }], organizers: [{ id: organizer.id }] }),
      venueOnly: await createEvent(server, { venues: [{ id: venue.id }] }),
      none: await createEvent(server),
    };
    const all = Object.values(events);
    const names = new Map(Object.entries(events).map(([name, event]) => [event.id, name]));
    // A client's variables typed with the ID fields' own type, as codegen writes them.
    const byIds = `query ($v: [ID!], $o: [ID!], $ids: [ID!]) {
      events(filter: { venueIds: $v, organizerIds: $o, ids: $ids }, first: 100) { nodes { databaseId } } }`;
    const run = async (variables: Record<string, unknown>) =>
      (await server.gqlOk(byIds, variables)).events.nodes.map((node: any) => names.get(node.databaseId)).sort();
    const globalIds = all.map((event) => event.globalId);
    expect(await run({ v: [venue.globalId], ids: globalIds })).toEqual(['both', 'venueOnly']);
    expect(await run({ v: [String(venue.id)], ids: all.map((event) => event.id) })).toEqual(['both', 'venueOnly']);
    expect(await run({ o: [organizer.globalId], ids: globalIds })).toEqual(['both']);
    expect(await run({ ids: [events.none.globalId, events.both.id] })).toEqual(['both', 'none']);
    // Clients written against the Int fields keep working unchanged ([Int!] variables).
    const byInts = `query ($v: [Int!], $ids: [Int!]) { events(filter: { venues: $v, include: $ids }) { totalCount } }`;
    expect((await server.gqlOk(byInts, { v: [venue.id], ids: all.map((event) => event.id) })).events.totalCount).toBe(
      2,
    );
    const refusals = await refusedFields({
      venueIds: [organizer.globalId, 'not an id'],
      organizerIds: [organizer.globalId],
      organizers: [organizer.id],
      parentId: venue.globalId,
    });
    expect(refusals).toEqual({
      'venueIds.0': expect.stringMatching(/is the ID of an Organizer, not of a Venue/),
      'venueIds.1': expect.stringMatching(/must be a global ID/),
      organizerIds: 'give `organizerIds` or `organizers`, not both',
      parentId: expect.stringMatching(/is the ID of a Venue, not of an Event/),
    });
    const missing = await refusedFields({ venueIds: [Buffer.from('Venue:987654').toString('base64')] });
    expect(missing).toEqual({ venueIds: 'no venue with ID 987654' });
  });

  it('refuses unknown venue, organizer and parent IDs, naming every field at once', async () => {
    const venue = await createVenue(server);
    const fields = await refusedFields({ venues: [venue.id, 987654], organizers: [987655], parent: 987656 });
    expect(Object.keys(fields).sort()).toEqual(['organizers', 'parent', 'venues']);
    expect(fields.venues).toContain('987654');
    expect(fields.venues).not.toMatch(new RegExp(`\\b${venue.id}\\b`));
  });

  it('filters by parent, listing the children of a series', async () => {
    const parent = await createEvent(server);
    const events = {
      parent,
      first: await createEvent(server, { parentId: parent.id }),
      second: await createEvent(server, { parentId: parent.id }),
      unrelated: await createEvent(server),
    };
    expect(await listedNames({ parent: parent.id }, events)).toEqual(['first', 'second']);
  });
});

describe('flag filters', () => {
  it('filters featured true and false', async () => {
    const events = { featured: await createEvent(server, { featured: true }), plain: await createEvent(server) };
    expect(await listedNames({ featured: true }, events)).toEqual(['featured']);
    expect(await listedNames({ featured: false }, events)).toEqual(['plain']);
    expect(await listedNames({}, events)).toEqual(['featured', 'plain']);
  });

  it('filters ticketed true and false', async () => {
    const events = { ticketed: await createEvent(server, { ticketed: true }), free: await createEvent(server) };
    expect(await listedNames({ ticketed: true }, events)).toEqual(['ticketed']);
    expect(await listedNames({ ticketed: false }, events)).toEqual(['free']);
  });

  it('lists published events only to readers, every status but trash to writers by default, and the statuses asked for otherwise', async () => {
    const events = {
      published: await createEvent(server),
      draft: await createEvent(server, { status: 'DRAFT' }),
      pending: await createEvent(server, { status: 'PENDING' }),
      trashed: await createEvent(server),
    };
    await server.gqlOk(`mutation ($id: ID!) { deleteEvent(id: $id) { id } }`, { id: events.trashed.id });
    expect(await listedNames({}, events)).toEqual(['published']);
    expect(await listedNames({ statuses: ['PUBLISH'] }, events)).toEqual(['published']);
    // Anonymous readers may not ask for other statuses.
    expect(
      await refusedFields({ statuses: ['DRAFT'], include: Object.values(events).map((event) => event.id) }),
    ).toEqual({
      statuses: 'not allowed to list draft records',
    });
    const asAdmin = (filter: Filter) => listedNames(filter, events, server, ADMIN_AUTHORIZATION);
    expect(await asAdmin({})).toEqual(['draft', 'pending', 'published']);
    expect(await asAdmin({ statuses: ['PUBLISH'] })).toEqual(['published']);
    expect(await asAdmin({ statuses: ['DRAFT'] })).toEqual(['draft']);
    expect(await asAdmin({ statuses: ['PUBLISH', 'DRAFT', 'PENDING'] })).toEqual(['draft', 'pending', 'published']);
    expect(await asAdmin({ statuses: ['TRASH'] })).toEqual(['trashed']);
  });

  it('lists only the included events', async () => {
    const [a, b, c] = [await createEvent(server), await createEvent(server), await createEvent(server)];
    const data = await server.gqlOk(EVENTS, { filter: { include: [a.id, c.id] } });
    expect(data.events.edges.map((edge: { node: { id: number } }) => edge.node.id)).toEqual([a.id, c.id]);
    expect(data.events.totalCount).toBe(2);
    void b;
  });

  it('never lists an event hidden from listings, whatever the filter, though it can be read', async () => {
    const hidden = await createEvent(server, { hideFromListings: true, featured: true });
    const shown = await createEvent(server, { featured: true });
    const events = { hidden, shown };
    expect(await listedNames({}, events)).toEqual(['shown']);
    expect(
      await listedNames({ featured: true, statuses: ['PUBLISH', 'DRAFT'] }, events, server, ADMIN_AUTHORIZATION),
    ).toEqual(['shown']);
    expect(await listedNames({}, events, server, ADMIN_AUTHORIZATION)).toEqual(['shown']);
    expect(
      (await server.gqlOk(`query ($id: ID!) { event(id: $id) { id: databaseId } }`, { id: hidden.id })).event,
    ).toEqual({ id: hidden.id });
  });
});

describe('place filters', () => {
  // Berlin, Alexanderplatz; one degree of latitude is about 111.2 km.
  const centre = { latitude: 52.5219, longitude: 13.4132 };
  const north = (km: number) => ({ latitude: centre.latitude + km / 111.195, longitude: centre.longitude });

  it('filters events whose venue has coordinates (true) or has none, or no venue at all (false)', async () => {
    const located = await createVenue(server, { latitude: 52.5, longitude: 13.4 });
    const unlocated = await createVenue(server);
    const events = {
      located: await createEvent(server, { venues: [{ id: located.id }] }),
      mixed: await createEvent(server, { venues: [{ id: unlocated.id }, { id: located.id }] }),
      unlocated: await createEvent(server, { venues: [{ id: unlocated.id }] }),
      noVenue: await createEvent(server),
    };
    expect(await listedNames({ hasCoordinates: true }, events)).toEqual(['located', 'mixed']);
    expect(await listedNames({ hasCoordinates: false }, events)).toEqual(['noVenue', 'unlocated']);
  });

  it('finds events within 25 km of a point by default, and within radiusKm when given', async () => {
    const events = {
      at10km: await createEvent(server, { venues: [{ id: (await createVenue(server, north(10))).id }] }),
      at40km: await createEvent(server, { venues: [{ id: (await createVenue(server, north(40))).id }] }),
      // Just inside the default radius: a bounding box drawn with too short a degree would leave it out.
      at24_98km: await createEvent(server, { venues: [{ id: (await createVenue(server, north(24.98))).id }] }),
      at25_02km: await createEvent(server, { venues: [{ id: (await createVenue(server, north(25.02))).id }] }),
      noCoordinates: await createEvent(server, { venues: [{ id: (await createVenue(server)).id }] }),
    };
    expect(await listedNames({ near: centre }, events)).toEqual(['at10km', 'at24_98km']);
    expect(await listedNames({ near: { ...centre, radiusKm: 50 } }, events)).toEqual([
      'at10km',
      'at24_98km',
      'at25_02km',
      'at40km',
    ]);
    expect(await listedNames({ near: { ...centre, radiusKm: 5 } }, events)).toEqual([]);
  });

  it('measures along the great circle east and west too, where a degree of longitude is shorter', async () => {
    // At 52.5° north one degree of longitude is about 67.7 km: 0.3° east is about 20 km, 0.45° about 30 km.
    const events = {
      at20kmEast: await createEvent(server, {
        venues: [
          { id: (await createVenue(server, { latitude: centre.latitude, longitude: centre.longitude + 0.3 })).id },
        ],
      }),
      at30kmWest: await createEvent(server, {
        venues: [
          { id: (await createVenue(server, { latitude: centre.latitude, longitude: centre.longitude - 0.45 })).id },
        ],
      }),
    };
    expect(await listedNames({ near: centre }, events)).toEqual(['at20kmEast']);
  });

  it('finds a venue across the antimeridian and one across a pole', async () => {
    const events = {
      // 0.1° of longitude at the equator is about 11 km, across the date line.
      fiji: await createEvent(server, {
        venues: [{ id: (await createVenue(server, { latitude: -17, longitude: -179.95 })).id }],
      }),
      // Two points 0.05° from the North Pole on opposite meridians are about 11 km apart.
      pole: await createEvent(server, {
        venues: [{ id: (await createVenue(server, { latitude: 89.95, longitude: 180 })).id }],
      }),
    };
    expect(await listedNames({ near: { latitude: -17, longitude: 179.95 } }, events)).toEqual(['fiji']);
    expect(await listedNames({ near: { latitude: 89.95, longitude: 0 } }, events)).toEqual(['pole']);
  });

  it('refuses a point off the globe or a radius that is not positive, naming the field', async () => {
    const fields = await refusedFields({ near: { latitude: 91, longitude: -181, radiusKm: 0 } });
    expect(Object.keys(fields).sort()).toEqual(['near.latitude', 'near.longitude', 'near.radiusKm']);
  });
});

describe('order and pages', () => {
  it('orders by start, then by ID for events starting at the same instant', async () => {
    const sameStart = at('2031-06-01 10:00:00', '2031-06-01 11:00:00');
    const first = await createEvent(server, sameStart);
    const second = await createEvent(server, sameStart);
    const earliest = await createEvent(server, at('2031-06-01 09:30:00', '2031-06-01 23:00:00'));
    // 10:00 in Berlin (summer) is 08:00 UTC: earlier than all of the above although its wall clock is later.
    const berlin = await createEvent(
      server,
      at('2031-06-01 10:00:00', '2031-06-01 10:30:00', { timezone: 'Europe/Berlin' }),
    );
    expect(await listed({}, [first, second, earliest, berlin])).toEqual([berlin.id, earliest.id, first.id, second.id]);
  });

  it('pages through the list with first/after without gaps or repeats, counting every match', async () => {
    const events = [];
    // Several events share a start so that the order within a page depends on the ID tie-break.
    for (let i = 0; i < 7; i++)
      events.push(
        await createEvent(server, at(`2031-07-0${1 + (i % 3)} 10:00:00`, `2031-07-0${1 + (i % 3)} 11:00:00`)),
      );
    const all = await listed({}, events);
    const filter = { include: events.map((event) => event.id) };
    const seen: number[] = [];
    let after: string | null = null;
    const pages = [];
    for (;;) {
      const data: any = await server.gqlOk(EVENTS, { filter, first: 3, after });
      expect(data.events.totalCount).toBe(7);
      pages.push(data.events.edges.length);
      seen.push(...data.events.edges.map((edge: { node: { id: number } }) => edge.node.id));
      if (!data.events.pageInfo.hasNextPage) break;
      after = data.events.pageInfo.endCursor;
    }
    expect(pages).toEqual([3, 3, 1]);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(7);
  });

  it('pages backwards with last/before', async () => {
    const events = [];
    for (let i = 0; i < 5; i++)
      events.push(await createEvent(server, at(`2031-08-0${1 + i} 10:00:00`, `2031-08-0${1 + i} 11:00:00`)));
    const filter = { include: events.map((event) => event.id) };
    const query = `query ($filter: EventsFilter, $last: Int, $before: String) {
      events(filter: $filter, last: $last, before: $before) { totalCount edges { node { id: databaseId } } pageInfo { hasPreviousPage startCursor } }
    }`;
    const ids = (data: any) => data.events.edges.map((edge: { node: { id: number } }) => edge.node.id);
    const lastPage = await server.gqlOk(query, { filter, last: 2 });
    expect(ids(lastPage)).toEqual([events[3]!.id, events[4]!.id]);
    expect(lastPage.events.pageInfo.hasPreviousPage).toBe(true);
    const previous = await server.gqlOk(query, { filter, last: 2, before: lastPage.events.pageInfo.startCursor });
    expect(ids(previous)).toEqual([events[1]!.id, events[2]!.id]);
  });

  it('counts every match in totalCount, whatever the page size', async () => {
    const token = unique('counted');
    for (let i = 0; i < 4; i++) await createEvent(server, { title: `${token} ${i}` });
    await createEvent(server, { title: `${token} draft`, status: 'DRAFT' });
    const data = await server.gqlOk(EVENTS, { filter: { search: token }, first: 2 });
    expect(data.events.totalCount).toBe(4);
    expect(data.events.edges).toHaveLength(2);
    expect(data.events.pageInfo.hasNextPage).toBe(true);
  });
});
