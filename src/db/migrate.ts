import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Config } from '../config.js';
import { sqlitePath } from './client.js';
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
  applied: string[];
}

/** Creates the database when missing and applies every migration folder not applied yet, each in a transaction. */
export function migrateSqlite(config: Config): MigrationReport {
  const path = sqlitePath(config.databaseUrl);
  mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { timeout: 5000 });
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.exec(SQLITE_MIGRATIONS_TABLE);
    const done = new Set(
      sqlite
        .prepare('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL')
        .all()
        .map((row) => (row as { migration_name: string }).migration_name),
    );
    const applied: string[] = [];
    for (const migration of readMigrations('sqlite')) {
      if (done.has(migration.name)) continue;
      const checksum = createHash('sha256').update(migration.sql).digest('hex');
      sqlite.transaction(() => {
        sqlite.exec(migration.sql);
        sqlite
          .prepare(
            `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count)
             VALUES (?, ?, current_timestamp, ?, 1)`,
          )
          .run(randomUUID(), checksum, migration.name);
      }).immediate();
      applied.push(migration.name);
    }
    return { applied };
  } finally {
    sqlite.close();
  }
}

export function migrate(config: Config): MigrationReport {
  if (config.engine === 'sqlite') return migrateSqlite(config);
  throw new Error(`engine ${config.engine} is not supported yet`);
}
