import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  currentChangePosition,
  pruneChanges,
  prunedThrough,
  readChangesAfter,
  type ChangePosition,
} from '../src/db/change-log.js';
import { createCategory, createEvent, createOrganizer, createTag, createVenue } from './support/factories.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/client.js';
import { querySql, runSql, sqlitePlan, TEST_ENGINE } from './support/database.js';
import { startServer, type TestServer } from './support/server.js';

// The change log is written by database triggers in the writing transaction; these tests read it as the change
// feed does (src/db/change-log.ts) after writes made through the public API.

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.close();
});

/** The entries recorded while `write` ran, as `type id action`. */
async function recorded(write: () => Promise<unknown>): Promise<string[]> {
  const before = await currentChangePosition(server.app.db);
  await write();
  const entries = await readChangesAfter(server.app.db, before, 1000);
  return entries.map((entry) => `${entry.recordType} ${entry.recordId} ${entry.action}`);
}

const deleteEvent = (id: number, force: boolean) =>
  server.gqlOk(`mutation ($id: ID!, $force: Boolean) { deleteEvent(id: $id, force: $force) { id } }`, {
    id: String(id),
    force,
  });

describe('the change log', () => {
  it('records creates, updates and deletes of venues, organizers, categories and tags', async () => {
    let ids: number[] = [];
    const created = await recorded(async () => {
      ids = [
        (await createVenue(server)).id,
        (await createOrganizer(server)).id,
        (await createCategory(server)).id,
        (await createTag(server)).id,
      ];
    });
    expect(created).toEqual([
      `venue ${ids[0]} created`,
      `organizer ${ids[1]} created`,
      `category ${ids[2]} created`,
      `tag ${ids[3]} created`,
    ]);
    const [venue, organizer, category, tag] = ids;
    const changed = await recorded(async () => {
      await server.gqlOk(`mutation ($id: ID!) { updateVenue(id: $id, input: { city: "Graz" }) { id } }`, {
        id: String(venue),
      });
      await server.gqlOk(`mutation ($id: ID!) { deleteOrganizer(id: $id, force: true) { id } }`, {
        id: String(organizer),
      });
      await server.gqlOk(`mutation ($id: ID!) { updateEventCategory(id: $id, input: { description: "d" }) { id } }`, {
        id: String(category),
      });
      await server.gqlOk(`mutation ($id: ID!) { deleteEventTag(id: $id) { id } }`, { id: String(tag) });
    });
    expect(changed).toEqual([
      `venue ${venue} updated`,
      `organizer ${organizer} deleted`,
      `category ${category} updated`,
      `tag ${tag} deleted`,
    ]);
  });

  it("records a change of an event's links as an update of the event, and no link change after the event is deleted", async () => {
    const venue = await createVenue(server);
    const event = await createEvent(server);
    const linked = await recorded(() =>
      server.gqlOk(
        `mutation ($id: ID!, $venue: ID!) { updateEvent(id: $id, input: { venues: [{ id: $venue }] }) { id } }`,
        {
          id: String(event.id),
          venue: String(venue.id),
        },
      ),
    );
    expect(new Set(linked)).toEqual(new Set([`event ${event.id} updated`]));
    const deleted = await recorded(() => deleteEvent(event.id, true));
    expect(deleted.at(-1)).toBe(`event ${event.id} deleted`);
    expect(deleted.filter((entry) => entry !== `event ${event.id} deleted` && entry.startsWith('event'))).toEqual([]);
  });

  it('records a link written by SQL that bypasses the service, as the triggers do for any client', async () => {
    const event = await createEvent(server);
    const organizer = await createOrganizer(server);
    const entries = await recorded(() =>
      runSql(
        server.databaseUrl,
        `INSERT INTO "EventOrganizer" ("eventId", "organizerId") VALUES (${event.id}, ${organizer.id})`,
      ),
    );
    expect(entries).toEqual([`event ${event.id} updated`]);
  });

  it('names the columns an update changed, the relation of a link change, and none for a create', async () => {
    const venue = await createVenue(server);
    const columnsOf = async (write: () => Promise<unknown>) => {
      const before = await currentChangePosition(server.app.db);
      await write();
      return (await readChangesAfter(server.app.db, before, 1000)).map((entry) => entry.columns);
    };
    let event = { id: 0 };
    expect(await columnsOf(async () => (event = await createEvent(server)))).toEqual([null]);
    const retitled = await columnsOf(() =>
      server.gqlOk(`mutation ($id: ID!) { updateEvent(id: $id, input: { title: "Renamed" }) { id } }`, {
        id: String(event.id),
      }),
    );
    expect(retitled).toHaveLength(1);
    expect(retitled[0]!.split(',')).toContain('title');
    expect(retitled[0]!.split(',')).not.toContain('startsAt');
    const linked = await columnsOf(() =>
      server.gqlOk(
        `mutation ($id: ID!, $venue: ID!) { updateEvent(id: $id, input: { venues: [{ id: $venue }] }) { id } }`,
        {
          id: String(event.id),
          venue: String(venue.id),
        },
      ),
    );
    expect(linked).toContain('venues');
    // Written by SQL that bypasses the service: exactly the columns whose values changed.
    const bySql = await columnsOf(() =>
      runSql(
        server.databaseUrl,
        `UPDATE "Event" SET "cost" = '12', "website" = 'https://a.example', "title" = 'Renamed' WHERE "id" = ${event.id}`,
      ),
    );
    expect(bySql.map((columns) => columns!.split(',').sort().join(','))).toEqual(['cost,website']);
  });

  it('has update triggers that compare every column of their table (a column added later must be added to them)', async () => {
    if (TEST_ENGINE === 'postgres') {
      // PostgreSQL compares the whole rows as JSON: a column added later is compared without changing the trigger.
      const [{ body }] = (await querySql(
        server.databaseUrl,
        `SELECT prosrc AS body FROM pg_proc WHERE proname = 'log_change'`,
      )) as [{ body: string }];
      expect(body).toMatch(/jsonb_each\(to_jsonb\(NEW\)\)/);
      return;
    }
    for (const table of ['Event', 'Venue', 'Organizer', 'Term']) {
      const [{ sql }] = (await querySql(
        server.databaseUrl,
        `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = '${table}_change_update'`,
      )) as [{ sql: string }];
      const columns = await querySql(server.databaseUrl, `PRAGMA table_info("${table}")`);
      expect(columns.length).toBeGreaterThan(5);
      for (const { name } of columns) expect(sql, `${table}.${name}`).toContain(`OLD."${name}" IS NOT NEW."${name}"`);
    }
  });

  it('orders entries by data version and sequence, each after the position read before its write', async () => {
    const before = await currentChangePosition(server.app.db);
    await Promise.all(Array.from({ length: 6 }, () => createOrganizer(server)));
    const entries = await readChangesAfter(server.app.db, before, 1000);
    expect(entries).toHaveLength(6);
    for (const entry of entries) expect(entry.version > before.version || entry.seq > before.seq).toBe(true);
    const sorted = [...entries].sort((a, b) =>
      a.version === b.version ? a.seq - b.seq : a.version < b.version ? -1 : 1,
    );
    expect(entries).toEqual(sorted);
    const after = await currentChangePosition(server.app.db);
    expect(await readChangesAfter(server.app.db, after, 10)).toEqual([]);
  });

  it('prunes entries older than a time and remembers the last position pruned', async () => {
    await createOrganizer(server);
    const everything: ChangePosition = await currentChangePosition(server.app.db);
    const pruned = await pruneChanges(server.app.db, new Date(Date.now() + 60_000));
    expect(pruned).toBeGreaterThan(0);
    expect(await readChangesAfter(server.app.db, { version: 0n, seq: 0 }, 10)).toEqual([]);
    const horizon = await prunedThrough(server.app.db);
    expect(horizon!.version <= everything.version && horizon!.seq <= everything.seq).toBe(true);
    expect(await pruneChanges(server.app.db, new Date(Date.now() + 60_000))).toBe(0);
  });
});

