import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Config, Engine } from '../config.js';
import type { Logger } from '../logging/logger.js';
import { refreshSqliteStatistics } from './planner-statistics.js';
import { type Db, postgresConnectionString, postgresSchema, rawTableName, sqlitePath } from './client.js';
import { DATA_STEPS, dataStepSetting, runDataSteps } from './data-steps.js';
import { readMigrations } from './schema-diff.js';

// Prisma's own bookkeeping table, so `prisma migrate deploy` and this runner agree on what has been applied.
const SQLITE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "checksum" TEXT NOT NULL,
  "finished_at" DATETIME,
  "migration_name" TEXT NOT NULL,
  "logs" TEXT,
  "rolled_back_at" DATETIME,
  "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
  "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

export interface MigrationReport {
  /** The SQL migrations applied. */
  applied: string[];
  /** The data steps run (src/db/data-steps.ts); recorded without running on a database with no events. */
  dataSteps: string[];
}

export interface MigrateOptions {
  /** Stop after this migration (an older schema version, e.g. to test upgrades); no data step runs then. */
  until?: string;
  /** Where the data steps say what they did. */
  logger?: Logger;
}

/** The data steps not recorded as done, from the names of the recorded ones. */
const pendingDataSteps = (recorded: string[]) =>
  DATA_STEPS.map((step) => step.name).filter((name) => !recorded.includes(dataStepSetting(name)));
const DATA_STEP_SETTINGS = `(${DATA_STEPS.map((step) => `'${dataStepSetting(step.name)}'`).join(', ')})`;
/** The Setting value of a data step recorded as done on a database without events. */
const nothingToDo = () => JSON.stringify({ finishedAt: new Date().toISOString(), examined: 0 });

function migrationsUntil(engine: Engine, until: string | undefined) {
  const all = readMigrations(engine);
  if (until === undefined) return all;
  const last = all.findIndex((migration) => migration.name === until);
  if (last < 0) throw new Error(`no ${engine} migration named ${until}`);
  return all.slice(0, last + 1);
}

/**
 * Creates the database when missing and applies every migration folder not applied yet, each in a transaction. Answers
 * them and the data steps left to run.
 */
function migrateSqlite(config: Config, options: MigrateOptions = {}): MigrationReport {
  const path = sqlitePath(config.databaseUrl);
  mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { timeout: 5000 });
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.exec(SQLITE_MIGRATIONS_TABLE);
    const done = new Set(
      sqlite
        .prepare(
          'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
        )
        .all()
        .map((row) => (row as { migration_name: string }).migration_name),
    );
    const applied: string[] = [];
    // Prisma redefines a table by copying it and dropping the original, which with foreign keys enforced would
    // cascade-delete every row referring to it. The pragma has no effect inside a transaction, hence here; the
    // references are checked before each migration commits instead.
    sqlite.pragma('foreign_keys = OFF');
    const recordedSince = sqlite.prepare(
      'SELECT 1 FROM _prisma_migrations WHERE migration_name = ? AND finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    for (const migration of migrationsUntil('sqlite', options.until)) {
      if (done.has(migration.name)) continue;
      const checksum = createHash('sha256').update(migration.sql).digest('hex');
      // Another process starting on the same file may have applied it since `done` was read: asked again under the
      // writer lock that `.immediate()` takes, so only one of them applies it.
      const appliedHere = sqlite
        .transaction(() => {
          if (recordedSince.get(migration.name)) return false;
          sqlite.exec(migration.sql);
          const broken = sqlite.pragma('foreign_key_check') as unknown[];
          if (broken.length)
            throw new Error(
              `${migration.name} leaves ${broken.length} broken references: ${JSON.stringify(broken.slice(0, 3))}`,
            );
          sqlite
            .prepare(
              `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count)
             VALUES (?, ?, current_timestamp, ?, 1)`,
            )
            .run(randomUUID(), checksum, migration.name);
          return true;
        })
        .immediate();
      if (appliedHere) applied.push(migration.name);
    }
    if (options.until !== undefined) return { applied, dataSteps: [] };
    refreshSqliteStatistics(sqlite);
    const recorded = sqlite
      .prepare(`SELECT "name" FROM "Setting" WHERE "name" IN ${DATA_STEP_SETTINGS}`)
      .all() as Array<{ name: string }>;
    const pending = pendingDataSteps(recorded.map((row) => row.name));
    if (pending.length && !sqlite.prepare('SELECT 1 FROM "Event" LIMIT 1').get()) {
      const record = sqlite.prepare('INSERT OR IGNORE INTO "Setting" ("name", "value") VALUES (?, ?)');
      for (const name of pending) record.run(dataStepSetting(name), nothingToDo());
      return { applied, dataSteps: [] };
    }
    return { applied, dataSteps: pending };
  } finally {
    sqlite.close();
  }
}

