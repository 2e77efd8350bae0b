import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { readMigrations } from '../src/db/schema-diff.js';
import { freshDatabase, runSql, TEST_ENGINE, type TestDatabase } from './support/database.js';
import { createEvent, createOrganizer, createVenue } from './support/factories.js';
import { restClient, type RestClient } from './support/rest.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// Events, venues and organizers share one ID space, as WordPress posts do (issue 14, point 9): kept by database
// triggers (the shared_post_ids migration), so every writer gets it; old databases are renumbered with a mapping.

const AS_ADMIN = { authorization: ADMIN_AUTHORIZATION };

describe('one ID space for events, venues and organizers', () => {
  let server: TestServer;
  let rest: RestClient;

  beforeAll(async () => {
    server = await startServer();
    rest = restClient(server);
  });
  afterAll(() => server?.close());

  it('numbers the three kinds from one sequence: no ID is used twice, each new one is above the last', async () => {
    const created = [];
    for (const make of [createVenue, createEvent, createOrganizer, createEvent, createVenue, createOrganizer])
      created.push((await make(server)).id as number);
    expect(new Set(created).size).toBe(created.length);
    expect([...created].sort((a, b) => a - b)).toEqual(created);
  });

  it('answers an event route given a venue or organizer ID with 400 rest-invalid-event-id, and an unused ID with 404', async () => {
    const venue = await createVenue(server);
    const organizer = await createOrganizer(server, { status: 'DRAFT' });
    for (const id of [venue.id, organizer.id]) {
      const read = await rest.get(`/events/${id}`);
      expect(read.status).toBe(400);
      expect(read.body).toEqual({
        code: 'rest-invalid-event-id',
        message: 'The specified ID is not a valid event.',
        data: { status: 400 },
      });
      expect((await rest.post(`/events/${id}`, { json: { title: 'x' }, headers: AS_ADMIN })).body.code).toBe(
        'rest-invalid-event-id',
      );
      expect((await rest.delete(`/events/${id}`, { headers: AS_ADMIN })).body.code).toBe('rest-invalid-event-id');
    }
    // The venue and organizer are untouched by the refused writes.
    expect((await rest.get(`/venues/${venue.id}`)).status).toBe(200);
    const unused = (await createEvent(server)).id + 1000;
    expect((await rest.get(`/events/${unused}`)).body.code).toBe('rest-event-not-found');
    expect((await rest.post(`/events/${unused}`, { json: { title: 'x' }, headers: AS_ADMIN })).status).toBe(404);
  });

  it('answers a venue or organizer route given an event ID as an unknown ID (400 rest_invalid_param)', async () => {
    const event = await createEvent(server);
    const venue = await createVenue(server);
    for (const route of [`/venues/${event.id}`, `/organizers/${event.id}`, `/organizers/${venue.id}`]) {
      const response = await rest.get(route);
      expect(response.status, route).toBe(400);
      expect(response.body.code).toBe('rest_invalid_param');
    }
  });

  it('tells in GraphQL which kind has an ID, and keeps global IDs and database IDs unique across the three', async () => {
    const [event, venue, organizer] = [
      await createEvent(server),
      await createVenue(server),
      await createOrganizer(server),
    ];
    const kinds = await server.gqlOk(
      `query ($e: Int!, $v: Int!, $o: Int!, $none: Int!) { e: recordKind(id: $e) v: recordKind(id: $v) o: recordKind(id: $o) none: recordKind(id: $none) big: recordKind(id: 2147483647) }`,
      { e: event.id, v: venue.id, o: organizer.id, none: organizer.id + 1000 },
    );
    expect(kinds).toEqual({ e: 'EVENT', v: 'VENUE', o: 'ORGANIZER', none: null, big: null });
    // A venue's ID given where an event is asked for names no event.
    expect(
      (await server.gqlOk(`query ($id: ID!) { event(id: $id) { id } }`, { id: String(venue.id) })).event,
    ).toBeNull();
    expect(new Set([event.globalId, venue.globalId, organizer.globalId]).size).toBe(3);
  });

  it('lets the database refuse an explicit ID another kind has, and move the numbering past a free one', async () => {
    const event = await createEvent(server);
    const insertVenue = (id: number, slug: string) =>
      runSql(
        server.databaseUrl,
        `INSERT INTO "Venue" ("id", "name", "slug", "publishedLocal", "publishedAt", "modifiedLocal", "modifiedAt")
        VALUES (${id}, '${slug}', '${slug}', '2026-01-01 10:00:00', '2026-01-01T10:00:00.000+00:00', '2026-01-01 10:00:00', '2026-01-01T10:00:00.000+00:00')`,
      );
    await expect(insertVenue(event.id, 'clash')).rejects.toThrow(/already used by another event, venue or organizer/);
    await expect(
      runSql(
        server.databaseUrl,
        `UPDATE "Organizer" SET "id" = ${event.id} WHERE "id" = ${(await createOrganizer(server)).id}`,
      ),
    ).rejects.toThrow(/already used by another event, venue or organizer/);
    const free = event.id + 500;
    await insertVenue(free, 'explicit');
    expect((await rest.get(`/venues/${free}`)).body.slug).toBe('explicit');
    expect((await createEvent(server)).id).toBeGreaterThan(free);
  });
});

