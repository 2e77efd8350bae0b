/**
 * Backups of the embedded SQLite database, taken while the service serves and writes, and putting one back.
 * PostgreSQL has its own tools for both (pg_dump, pg_restore: docs/operations.md#backups).
 */
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Config } from '../config.js';
import { createDb, sqlitePath } from './client.js';
import { migrationNames } from './migrate.js';

export class BackupError extends Error {}

export interface BackupReport {
  file: string;
  bytes: number;
  migrations: number;
}

/**
 * A consistent copy of the database in `file`: `VACUUM INTO` reads it in one read transaction, so the copy is the
 * database as of one instant, every write committed before it and none after, while the server goes on writing
 * (WAL mode lets a reader and the writer work at once). SQLite's online backup API would start over whenever the
 * server wrote during the copy, which under a steady stream of writes could be forever. The copy is written beside
 * `file` under a temporary name and renamed once checked, so a file with the backup's name is always a whole one.
 */
export function backupSqlite(config: Config, file: string): BackupReport {
  const source = sqlitePath(config.databaseUrl);
  if (!existsSync(source)) throw new BackupError(`there is no database at ${source}`);
  if (existsSync(file)) throw new BackupError(`${file} exists; name a new file (a backup never overwrites one)`);
  const partial = join(dirname(file), `.${basename(file)}.partial`);
  rmSync(partial, { force: true });
  const database = new Database(source, { readonly: true, fileMustExist: true });
  try {
    database.prepare('VACUUM INTO ?').run(partial);
  } finally {
    database.close();
  }
  try {
    const migrations = checkedCopy(partial).length;
    renameSync(partial, file);
    return { file, bytes: statSync(file).size, migrations };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

export interface RestoreReport {
  target: string;
  /** This build's migrations the backup predates: the server applies them when it starts. */
  pendingMigrations: string[];
}

/**
 * Puts the backup in `file` back as the configured database, in one transaction of SQLite's backup API: an
 * interrupted restore leaves the database as it was. Refused while a server uses the database (it holds a lease
 * there), and for a file that is not a whole backup or was made by a newer build (migrations this one does not have).
 */
export async function restoreSqlite(config: Config, file: string): Promise<RestoreReport> {
  if (!existsSync(file)) throw new BackupError(`there is no backup at ${file}`);
  const applied = checkedCopy(file);
  const known = migrationNames('sqlite');
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length)
    throw new BackupError(
      `${file} was made by a newer build (migrations ${unknown.join(', ')}); restore it with that build`,
    );
  const target = sqlitePath(config.databaseUrl);
  await refuseWhileServed(config, target);
  const backup = new Database(file, { readonly: true, fileMustExist: true });
  try {
    await backup.backup(target);
  } finally {
    backup.close();
  }
  return { target, pendingMigrations: known.filter((name) => !applied.includes(name)) };
}

/** Checks a backup file (SQLite's quick_check, the migrations table) and gives the migrations it had applied. */
function checkedCopy(file: string): string[] {
  let database: Database.Database;
  try {
    database = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${file} cannot be opened as a database: ${(error as Error).message}`);
  }
  try {
    const check = database.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`${file} is damaged: ${String(check)}`);
    const hasMigrations = database
      .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`)
      .get();
    if (!hasMigrations) throw new BackupError(`${file} is not a backup of this service (no migrations table)`);
    const rows = database
      .prepare(
        'SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      )
      .all() as Array<{ name: string }>;
    return rows.map((row) => row.name);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${file} is not a SQLite database: ${(error as Error).message}`);
  } finally {
    database.close();
  }
}

/**
 * A running server renews its leases (webhook dispatch) every few seconds; a lease that has not expired means a
 * process serves this database, and replacing it underneath would mix two histories (its caches, its change cursors).
 */
async function refuseWhileServed(config: Config, target: string): Promise<void> {
  if (!existsSync(target)) return;
  const db = createDb(config);
  try {
    const held = await db.lease.findMany({ where: { expiresAt: { gt: new Date() } } }).catch((error: unknown) => {
      if ((error as { code?: string }).code === 'P2021') return []; // not migrated yet: no server used it
      throw error;
    });
    const until = held.map((lease) => lease.expiresAt.getTime()).sort((a, b) => b - a)[0];
    if (until !== undefined)
      throw new BackupError(
        `a server is using ${target} (its lease runs until ${new Date(until).toISOString()}); stop it first, then restore`,
      );
  } finally {
    await db.$disconnect();
  }
}
