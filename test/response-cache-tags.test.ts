import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomSequence } from '../src/random.js';
import { TEST_ENGINE } from './support/database.js';
import { type RawResponse, rawRequest } from './support/raw-http.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// The response cache keeps each answer until what it shows changes (docs/caching.md): a write makes stale only the
// answers tagged with the records and tables it changed. Two servers on one database: `cached` with a clock bound of
// ten minutes (so only a change can make an answer stale), and `reference` with the cache off. After every write
// (made through `cached`, which sees its own writes at once) each of the reads below must answer the same in both.

const API = '/wp-json/calendar/events/v1';
const SITE_URL = 'http://calendar.test';
const SEED = Number(process.env.CACHE_TAGS_SEED ?? 20261127);
const ROUNDS = Number(process.env.CACHE_TAGS_ROUNDS ?? 60);

let cached: TestServer;
let reference: TestServer;

beforeAll(async () => {
  // One site URL, so that the answers' links do not name the servers' ports.
  cached = await startServer({ SITE_URL, RESPONSE_CACHE_TTL_MS: '600000' });
  reference = await startServer({ SITE_URL, RESPONSE_CACHE_MB: '0' }, { databaseOf: cached });
}, 60_000);

afterAll(async () => {
  await reference?.close();
  await cached?.close();
});

async function write(method: string, route: string, body?: unknown) {
  const response = await fetch(`${cached.url}${API}${route}`, {
    method,
    headers: { authorization: ADMIN_AUTHORIZATION, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** The status, body and the headers that carry data (totals, page links). */
async function read(server: TestServer, path: string) {
  const response = await fetch(`${server.url}${path}`);
  const headers = ['x-wp-total', 'x-wp-totalpages', 'link'].map((name) => response.headers.get(name));
  return { status: response.status, headers, body: await response.text() };
}

/** A small calendar in 2027 (inside the default window of two years from today). */
interface Calendar {
  events: number[];
  venues: number[];
  organizers: number[];
  categories: { id: number; slug: string }[];
  tags: { id: number; slug: string }[];
}

async function seedCalendar(): Promise<Calendar> {
  const made = async (route: string, body: unknown) => {
    const reply = await write('POST', route, body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body;
  };
  const venues = [];
  for (const name of ['Harbour hall', 'Quay shed', 'Old mill'])
    venues.push((await made('/venues', { venue: name })).id);
  const organizers = [];
  for (const name of ['Tide club', 'Mill society'])
    organizers.push((await made('/organizers', { organizer: name })).id);
  const categories = [];
  for (const name of ['Music', 'Talks', 'Walks']) {
    const term = await made('/categories', { name });
    categories.push({ id: term.id, slug: term.slug });
  }
  const tags = [];
  for (const name of ['free', 'family']) {
    const term = await made('/tags', { name });
    tags.push({ id: term.id, slug: term.slug });
  }
  const events = [];
  for (let index = 0; index < 8; index++) {
    const day = String(index + 3).padStart(2, '0');
    const event = await made('/events', {
      title: `Evening ${index}`,
      start_date: `2027-03-${day} 19:00:00`,
      end_date: `2027-03-${day} 21:00:00`,
      venue: venues[index % venues.length],
      organizer: [organizers[index % organizers.length]],
      categories: [categories[index % categories.length]!.id],
      tags: index % 2 ? [tags[0]!.id] : [],
      featured: index % 3 === 0,
    });
    events.push(event.id);
  }
  return { events, venues, organizers, categories, tags };
}

/** Every read compared: lists with each kind of filter, single records, and a GraphQL GET. */
function readsOf(calendar: Calendar): string[] {
  const window = 'start_date=2027-01-01&end_date=2027-12-31';
  const graphql = encodeURIComponent(
    '{ events(first: 20, filter: { startDate: "2027-01-01", endDate: "2027-12-31" }) { totalCount edges { node { title venues { name } categories { name } } } } }',
  );
  return [
    `${API}/events`,
    `${API}/events?${window}`,
    `${API}/events?${window}&per_page=3&page=2`,
    `${API}/events?${window}&venue=${calendar.venues[0]}`,
    `${API}/events?${window}&organizer=${calendar.organizers[1]}`,
    `${API}/events?${window}&categories=${calendar.categories[0]!.slug}`,
    `${API}/events?${window}&tags=${calendar.tags[0]!.slug}`,
    `${API}/events?${window}&search=Evening`,
    `${API}/events?start_date=2027-03-01&end_date=2027-03-06&per_page=2`,
    `${API}/events?start_date=2027-04-01&end_date=2027-04-10`,
    `${API}/events?${window}&search=Retitled`,
    `${API}/events?${window}&featured=true`,
    ...calendar.events.map((id) => `${API}/events/${id}`),
    `${API}/venues`,
    ...calendar.venues.map((id) => `${API}/venues/${id}`),
    `${API}/organizers`,
    ...calendar.organizers.map((id) => `${API}/organizers/${id}`),
    `${API}/categories`,
    ...calendar.categories.map(({ id }) => `${API}/categories/${id}`),
    `${API}/tags`,
    `${API}/tags/${calendar.tags[1]!.id}`,
    `/graphql?query=${graphql}`,
  ];
}

/** A GraphQL query by POST, as front ends send them: venues with their upcoming events' titles. */
async function postQuery(server: TestServer) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `query Venues($first: Int) {
        venues(first: $first) { edges { node { name city events(first: 5) { edges { node { title } } } } } }
      }`,
      variables: { first: 10 },
    }),
  });
  return { status: response.status, body: await response.text() };
}