describe(`migrating a ${TEST_ENGINE} database whose events, venues and organizers share IDs`, () => {
  let dir: string;
  let database: TestDatabase;
  let server: TestServer | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-shared-ids-'));
    database = await freshDatabase(dir);
  });
  afterAll(async () => {
    await server?.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (table: string, id: number, slug: string) =>
    `INSERT INTO "${table}" ("id", "name", "slug", "publishedLocal", "publishedAt", "modifiedLocal", "modifiedAt") VALUES (${id}, '${slug}', '${slug}',
      '2026-01-01 10:00:00', '2026-01-01T10:00:00.000+00:00', '2026-01-01 10:00:00', '2026-01-01T10:00:00.000+00:00')`;
  const event = (
    id: number,
    slug: string,
  ) => `INSERT INTO "Event" ("id", "title", "slug", "publishedLocal", "publishedAt", "modifiedLocal",
      "modifiedAt", "timezone", "startLocal", "endLocal", "startsAt", "endsAt") VALUES (${id}, '${slug}', '${slug}', '2026-01-01 10:00:00',
      '2026-01-01T10:00:00.000+00:00', '2026-01-01 10:00:00', '2026-01-01T10:00:00.000+00:00', 'UTC', '2030-02-01 10:00:00',
      '2030-02-01 12:00:00', '2030-02-01T10:00:00.000+00:00', '2030-02-01T12:00:00.000+00:00')`;

  it("keeps the events' IDs, renumbers the venues and organizers that shared one, with their links, and keeps old IDs readable", async () => {
    const config = loadConfig({ DATABASE_URL: database.url });
    const all = readMigrations(TEST_ENGINE);
    const before = all[all.findIndex((migration) => migration.name.endsWith('_shared_post_ids')) - 1]!;
    await migrate(config, { until: before.name });
    // Each table numbered on its own: events 1 and 2, venues 1 and 5, organizers 1, 5 and 7.
    for (const sql of [
      event(1, 'concert'),
      event(2, 'fair'),
      post('Venue', 1, 'hall'),
      post('Venue', 5, 'park'),
      post('Organizer', 1, 'ana'),
      post('Organizer', 5, 'bo'),
      post('Organizer', 7, 'cy'),
      `INSERT INTO "EventVenue" ("eventId", "venueId") VALUES (1, 1), (2, 5)`,
      `INSERT INTO "EventOrganizer" ("eventId", "organizerId", "position") VALUES (1, 5, 0), (1, 1, 1), (2, 7, 0)`,
      `INSERT INTO "ImportOrigin" ("source", "recordType", "remoteId", "localId", "contentHash") VALUES ('s', 'venue', 40, 1, 'h'), ('s', 'organizer', 41, 5, 'h'), ('s', 'event', 42, 1, 'h')`,
    ])
      await runSql(database.url, sql);

    await migrate(config);
    server = await startServer({ DATABASE_URL: database.url });
    const rest = restClient(server);

    // Events keep theirs; venue 1 (event 1 has it) and organizers 1 and 5 (event 1 and venue 5 have them) move above
    // the highest ID used (7), in order; the others keep theirs.
    const mapping = await server.gqlOk(`{ hall: venue(id: 1) { databaseId slug } park: venue(id: 5) { databaseId slug }
      ana: organizer(id: 1) { databaseId slug } bo: organizer(id: 5) { databaseId slug } cy: organizer(id: 7) { databaseId slug } }`);
    expect(mapping).toEqual({
      hall: { databaseId: 8, slug: 'hall' },
      park: { databaseId: 5, slug: 'park' },
      ana: { databaseId: 9, slug: 'ana' },
      bo: { databaseId: 10, slug: 'bo' },
      cy: { databaseId: 7, slug: 'cy' },
    });
    // Old IDs read through REST too; an event's ID still reads the event.
    expect((await rest.get('/venues/1')).body).toMatchObject({ id: 8, slug: 'hall' });
    expect((await rest.get('/organizers/5')).body).toMatchObject({ id: 10, slug: 'bo' });
    expect((await rest.get('/events/1')).body).toMatchObject({ id: 1, slug: 'concert' });
    expect((await rest.get('/venues/8')).body.slug).toBe('hall');

    // Links followed the venues and organizers, in their order.
    const concert = (await rest.get('/events/1')).body;
    expect(concert.venue.id).toBe(8);
    expect(concert.organizer.map((o: { id: number }) => o.id)).toEqual([10, 9]);
    expect((await rest.get('/events/2')).body).toMatchObject({ venue: { id: 5 }, organizer: [{ id: 7 }] });
    // Imported records' origins follow too (ImportOrigin has no foreign key), and the mapping is kept.
    const db = createDb(config);
    try {
      const origins = await db.importOrigin.findMany({
        select: { recordType: true, remoteId: true, localId: true },
        orderBy: { remoteId: 'asc' },
      });
      expect(origins).toEqual([
        { recordType: 'venue', remoteId: 40, localId: 8 },
        { recordType: 'organizer', remoteId: 41, localId: 10 },
        { recordType: 'event', remoteId: 42, localId: 1 },
      ]);
      const renumbered = await db.renumberedRecord.findMany({ orderBy: [{ recordType: 'desc' }, { oldId: 'asc' }] });
      expect(renumbered).toEqual([
        { recordType: 'venue', oldId: 1, newId: 8 },
        { recordType: 'organizer', oldId: 1, newId: 9 },
        { recordType: 'organizer', oldId: 5, newId: 10 },
      ]);
    } finally {
      await db.$disconnect();
    }

    // What is written next is numbered above every ID, in any of the three tables.
    const next = [(await createVenue(server)).id, (await createEvent(server)).id, (await createOrganizer(server)).id];
    expect(next).toEqual([11, 12, 13]);
  });
});
