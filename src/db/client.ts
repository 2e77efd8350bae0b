import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import type { Config } from '../config.js';
import { PrismaClient } from './generated/prisma/client.js';
import { PrismaClient as PostgresPrismaClient } from './generated/prisma-postgres/client.js';
import { reportingCommittedWrites } from './committed-writes.js';
import { serializedSqlite } from './sqlite-adapter.js';
import { observingStatements, type StatementTimer } from './timed-statements.js';
import { tracingOn } from '../tracing/tracing.js';

/**
 * The application sees one client type. PostgreSQL uses a client generated from the derived schema
 * (prisma/postgres/schema.prisma): same models, same API, SQL of its own dialect.
 */
export type Db = PrismaClient;
/** The client inside `db.$transaction(async (tx) => …)`. */
export type DbTransaction = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/** `file:./data/calendar.db` → an absolute path, relative paths read from the working directory. */
export function sqlitePath(databaseUrl: string): string {
  return resolve(databaseUrl.replace(/^file:/, '').replace(/\?.*$/, ''));
}

/** The PostgreSQL schema named by `?schema=` in DATABASE_URL (Prisma's convention), else `public`. */
export function postgresSchema(databaseUrl: string): string {
  return new URL(databaseUrl).searchParams.get('schema') ?? 'public';
}

/**
 * A table as a raw statement must name it: Prisma puts its own statements in the schema of DATABASE_URL on
 * PostgreSQL, but not raw ones.
 */
export function rawTableName(config: Pick<Config, 'engine' | 'databaseUrl'>, table: string): string {
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  return config.engine === 'postgres' ? `${quote(postgresSchema(config.databaseUrl))}.${quote(table)}` : quote(table);
}

/** DATABASE_URL without Prisma's own query parameters, as the pg driver wants it. */
export function postgresConnectionString(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.delete('schema');
  return url.toString();
}

/** Counts the SQL statements Prisma sends, so tests and benchmarks can check the cost of an operation. */
export interface QueryCounter {
  count: number;
  /** Shown each statement as it is sent, while set (tests read the plans of what a request sends). */
  seen?: (statement: { query: string; params: string }) => void;
}

function logOptions(counter?: QueryCounter) {
  return counter ? [{ emit: 'event' as const, level: 'query' as const }] : [];
}

/**
 * SQLite's page cache of a helper connection, in KiB: better-sqlite3's build keeps up to 16 MB per connection, which a
 * large database fills (a scan of an index). The process's helper connections (series upkeep, webhooks and purges)
 * read little twice.
 */
export const HELPER_CONNECTION_CACHE_KIB = 2048;

/**
 * The requests' connection's page cache, in KiB. The operating system keeps the file's pages in memory as well, so a
 * page SQLite no longer holds costs a read call, not a disk read: at 100,000 events, 4 MB instead of 16 answered the
 * uncached lists as fast and took 11 MB off the peak RSS (bench/results.md, History 17). A list's scans of a table
 * larger than either do not stay in the cache anyway.
 */
export const REQUESTS_CONNECTION_CACHE_KIB = 4096;

export interface DbOptions {
  counter?: QueryCounter;
  /** Called once each write of this client is committed (PostgreSQL; src/db/committed-writes.ts). */
  writeCommitted?: () => void;
  /** SQLite: this connection's page cache in KiB (the constants above), else better-sqlite3's default. */
  sqliteCacheKiB?: number;
  /** Told each statement's duration (the metrics); nothing is timed without it (statements are traced when tracing is on). */
  statementTimer?: StatementTimer;
}

/** The PostgreSQL connection pool of each client made by createDb, for the metrics (its use). */
const pools = new WeakMap<Db, pg.Pool>();

/** The connections of `db`'s pool: open, idle, and requests waiting for one (PostgreSQL; undefined on SQLite). */
export function poolUse(db: Db): { total: number; idle: number; waiting: number } | undefined {
  const pool = pools.get(db);
  return pool && { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/**
 * How long a statement waits for SQLite's writer, held by another connection or process, before it fails (Prisma
 * P1008, SQLITE_BUSY). No writer of this service holds it nearly as long (series are written in short steps).
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/** Whether `error` is a database that stayed busy past its wait: SQLite's writer held elsewhere (P1008, SQLITE_BUSY). */
export function isDatabaseBusy(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'P1008' || code === 'SQLITE_BUSY' || /SQLITE_BUSY|database is locked/i.test(String(message ?? ''));
}

export function createDb(config: Config, options: DbOptions = {}): Db {
  const { counter, writeCommitted, sqliteCacheKiB, statementTimer } = options;
  const observed = (factory: SqlDriverAdapterFactory) =>
    statementTimer || tracingOn() ? observingStatements(factory, statementTimer) : factory;
  let db: Db;
  if (config.engine === 'sqlite') {
    const path = sqlitePath(config.databaseUrl);
    mkdirSync(dirname(path), { recursive: true });
    const driver = new PrismaBetterSqlite3({ url: `file:${path}`, timeout: SQLITE_BUSY_TIMEOUT_MS });
    const adapter = observed(serializedSqlite(driver, sqliteCacheKiB));
    db = new PrismaClient({ adapter, log: logOptions(counter) });
  } else {
    const schema = postgresSchema(config.databaseUrl);
    // The pool is made here rather than by the adapter so that the metrics can read its use.
    const pool = new pg.Pool({
      connectionString: postgresConnectionString(config.databaseUrl),
      max: config.databasePoolSize,
    });
    const pgAdapter = new PrismaPg(pool, { schema, disposeExternalPool: true });
    const adapter = observed(writeCommitted ? reportingCommittedWrites(pgAdapter, writeCommitted) : pgAdapter);
    db = new PostgresPrismaClient({ adapter, log: logOptions(counter) }) as unknown as Db;
    pools.set(db, pool);
  }
  if (counter)
    db.$on('query' as never, (statement: { query: string; params: string }) => {
      counter.count++;
      counter.seen?.(statement);
    });
  return db;
}