type Write = (calendar: Calendar, random: ReturnType<typeof randomSequence>) => Promise<string>;

const WRITES: Write[] = [
  async (c, r) => {
    const id = r.pick(c.events);
    await write('POST', `/events/${id}`, { title: `Retitled ${id} ${r.pick(['a', 'b', 'c'])}` });
    return `event ${id} retitled`;
  },
  async (c, r) => {
    const id = r.pick(c.events);
    await write('POST', `/events/${id}`, { venue: r.pick(c.venues) });
    return `event ${id} moved venue`;
  },
  async (c, r) => {
    const id = r.pick(c.events);
    await write('POST', `/events/${id}`, {
      categories: [r.pick(c.categories).id],
      tags: r.chance(0.5) ? [r.pick(c.tags).id] : [],
    });
    return `event ${id} re-categorised`;
  },
  async (c, r) => {
    const id = r.pick(c.events);
    await write('POST', `/events/${id}`, { status: r.pick(['draft', 'publish', 'private']) });
    return `event ${id} status`;
  },
  async (c, r) => {
    const id = r.pick(c.events);
    await write('POST', `/events/${id}`, { featured: r.chance(0.5), organizer: [r.pick(c.organizers)] });
    return `event ${id} featured/organizer`;
  },
  async (c, r) => {
    const id = r.pick(c.events);
    const day = String(1 + Math.floor(r.chance(0.5) ? 5 : 20)).padStart(2, '0');
    await write('POST', `/events/${id}`, {
      start_date: `2027-04-${day} 10:00:00`,
      end_date: `2027-04-${day} 12:00:00`,
    });
    return `event ${id} rescheduled`;
  },
  async (c, r) => {
    const id = r.pick(c.events);
    await write('DELETE', `/events/${id}`);
    return `event ${id} trashed`;
  },
  async (c, r) => {
    const reply = await write('POST', '/events', {
      title: `New evening ${c.events.length}`,
      start_date: '2027-05-02 18:00:00',
      end_date: '2027-05-02 20:00:00',
      venue: r.pick(c.venues),
      categories: [r.pick(c.categories).id],
    });
    if (reply.status === 201) c.events.push(reply.body.id);
    return 'event created';
  },
  async (c, r) => {
    const id = r.pick(c.venues);
    await write('POST', `/venues/${id}`, {
      venue: `Venue ${id} ${r.pick(['north', 'south'])}`,
      city: r.pick(['Bergen', 'Oslo']),
    });
    return `venue ${id} renamed`;
  },
  async (c, r) => {
    const id = r.pick(c.venues);
    await write('POST', `/venues/${id}`, { status: r.pick(['draft', 'publish']) });
    return `venue ${id} status`;
  },
  async (c, r) => {
    const id = r.pick(c.organizers);
    await write('POST', `/organizers/${id}`, { organizer: `Organizer ${id} ${r.pick(['x', 'y'])}` });
    return `organizer ${id} renamed`;
  },
  async (c, r) => {
    const term = r.pick(c.categories);
    const slug = `${term.slug.replace(/-\d+$/, '')}-${r.pick([1, 2, 3])}`;
    const reply = await write('POST', `/categories/${term.id}`, { name: `Category ${slug}`, slug });
    if (reply.status === 200) term.slug = reply.body.slug;
    return `category ${term.id} renamed`;
  },
  async (c, r) => {
    const term = r.pick(c.tags);
    await write('POST', `/tags/${term.id}`, { description: `About ${r.pick(['one', 'two'])}` });
    return `tag ${term.id} described`;
  },
];