const POSTGRES_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** A lock key per schema, so processes starting together migrate one at a time and the others find it done. */
function advisoryLockKey(schema: string): number {
  return createHash('sha256').update(`calendar-migrations:${schema}`).digest().readInt32BE(0);
}

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Applies PostgreSQL migrations under an advisory lock, each in a transaction, into the URL's `?schema=`, then the
 * data steps left, still under the lock (processes starting together run them once).
 */
async function migratePostgres(config: Config, options: MigrateOptions = {}): Promise<MigrationReport> {
  const schema = postgresSchema(config.databaseUrl);
  const client = new pg.Client({ connectionString: postgresConnectionString(config.databaseUrl) });
  await client.connect();
  const lock = advisoryLockKey(schema);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [lock]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
    await client.query(`SET search_path TO ${quoteIdentifier(schema)}`);
    await client.query(POSTGRES_MIGRATIONS_TABLE);
    const { rows } = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const done = new Set(rows.map((row) => row.migration_name));
    const applied: string[] = [];
    for (const migration of migrationsUntil('postgres', options.until)) {
      if (done.has(migration.name)) continue;
      const checksum = createHash('sha256').update(migration.sql).digest('hex');
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), checksum, migration.name],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(migration.name);
    }
    if (options.until !== undefined) return { applied, dataSteps: [] };
    const recorded = await client.query<{ name: string }>(
      `SELECT "name" FROM "Setting" WHERE "name" IN ${DATA_STEP_SETTINGS}`,
    );
    const pending = pendingDataSteps(recorded.rows.map((row) => row.name));
    if (pending.length && !(await client.query('SELECT 1 FROM "Event" LIMIT 1')).rowCount) {
      for (const name of pending) {
        await client.query('INSERT INTO "Setting" ("name", "value") VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          dataStepSetting(name),
          nothingToDo(),
        ]);
      }
      return { applied, dataSteps: [] };
    }
    return { applied, dataSteps: await runDataSteps(config, pending, options.logger) };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [lock]).catch(() => undefined);
    await client.end();
  }
}

/** Brings the configured database up to date, data steps included; safe to run from several processes at once. */
export async function migrate(config: Config, options: MigrateOptions = {}): Promise<MigrationReport> {
  if (config.engine === 'postgres') return migratePostgres(config, options);
  const { applied, dataSteps } = migrateSqlite(config, options);
  return { applied, dataSteps: await runDataSteps(config, dataSteps, options.logger) };
}

/**
 * Which of `expected` (this build's migrations, by name) the database has not recorded as applied: none while it is
 * the schema this build migrated to; some when the database was replaced or restored from an older copy meanwhile.
 */
export async function unappliedMigrations(
  db: Db,
  config: Pick<Config, 'engine' | 'databaseUrl'>,
  expected: readonly string[],
): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<Array<{ migration_name: string }>>(
    `SELECT migration_name FROM ${rawTableName(config, '_prisma_migrations')} WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const applied = new Set(rows.map((row) => row.migration_name));
  return expected.filter((name) => !applied.has(name));
}

/** The names of this build's migrations for the engine. */
export const migrationNames = (engine: Engine): string[] => readMigrations(engine).map((migration) => migration.name);
