import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeople, type People } from './auth-fixtures.js';
import { createEvent, createOrganizer, createVenue } from './support/factories.js';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { rest, startInstance, stop, type Instance } from './support/processes.js';
import { call } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

// Regression tests for the defects an adversarial audit found (issue 17, points 1 to 4). Each failed before its fix.

let server: TestServer;
let people: People;
beforeAll(async () => {
  server = await startServer();
  people = await createPeople(server, 'audit');
}, 60_000);
afterAll(() => server?.close());

const READERS = ['anonymous', 'subscriber', 'contributor', 'author'] as const;
const as = (reader: (typeof READERS)[number] | 'administrator') => people.actors[reader].authorization ?? '';

describe('embedding a venue or organizer is reading it (17.1)', () => {
  let eventId: number;
  const secrets = ['Hidden Hall', '555-0199-HIDDEN', 'hidden-organizer@example.org'];
  beforeAll(async () => {
    // The administrator's draft venue and private organizer, linked to a published event.
    const venue = await createVenue(server, { name: 'Hidden Hall', phone: '555-0199-HIDDEN', status: 'DRAFT' });
    const organizer = await createOrganizer(server, {
      name: 'Hidden Org',
      email: 'hidden-organizer@example.org',
      status: 'PRIVATE',
    });
    const event = await createEvent(server, {
      title: 'Public gala',
      startDate: '2027-03-01 19:00',
      endDate: '2027-03-01 22:00',
      venues: [{ id: venue.id }],
      organizers: [{ id: organizer.id }],
    });
    eventId = event.id;
  });

  const paths = () => [
    { base: '/wp-json/calendar/events/v1', route: `/events/${eventId}` },
    { base: '/wp-json/tribe/events/v1', route: `/events/${eventId}` },
    { base: '/de/wp-json/calendar/events/v1', route: `/events/${eventId}` },
    { base: '/?rest_route=/calendar/events/v1', route: `/events/${eventId}` },
    {
      base: '/wp-json/calendar/events/v1',
      route: '/events',
      query: 'start_date=2027-01-01&end_date=2027-12-31&search=Public%20gala',
    },
    { base: '/wp-json/calendar/events/v1', route: '/events.ics', query: 'start_date=2027-01-01&end_date=2027-12-31' },
    { base: '/wp-json/calendar/events/v1', route: `/events/${eventId}.ics` },
  ];

  it.each(READERS)('withholds them from %s on every REST path, the feeds and GraphQL', async (reader) => {
    for (const path of paths()) {
      const answer = await call(server, 'GET', path.route, {
        base: path.base,
        query: path.query,
        headers: { authorization: as(reader) },
      });
      expect(answer.text, `${path.base}${path.route}`).toContain('Public gala');
      for (const secret of secrets) expect(answer.text, `${path.base}${path.route}`).not.toContain(secret);
    }
    const graphql = await server.gql(
      `query ($id: ID!) { event(id: $id) { title venues { name phone } organizers { name email } } }`,
      { id: eventId },
      people.actors[reader].authorization,
    );
    expect(graphql.data.event.title).toBe('Public gala');
    expect(graphql.data.event.venues).toEqual([]);
    expect(graphql.data.event.organizers).toEqual([]);
  });

  it('shows them to those who may read them', async () => {
    for (const path of paths().slice(0, 1)) {
      const answer = await call(server, 'GET', path.route, {
        base: path.base,
        headers: { authorization: as('administrator') },
      });
      for (const secret of secrets) expect(answer.text).toContain(secret);
    }
  });
});