describe(`response cache tags (${TEST_ENGINE})`, () => {
  let calendar: Calendar;

  it('makes stale what a write changed, and nothing else', async () => {
    calendar = await seedCalendar();
    const [edited, other] = calendar.events;
    const venuePage = `${API}/venues/${calendar.venues[1]}`;
    const otherEvent = `${API}/events/${other}`;
    const list = `${API}/events?start_date=2027-01-01&end_date=2027-12-31`;
    for (const path of [venuePage, otherEvent, list, `${API}/events/${edited}`]) await read(cached, path);

    expect((await write('POST', `/events/${edited}`, { title: 'Edited evening' })).status).toBe(200);
    // Its own page and the lists are computed again and show the edit…
    let editedPage: Awaited<ReturnType<typeof read>> | undefined;
    expect(
      await cached.countQueries(async () => (editedPage = await read(cached, `${API}/events/${edited}`))),
    ).toBeGreaterThan(0);
    expect(JSON.parse(editedPage!.body).title).toBe('Edited evening');
    let listed: Awaited<ReturnType<typeof read>> | undefined;
    expect(await cached.countQueries(async () => (listed = await read(cached, list)))).toBeGreaterThan(0);
    expect(JSON.parse(listed!.body).events.map((event: { title: string }) => event.title)).toContain('Edited evening');
    // …another event's page and a venue's page are still answered from memory: no statement.
    expect(await cached.countQueries(() => read(cached, otherEvent))).toBe(0);
    expect(await cached.countQueries(() => read(cached, venuePage))).toBe(0);
  });

  it('checks a list by asking its reads again when its table changed elsewhere, and computes it again when they answer otherwise', async () => {
    const made = [];
    for (const day of ['03', '04', '05', '28']) {
      const reply = await write('POST', '/events', {
        title: `Probe ${day}`,
        start_date: `2029-06-${day} 10:00:00`,
        end_date: `2029-06-${day} 11:00:00`,
      });
      expect(reply.status).toBe(201);
      made.push(reply.body.id as number);
    }
    const list = `${API}/events?start_date=2029-06-01&end_date=2029-06-30&per_page=2`;
    const same = async (path: string) => expect(await read(cached, path)).toEqual(await read(reference, path));
    const computing = await cached.countQueries(() => read(cached, list));
    const statements = async (path: string) => cached.countQueries(() => same(path));

    // An event outside the window changes: the list's reads (its page's IDs, its total) are asked again and answer
    // as before, so it is kept, with fewer statements than computing it took; then it is a hit again.
    const elsewhere = await write('POST', '/events', {
      title: 'Elsewhere',
      start_date: '2030-01-01 10:00:00',
      end_date: '2030-01-01 11:00:00',
    });
    expect((await write('POST', `/events/${elsewhere.body.id}`, { title: 'Still elsewhere' })).status).toBe(200);
    const checking = await statements(list);
    expect(checking).toBeGreaterThan(0);
    expect(checking).toBeLessThan(computing);
    expect(await statements(list)).toBe(0);
    // A retitle changes no column the list's reads read (its window, its order): they are not asked again, and the
    // look-up costs reading the change log's new entry (and whatever a background task reads meanwhile).
    expect((await write('POST', `/events/${elsewhere.body.id}`, { title: 'Elsewhere again' })).status).toBe(200);
    expect(await statements(list)).toBeLessThan(checking);
    expect(await statements(list)).toBe(0);

    // The last event of page 2 changes: page 1 (which reads one row past its end, to know there is a next page) does
    // not show it and is kept; page 2 shows the change.
    expect((await write('POST', `/events/${made[3]}`, { title: 'Probe moved on' })).status).toBe(200);
    expect(await statements(list)).toBeLessThan(computing);
    expect(await statements(list)).toBe(0);
    await same(`${list}&page=2`);

    // An event joins the window after page 1's events: page 1's IDs are the same, its total is not.
    expect(
      (
        await write('POST', `/events/${elsewhere.body.id}`, {
          start_date: '2029-06-20 10:00:00',
          end_date: '2029-06-20 11:00:00',
        })
      ).status,
    ).toBe(200);
    await same(list);
    expect(JSON.parse((await read(cached, list)).body).total).toBe(5);
    // A retitle that makes an event match a search it did not match.
    const search = `${API}/events?start_date=2029-06-01&end_date=2029-06-30&search=moved`;
    await same(search);
    expect((await write('POST', `/events/${made[0]}`, { title: 'Probe moved first' })).status).toBe(200);
    await same(search);
    expect(JSON.parse((await read(cached, search)).body).events).toHaveLength(2);
  });

  it('shows the occurrences a series gains or loses when its recurrence changes, and when a list reaches further', async () => {
    const made = await write('POST', '/events', {
      title: 'Weekly probe class',
      start_date: '2032-03-01 18:00:00',
      end_date: '2032-03-01 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    });
    expect(made.status).toBe(201);
    const lists = [
      `${API}/events?start_date=2032-03-01&end_date=2032-03-31`,
      `${API}/events?start_date=2032-03-01&end_date=2032-03-31&per_page=2`,
      `${API}/events?start_date=2032-03-20&end_date=2032-03-31`,
    ];
    const same = async () => {
      for (const path of lists) expect(await read(cached, path), path).toEqual(await read(reference, path));
    };
    await same();
    for (const recurrence of [['RRULE:FREQ=WEEKLY;COUNT=5'], ['RRULE:FREQ=WEEKLY;COUNT=2'], ['RRULE:FREQ=WEEKLY']]) {
      expect((await write('POST', `/events/${made.body.id}`, { recurrence })).status).toBe(200);
      await same();
      // A later list reaches beyond the series' horizon; the earlier ones must still answer as the reference.
      await read(cached, `${API}/events?start_date=2033-06-01&end_date=2033-06-30`);
      await same();
    }
    expect(JSON.parse((await read(cached, lists[0]!)).body).total).toBe(5);
  });

  it('shows the occurrences a later list added to an unbounded series in lists without an end', async () => {
    const made = await write('POST', '/events', {
      venue: { venue: 'Endless Hall' },
      title: 'Endless fortnightly probe',
      start_date: '2034-01-02 18:00:00',
      end_date: '2034-01-02 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;INTERVAL=2'],
    });
    expect(made.status).toBe(201);
    const endless = `/graphql?query=${encodeURIComponent(`{
      events(filter: { startDate: "2034-01-01", search: "Endless fortnightly" }, first: 100) {
        totalCount pageInfo { hasNextPage } edges { node { databaseId startsAt } }
      }
    }`)}`;
    const atTheHall = `/graphql?query=${encodeURIComponent(`{
      venues(first: 100) { edges { node { name events(first: 3) { totalCount edges { node { startsAt } } } } } }
    }`)}`;
    const lists = [endless, atTheHall];
    for (const path of lists) expect(await read(cached, path)).toEqual(await read(reference, path));
    // Another list reaches a year further: the series gains occurrences, which the lists without an end show.
    await read(cached, `${API}/events?start_date=2035-06-01&end_date=2035-06-30`);
    for (const path of lists) expect(await read(cached, path), path).toEqual(await read(reference, path));
    expect(JSON.parse((await read(cached, atTheHall)).body).data.venues.edges).toContainEqual({
      node: expect.objectContaining({ name: 'Endless Hall', events: expect.objectContaining({ totalCount: 42 }) }),
    });
  });

  it('shows a write in a feed whose calendar was remembered for another URL of the same list', async () => {
    const ids = [];
    for (const day of ['03', '04', '05']) {
      const reply = await write('POST', '/events', {
        title: `Feed night ${day}`,
        start_date: `2031-02-${day} 20:00:00`,
        end_date: `2031-02-${day} 22:00:00`,
      });
      expect(reply.status).toBe(201);
      ids.push(reply.body.id);
    }
    const feed = `${API}/events.ics?start_date=2031-02-01&end_date=2031-02-28`;
    // The second URL's page shows the first event only, its feed all three: its calendar is the one the first URL
    // rendered, remembered for the list.
    const feeds = [feed, `${feed}&per_page=1`];
    for (const path of feeds) expect((await read(cached, path)).body).toContain('SUMMARY:Feed night 05');
    expect((await write('POST', `/events/${ids[2]}`, { title: 'Feed morning' })).status).toBe(200);
    for (const path of feeds) expect((await read(cached, path)).body, path).toContain('SUMMARY:Feed morning');
  });

  it(`answers exactly as the uncached server after each of ${ROUNDS} random writes (seed ${SEED})`, async () => {
    const random = randomSequence(SEED);
    const reads = readsOf(calendar);
    for (const path of reads) await read(cached, path);
    for (let round = 0; round < ROUNDS; round++) {
      const what = await random.pick(WRITES)(calendar, random);
      for (const path of readsOf(calendar)) {
        const [fromCache, fromDatabase] = [await read(cached, path), await read(reference, path)];
        expect(fromCache, `round ${round} (${what}): ${decodeURIComponent(path)}`).toEqual(fromDatabase);
      }
      const [postedToCache, postedToDatabase] = [await postQuery(cached), await postQuery(reference)];
      expect(postedToCache, `round ${round} (${what}): GraphQL POST`).toEqual(postedToDatabase);
    }
  }, 240_000);

  it('keeps GraphQL queries sent by POST for anonymous readers, never mutations nor a signed-in reader’s answers', async () => {
    const query = `query Drafts($window: EventsFilter) {
      events(first: 50, filter: $window) { totalCount edges { node { title status } } }
    }`;
    const variables = { window: { startDate: '2027-01-01', endDate: '2027-12-31' } };
    const post = (as?: string) =>
      fetch(`${cached.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(as ? { authorization: as } : {}) },
        body: JSON.stringify({ query, variables, operationName: 'Drafts' }),
      }).then(async (response) => ({ etag: response.headers.get('etag'), body: (await response.json()) as any }));
    const draft = await write('POST', '/events', {
      title: 'Draft rehearsal',
      status: 'draft',
      start_date: '2027-06-01 10:00:00',
      end_date: '2027-06-01 11:00:00',
    });
    expect(draft.status).toBe(201);
    const titles = (answer: { body: any }) => answer.body.data.events.edges.map((edge: any) => edge.node.title);

    const first = await post();
    expect(titles(first)).not.toContain('Draft rehearsal');
    let again: Awaited<ReturnType<typeof post>> | undefined;
    expect(await cached.countQueries(async () => (again = await post()))).toBe(0);
    expect(again).toEqual(first);
    expect(again!.etag).toBeNull();

    // The administrator sees the draft, from the database, and the anonymous answer stays the anonymous one.
    let admin: Awaited<ReturnType<typeof post>> | undefined;
    expect(await cached.countQueries(async () => (admin = await post(ADMIN_AUTHORIZATION)))).toBeGreaterThan(0);
    expect(titles(admin!)).toContain('Draft rehearsal');
    expect(titles(await post())).not.toContain('Draft rehearsal');

    // Published, it shows in the anonymous answer at the next request.
    expect((await write('POST', `/events/${draft.body.id}`, { status: 'publish' })).status).toBe(200);
    expect(titles(await post())).toContain('Draft rehearsal');

    // A mutation sent the same way runs every time.
    const mutation = JSON.stringify({
      query: 'mutation($input: VenueInput!) { createVenue(input: $input) { id } }',
      variables: { input: { name: 'Twice hall' } },
    });
    const ids = [];
    for (let time = 0; time < 2; time++) {
      const response = await fetch(`${cached.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: ADMIN_AUTHORIZATION },
        body: mutation,
      });
      ids.push(((await response.json()) as any).data.createVenue.id);
    }
    expect(new Set(ids).size).toBe(2);
  });

  it('computes an answer once for the requests that ask for it together', async () => {
    const path = `${API}/events?start_date=2027-01-01&end_date=2027-12-31&per_page=4`;
    const created = await write('POST', '/events', {
      title: 'Asked together',
      start_date: '2027-01-02 09:00:00',
      end_date: '2027-01-02 10:00:00',
    });
    expect(created.status).toBe(201);
    const event = created.body.id;
    const alone = await cached.countQueries(() => read(cached, path));
    expect(alone).toBeGreaterThan(1);
    expect((await write('POST', `/events/${event}`, { title: 'Asked together again' })).status).toBe(200);
    let answers: Awaited<ReturnType<typeof read>>[] = [];
    const together = await cached.countQueries(async () => {
      answers = await Promise.all(Array.from({ length: 8 }, () => read(cached, path)));
    });
    // One computation (and one reading of the change log), as for a single request; eight would be eight times it
    // (88 statements against 15 on PostgreSQL without the sharing; on SQLite, start pacing alone keeps the eight
    // from overlapping, so there the first one's answer is kept before the others look). The count is the process's:
    // a background task's statement may fall inside it (the webhook dispatcher renews its lease every second, and on
    // PostgreSQL reads the data version after a write), so the bound is less than two computations, not one.
    expect(together).toBeLessThan(2 * alone);
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(answers[0]!.body).toContain('Asked together again');
  });
});

