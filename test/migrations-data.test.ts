import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { postgresConnectionString, postgresSchema, sqlitePath } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { readMigrations } from '../src/db/schema-diff.js';
import { COMPILED_CLI } from '../bench/processes.js';
import { freshDatabase, TEST_ENGINE, type TestDatabase } from './support/database.js';
import { runCommand } from './support/processes.js';

/**
 * Upgrading keeps the data: a database holding records under the first migration is brought up to date by the
 * service's migration runner, and every row and link is still there, derived columns filled in.
 */
const SEED_ROWS = [
  `INSERT INTO "Term" ("id", "taxonomy", "name", "slug") VALUES (1, 'category', 'Music', 'music'), (2, 'tag', 'Jazz', 'jazz')`,
  ...[
    [1, 'published', 'publish'],
    [2, 'draft', 'draft'],
  ].map(
    ([id, slug, status]) => `INSERT INTO "Event" ("id", "title", "slug", "status", "publishedLocal", "publishedAt",
      "modifiedLocal", "modifiedAt", "timezone", "startLocal", "endLocal", "startsAt", "endsAt")
      VALUES (${id}, '${slug}', '${slug}', '${status}', '2026-01-01 10:00:00', '2026-01-01T10:00:00.000+00:00',
      '2026-01-01 10:00:00', '2026-01-01T10:00:00.000+00:00', 'UTC', '2026-02-01 10:00:00', '2026-02-01 12:00:00',
      '2026-02-01T10:00:00.000+00:00', '2026-02-01T12:00:00.000+00:00')`,
  ),
  `INSERT INTO "EventTerm" ("eventId", "termId") VALUES (1, 1), (1, 2), (2, 1)`,
];

async function runSql(url: string, statements: string[]): Promise<Record<string, unknown>[][]> {
  if (TEST_ENGINE === 'sqlite') {
    const db = new Database(sqlitePath(url));
    try {
      return statements.map((sql) =>
        /^\s*SELECT/i.test(sql) ? (db.prepare(sql).all() as Record<string, unknown>[]) : (db.exec(sql), []),
      );
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: postgresConnectionString(url) });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${postgresSchema(url)}"`);
    const results = [];
    for (const sql of statements) results.push((await client.query(sql)).rows);
    return results;
  } finally {
    await client.end();
  }
}