describe('linking is reading (17.2)', () => {
  it('refuses to link a venue or organizer the writer may not read, naming the field, and writes nothing', async () => {
    const venue = await createVenue(server, { name: 'Admin draft hall', status: 'DRAFT' });
    const organizer = await createOrganizer(server, { name: 'Admin private org', status: 'PRIVATE' });
    const event = { title: 'Borrowed hall', start_date: '2027-04-01 10:00:00', end_date: '2027-04-01 11:00:00' };
    const viaVenue = await call(server, 'POST', '/events', {
      json: { ...event, venue: venue.id },
      headers: { authorization: as('contributor') },
    });
    expect(viaVenue.status).toBe(400);
    expect(viaVenue.body.data.params).toHaveProperty('venue');
    const viaOrganizer = await call(server, 'POST', '/events', {
      json: { ...event, organizer: [organizer.id] },
      headers: { authorization: as('author') },
    });
    expect(viaOrganizer.status).toBe(400);
    expect(viaOrganizer.body.data.params).toHaveProperty('organizer');
    const graphql = await server.gql(
      `mutation ($v: ID!) { createEvent(input: { title: "Borrowed", startDate: "2027-04-01 10:00", endDate: "2027-04-01 11:00", venues: [{ id: $v }] }) { id } }`,
      { v: venue.globalId },
      people.actors.contributor.authorization,
    );
    expect(graphql.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { venues: `no venue with ID ${venue.id}` },
    });
    const created = await server.gqlOk(
      `{ events(filter: { search: "Borrowed", startDate: "2027-01-01", endDate: "2027-12-31" }) { totalCount } }`,
      {},
      people.actors.administrator.authorization,
    );
    expect(created.events.totalCount).toBe(0);
  });

  it('lets writers link their own drafts and published records', async () => {
    const own = await call(server, 'POST', '/venues', {
      json: { venue: 'My own draft hall', status: 'draft' },
      headers: { authorization: as('contributor') },
    });
    expect(own.status).toBe(201);
    const linked = await call(server, 'POST', '/events', {
      json: {
        title: 'Own hall',
        start_date: '2027-04-02 10:00:00',
        end_date: '2027-04-02 11:00:00',
        venue: own.body.id,
      },
      headers: { authorization: as('contributor') },
    });
    expect(linked.status).toBe(201);
    expect(linked.body.venue.venue).toBe('My own draft hall');
  });
});

describe('search is no oracle on protected content (17.3)', () => {
  it('matches withheld fields only for those who may read them', async () => {
    await createEvent(server, {
      title: 'Locked talk',
      description: 'zebraquux-event',
      password: 'pw-1',
      startDate: '2027-05-01 10:00',
      endDate: '2027-05-01 11:00',
    });
    await createVenue(server, { name: 'Locked venue', address: 'zebraquux-street 1', password: 'pw-2' });
    await createOrganizer(server, { name: 'Locked organizer', phone: 'zebraquux-555', password: 'pw-3' });
    const total = async (route: string, query: string, reader: 'anonymous' | 'administrator') =>
      (await call(server, 'GET', route, { query, headers: { authorization: as(reader) } })).headers.get('x-tec-total');
    for (const [route, password] of [
      ['/events', 'pw-1'],
      ['/venues', 'pw-2'],
      ['/organizers', 'pw-3'],
    ] as const) {
      const dates = route === '/events' ? '&start_date=2027-01-01&end_date=2027-12-31' : '';
      expect(await total(route, `search=zebraquux${dates}`, 'anonymous'), route).toBe('0');
      expect(await total(route, `search=zebraquux${dates}&password=${password}`, 'anonymous'), route).toBe('1');
      expect(await total(route, `search=zebraquux${dates}`, 'administrator'), route).toBe('1');
      // What is shown stays searchable: the name or title.
      expect(await total(route, `search=Locked${dates}`, 'anonymous'), route).toBe('1');
    }
  });
});

describe('races between two processes on one database (17.4)', () => {
  let dir: string;
  let database: TestDatabase;
  let instances: Instance[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-races-'));
    database = await freshDatabase(dir);
    instances = [await startInstance(database.url)];
    instances.push(await startInstance(database.url));
  }, 120_000);
  afterAll(async () => {
    for (const instance of instances) await stop(instance);
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes one venue of 20 identical concurrent creates, and answers each with it', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        rest(instances[n % 2]!, 'POST', '/venues', { venue: 'Race Hall', city: 'Lyon' }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    const list = await rest(instances[0]!, 'GET', '/venues?search=Race%20Hall');
    expect(list.body.total).toBe(1);
  });

  it('trashes an event once of 20 concurrent deletes; the others are told it is already in the trash', async () => {
    const created = await rest(instances[0]!, 'POST', '/events', {
      title: 'Race event',
      start_date: '2027-06-01 10:00:00',
      end_date: '2027-06-01 11:00:00',
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => rest(instances[n % 2]!, 'DELETE', `/events/${created.body.id}`)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status !== 200).every((status) => status === 410)).toBe(true);
  });
});