describe(`response cache budget (${TEST_ENGINE})`, () => {
  let small: TestServer;

  beforeAll(async () => {
    small = await startServer({ SITE_URL, RESPONSE_CACHE_MB: '1' });
  }, 60_000);

  afterAll(async () => {
    await small?.close();
  });

  /** Forty events on days of `year`, each with `description`, and `count` distinct URLs of pages of twelve of them. */
  async function longPages(year: number, description: (day: number) => string, count: number) {
    for (let day = 1; day <= 40; day++) {
      const date = `${year}-05-${String((day % 28) + 1).padStart(2, '0')}`;
      const reply = await fetch(`${small.url}${API}/events`, {
        method: 'POST',
        headers: { authorization: ADMIN_AUTHORIZATION, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `Long ${day}`,
          description: description(day),
          start_date: `${date} 18:00:00`,
          end_date: `${date} 20:00:00`,
        }),
      });
      expect(reply.status).toBe(201);
    }
    return Array.from(
      { length: count },
      (_, index) =>
        `${API}/events?start_date=${year}-01-01&end_date=${year}-12-31&per_page=12&search=${'e'.repeat(index % 2) || 'Long'}&_=${index}`,
    );
  }

  const statements = (path: string) => small.countQueries(() => read(small, path));

  it('keeps within RESPONSE_CACHE_MB when more answers are asked for than fit, dropping the least recently used', async () => {
    // Descriptions of random characters, which gzip cannot shrink much: fifty pages of about 60 KB hold more than a
    // megabyte even packed.
    const { next } = randomSequence(20261129);
    const noise = () => Buffer.from(Array.from({ length: 1500 }, () => Math.floor(next() * 256))).toString('base64');
    const pages = await longPages(2028, noise, 50);
    const [hot, cold] = pages;
    // The first page is asked for again every fifth page (the most recently used stay); the second is not.
    expect((await read(small, hot!)).body.length).toBeGreaterThan(30_000);
    for (const [index, path] of pages.entries()) {
      if (index === 0) continue;
      expect(await statements(path)).toBeGreaterThan(0);
      if (index % 5 === 0) expect(await statements(hot!)).toBe(0);
    }
    expect(await statements(pages.at(-1)!)).toBe(0);
    expect(await statements(hot!)).toBe(0);
    expect(await statements(cold!)).toBeGreaterThan(0);
  });

  it('keeps answers beyond half the budget gzipped: still kept, the same bytes and ETag in every coding', async () => {
    // Thirty pages of about 40 KB (1.2 MB as they are, more than the budget) of text that gzip shrinks tenfold.
    const pages = await longPages(2029, () => 'A long evening by the water. '.repeat(40), 30);
    const identity = new Map<string, RawResponse>();
    for (const path of pages) {
      const answer = await rawRequest(`${small.url}${path}`, { 'accept-encoding': 'identity' });
      expect(answer.status).toBe(200);
      identity.set(path, answer);
    }
    expect(identity.get(pages[0]!)!.body.length).toBeGreaterThan(30_000);
    // Every page is still kept; the first ones were packed to make room.
    const asked = (path: string) => rawRequest(`${small.url}${path}`, { 'accept-encoding': 'identity' });
    for (const path of pages) expect(await small.countQueries(() => asked(path))).toBe(0);
    const [oldest] = pages;
    const first = identity.get(oldest!)!;
    const again = await asked(oldest!);
    expect(again.headers['content-encoding']).toBeUndefined();
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.body.equals(first.body)).toBe(true);
    // Packed, it is sent as gzip to a client that takes gzip or brotli; the newest page is still sent as brotli.
    const coded = await rawRequest(`${small.url}${oldest}`, { 'accept-encoding': 'br, gzip' });
    expect(coded.headers['content-encoding']).toBe('gzip');
    expect(coded.headers.etag).toBe(`${String(first.headers.etag).slice(0, -1)}-gzip"`);
    expect(gunzipSync(coded.body).equals(first.body)).toBe(true);
    const newest = await rawRequest(`${small.url}${pages.at(-1)}`, { 'accept-encoding': 'br, gzip' });
    expect(newest.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(newest.body).equals(identity.get(pages.at(-1)!)!.body)).toBe(true);
    // Revalidation by the tag the client holds, in either coding.
    for (const [tag, coding] of [
      [first.headers.etag, 'identity'],
      [coded.headers.etag, 'gzip'],
    ]) {
      const revalidated = await rawRequest(`${small.url}${oldest}`, {
        'accept-encoding': String(coding),
        'if-none-match': String(tag),
      });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.etag).toBe(tag);
    }
    // Asked for often again, it is kept as it is again: sent as brotli, still the same bytes.
    for (let hit = 0; hit < 16; hit++) await asked(oldest!);
    const unpacked = await rawRequest(`${small.url}${oldest}`, { 'accept-encoding': 'br, gzip' });
    expect(unpacked.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(unpacked.body).equals(first.body)).toBe(true);
    expect((await asked(oldest!)).body.equals(first.body)).toBe(true);
  });
});