/** A fresh database for the tests of the describe block it is called in, dropped after them. */
function freshDatabaseForBlock(): { readonly current: TestDatabase } {
  let dir: string;
  const holder = {} as { current: TestDatabase };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-migrations-'));
    holder.current = await freshDatabase(dir);
  });
  afterAll(async () => {
    await holder.current.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return holder;
}

describe(`migrating a ${TEST_ENGINE} database that holds data`, () => {
  const fresh = freshDatabaseForBlock();

  it('keeps every record and link and counts the published events per term', async () => {
    const config = loadConfig({ DATABASE_URL: fresh.current.url });
    const [first, ...later] = readMigrations(TEST_ENGINE);
    await migrate(config, { until: first!.name });
    await runSql(fresh.current.url, SEED_ROWS);

    const report = await migrate(config);
    expect(report.applied).toEqual(later.map((migration) => migration.name));

    const [events, links, terms] = await runSql(fresh.current.url, [
      'SELECT "id", "slug" FROM "Event" ORDER BY 1',
      'SELECT "eventId", "termId" FROM "EventTerm" ORDER BY 1, 2',
      'SELECT "id", "slug", "eventCount" FROM "Term" ORDER BY 1',
    ]);
    expect(events).toEqual([
      { id: 1, slug: 'published' },
      { id: 2, slug: 'draft' },
    ]);
    expect(links).toEqual([
      { eventId: 1, termId: 1 },
      { eventId: 1, termId: 2 },
      { eventId: 2, termId: 1 },
    ]);
    expect(terms).toEqual([
      { id: 1, slug: 'music', eventCount: 1 },
      { id: 2, slug: 'jazz', eventCount: 1 },
    ]);
  });
});

describe(`migrating a ${TEST_ENGINE} database that holds a series to series_master_flag`, () => {
  const fresh = freshDatabaseForBlock();

  it('flags the series masters and logs no change for it', async () => {
    const config = loadConfig({ DATABASE_URL: fresh.current.url });
    const migrations = readMigrations(TEST_ENGINE).map((migration) => migration.name);
    const flag = migrations.findIndex((name) => name.endsWith('_series_master_flag'));
    await migrate(config, { until: migrations[flag - 1] });
    const event = (
      id: number,
      recurrence: string,
      series: number | null,
    ) => `INSERT INTO "Event" ("id", "title", "slug",
      "publishedLocal", "publishedAt", "modifiedLocal", "modifiedAt", "timezone", "startLocal", "endLocal", "startsAt", "endsAt",
      "recurrence", "recurringEventId") VALUES (${id}, 'Yoga', 'yoga-${id}', '2026-01-01 10:00:00', '2026-01-01T10:00:00.000+00:00',
      '2026-01-01 10:00:00', '2026-01-01T10:00:00.000+00:00', 'UTC', '2026-02-01 10:00:00', '2026-02-01 11:00:00',
      '2026-02-01T10:00:00.000+00:00', '2026-02-01T11:00:00.000+00:00', '${recurrence}', ${series})`;
    const [, , , [before]] = await runSql(fresh.current.url, [
      event(1, 'RRULE:FREQ=DAILY;COUNT=2', null),
      event(2, '', 1),
      event(3, '', null),
      'SELECT count(*) AS "changes" FROM "Change"',
    ]);

    const report = await migrate(config);
    expect(report.applied).toEqual(migrations.slice(flag));

    const [events, [after]] = await runSql(fresh.current.url, [
      'SELECT "id", "isSeriesMaster" FROM "Event" ORDER BY 1',
      'SELECT count(*) AS "changes" FROM "Change"',
    ]);
    expect(events!.map((row) => [row.id, Boolean(row.isSeriesMaster)])).toEqual([
      [1, true],
      [2, false],
      [3, false],
    ]);
    expect(Number(after!.changes)).toBe(Number(before!.changes));
  });
});

describe(`migrating a ${TEST_ENGINE} database with webhook deliveries to webhook_delivery_queues`, () => {
  const fresh = freshDatabaseForBlock();

  it('leaves the earliest pending delivery of each record pending and makes the later ones wait behind it', async () => {
    const config = loadConfig({ DATABASE_URL: fresh.current.url });
    const migrations = readMigrations(TEST_ENGINE).map((migration) => migration.name);
    const queues = migrations.findIndex((name) => name.endsWith('_webhook_delivery_queues'));
    await migrate(config, { until: migrations[queues - 1] });
    const delivery = (
      id: string,
      webhookId: number,
      seq: number,
      recordId: number,
      status: string,
    ) => `INSERT INTO "WebhookDelivery" ("id", "webhookId",
      "changeVersion", "changeSeq", "recordType", "recordId", "action", "changedAt", "status", "nextAttemptAt")
      VALUES ('${id}', ${webhookId}, 7, ${seq}, 'event', ${recordId}, 'updated', '2026-01-01T10:00:00.000+00:00', '${status}', '2026-01-01T10:00:00.000+00:00')`;
    await runSql(fresh.current.url, [
      `INSERT INTO "Webhook" ("id", "url", "types", "secret", "fromVersion", "fromSeq") VALUES (1, 'https://a.example/', 'event', 'a-secret-of-sixteen', 0, 0), (2, 'https://b.example/', 'event', 'b-secret-of-sixteen', 0, 0)`,
      delivery('a1', 1, 1, 10, 'delivered'),
      delivery('a2', 1, 2, 10, 'pending'),
      delivery('a3', 1, 3, 10, 'pending'),
      delivery('a4', 1, 4, 11, 'pending'),
      delivery('a5', 1, 5, 10, 'pending'),
      delivery('b1', 2, 2, 10, 'pending'),
    ]);

    await migrate(config);

    const [rows] = await runSql(fresh.current.url, ['SELECT "id", "status" FROM "WebhookDelivery" ORDER BY 1']);
    expect(rows).toEqual([
      { id: 'a1', status: 'delivered' },
      { id: 'a2', status: 'pending' },
      { id: 'a3', status: 'waiting' },
      { id: 'a4', status: 'pending' },
      { id: 'a5', status: 'waiting' },
      { id: 'b1', status: 'pending' },
    ]);
  });
});

describe(`several processes starting together on one fresh ${TEST_ENGINE} database`, () => {
  const fresh = freshDatabaseForBlock();
  const migrateFrom = () =>
    runCommand(process.execPath, [COMPILED_CLI, 'migrate'], {
      DATABASE_URL: fresh.current.url,
      CALENDAR_ADMIN_PASSWORD: '',
    });

  // Seen in CI: two servers started together on a new SQLite file, and one died on "duplicate column name".
  it('migrate it once between them, and each of them exits 0', async () => {
    // On SQLite the processes are lined up behind a writer held for a while, so that each of them has read what is
    // applied before any of them can apply the first migration: the moment the race needs, every time.
    const holder = TEST_ENGINE === 'sqlite' ? holdSqliteWriter(fresh.current.url) : undefined;
    const running = Array.from({ length: 3 }, migrateFrom);
    if (holder) setTimeout(holder.release, 3000);
    const runs = await Promise.all(running);
    expect(runs.map((run) => [run.code, run.stderr])).toEqual(runs.map(() => [0, '']));
    const [rows] = await runSql(fresh.current.url, [
      'SELECT "migration_name", count(*) AS "times" FROM "_prisma_migrations" GROUP BY 1 ORDER BY 1',
    ]);
    expect(rows!.map((row) => [row.migration_name, Number(row.times)])).toEqual(
      readMigrations(TEST_ENGINE).map((migration) => [migration.name, 1]),
    );
  }, 60_000);
});

/** Opens the SQLite file as the migration runner leaves it before its first migration, and holds its writer lock. */
function holdSqliteWriter(url: string) {
  const db = new Database(sqlitePath(url));
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
    "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`);
  db.exec('BEGIN IMMEDIATE');
  return {
    release() {
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