describe('reading the change log at scale', () => {
  // The webhook dispatcher and the feed read the log every second or so; a statement that scans it blocked the event
  // loop for 100–200 ms a second at a million entries (bench/results.md, History 9). Each read must go through an index.
  it('reads positions, pages and pruning bounds through indexes, not by scanning the log', async () => {
    const statements: Array<{ query: string; params: string }> = [];
    const db = createDb(loadConfig({ DATABASE_URL: server.databaseUrl }), { counter: { count: 0 } });
    db.$on('query' as never, (event: { query: string; params: string }) => void statements.push(event));
    try {
      const now = await currentChangePosition(db);
      await readChangesAfter(db, now, 500);
      await pruneChanges(db, new Date(0));
    } finally {
      await db.$disconnect();
    }
    const reads = statements.filter(
      ({ query }) => /\bFROM\b[^]*"?Change"?/.test(query) && !/^\s*(BEGIN|COMMIT)/i.test(query),
    );
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const { query } of reads) {
      // Prisma's aggregates wrap the table in a subquery (a scan), and an OR of the two position cases defeats the
      // (version, seq) index on SQLite.
      expect(query, query).not.toMatch(/\b(MAX|MIN)\(/);
      expect(query, query).not.toMatch(/\bOR\b/);
    }
    if (TEST_ENGINE === 'sqlite') {
      // The page read (ordered by position, from one) must be a range search on the (version, seq) index.
      const page = reads.find(({ query }) => /ORDER BY .*version.* ASC/.test(query))!;
      expect(await sqlitePlan(server.databaseUrl, page)).toMatch(
        /^SEARCH main\.Change USING (COVERING )?INDEX Change_version_seq_idx \(version>\?\)$/,
      );
    }
  });
});
