import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from '../scripts/soak/ledger.js';
import { createdId, createRecord, newFields, type LinkTargets } from '../scripts/soak/records.js';
import { errorLines, startService, type ServiceUnderTest } from '../scripts/soak/server.js';
import { runClient, Stats } from '../scripts/soak/workload.js';
import { postgresConnectionString, postgresSchema, sqlitePath } from '../src/db/client.js';
import { freshDatabase, TEST_ENGINE, type TestDatabase } from './support/database.js';

// The server, as deployed in a child process, is killed with SIGKILL while clients stream writes at it (creates,
// updates and deletes of every kind, several in flight). On the same database a new server then finds it intact and
// holding every write it acknowledged: each record is as its last acknowledged write left it, or as a write still
// unanswered at the kill would have.

const WRITERS = 6;
const KILL_AFTER_ACKNOWLEDGED = 60;
const PASSWORD = 'crash-recovery-admin-pw';

const dir = mkdtempSync(join(tmpdir(), 'calendar-crash-'));
let database: TestDatabase | undefined;
let service: ServiceUnderTest | undefined;

afterAll(async () => {
  await service?.child.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function linkTargets(admin: ServiceUnderTest['admin']): Promise<LinkTargets> {
  const targets: LinkTargets = { venues: [], organizers: [], categories: [], tags: [] };
  const kinds = [
    ['venue', 'venues'],
    ['organizer', 'organizers'],
    ['category', 'categories'],
    ['tag', 'tags'],
  ] as const;
  for (const [kind, list] of kinds) {
    for (let n = 0; n < 3; n++) {
      const reply = await createRecord(admin, kind, newFields(kind, `crash-link-${n}`, targets), 'rest');
      expect(reply.status).toBe(201);
      targets[list].push(createdId(reply));
    }
  }
  return targets;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Streams writes until enough are acknowledged, then kills the server mid-stream. */
async function writeThenKill(running: ServiceUnderTest, ledger: Ledger) {
  const links = await linkTargets(running.admin);
  const stats = new Stats();
  let killed = false;
  const writers = Array.from({ length: WRITERS }, (_, worker) =>
    runClient(
      { worker, reader: running.anonymous, writer: running.admin, ledger, links, stats, token: 'crash' },
      () => killed,
      0,
    ),
  );
  while (ledger.acknowledged < KILL_AFTER_ACKNOWLEDGED && stats.failureCount === 0) await sleep(20);
  const failuresBeforeKill = [...stats.failures];
  const serverErrors = errorLines(running.child);
  const inFlightAtKill = ledger.inFlight;
  killed = true;
  await running.child.kill();
  await Promise.all(writers);
  return { failuresBeforeKill, serverErrors, inFlightAtKill, links };
}

/** SQLite: the file passes SQLite's own checks, opened directly after the kill (which also replays the WAL). */
function checkSqliteFile(url: string): void {
  const sqlite = new Database(sqlitePath(url));
  try {
    expect(sqlite.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    expect(sqlite.pragma('foreign_key_check')).toEqual([]);
    expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
  } finally {
    sqlite.close();
  }
}

const ORPHANED_LINKS = `
  SELECT (SELECT count(*) FROM "EventVenue" l WHERE NOT EXISTS (SELECT 1 FROM "Event" e WHERE e.id = l."eventId")
                                               OR NOT EXISTS (SELECT 1 FROM "Venue" v WHERE v.id = l."venueId"))
       + (SELECT count(*) FROM "EventOrganizer" l WHERE NOT EXISTS (SELECT 1 FROM "Event" e WHERE e.id = l."eventId")
                                                   OR NOT EXISTS (SELECT 1 FROM "Organizer" o WHERE o.id = l."organizerId"))
       + (SELECT count(*) FROM "EventTerm" l WHERE NOT EXISTS (SELECT 1 FROM "Event" e WHERE e.id = l."eventId")
                                              OR NOT EXISTS (SELECT 1 FROM "Term" t WHERE t.id = l."termId")) AS orphans`;

/** PostgreSQL: every table reads in full and no link points at a missing record. */
async function checkPostgresSchema(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresConnectionString(url) });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${postgresSchema(url)}"`);
    for (const table of ['Event', 'Venue', 'Organizer', 'Term', 'EventVenue', 'EventOrganizer', 'EventTerm']) {
      await client.query(`SELECT * FROM "${table}"`);
    }
    expect(Number((await client.query(ORPHANED_LINKS)).rows[0].orphans)).toBe(0);
  } finally {
    await client.end();
  }
}

describe(`a server killed with SIGKILL in the middle of writes (${TEST_ENGINE})`, () => {
  it('restarts on an intact database holding every acknowledged write with its values', async () => {
    database = await freshDatabase(dir);
    const ledger = new Ledger();
    service = await startService(database.url, PASSWORD);
    const { failuresBeforeKill, serverErrors, inFlightAtKill, links } = await writeThenKill(service, ledger);
    expect(failuresBeforeKill, serverErrors.join('\n')).toEqual([]);
    expect(inFlightAtKill).toBeGreaterThan(0);

    if (TEST_ENGINE === 'sqlite') checkSqliteFile(database.url);
    else await checkPostgresSchema(database.url);

    service = await startService(database.url, PASSWORD);
    const { checked, mismatches } = await ledger.verify(service.admin);
    expect(checked).toBeGreaterThan(0);
    expect(mismatches).toEqual([]);
    const after = await createRecord(service.admin, 'event', newFields('event', 'after-restart', links), 'rest');
    expect(after.status).toBe(201);
  }, 180_000);
});
