import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { Config } from '../config.js';
import { PrismaClient } from './generated/prisma/client.js';

export type Db = PrismaClient;
/** The client inside `db.$transaction(async (tx) => …)`. */
export type DbTransaction = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/** `file:./data/calendar.db` → an absolute path, relative paths read from the working directory. */
export function sqlitePath(databaseUrl: string): string {
  return resolve(databaseUrl.replace(/^file:/, '').replace(/\?.*$/, ''));
}

/** Counts the SQL statements Prisma sends, so tests and benchmarks can check the cost of an operation. */
export interface QueryCounter {
  count: number;
}

export function createDb(config: Config, counter?: QueryCounter): Db {
  if (config.engine !== 'sqlite') throw new Error(`engine ${config.engine} is not supported yet`);
  const path = sqlitePath(config.databaseUrl);
  mkdirSync(dirname(path), { recursive: true });
  const adapter = new PrismaBetterSqlite3({ url: `file:${path}`, timeout: 5000 });
  const db = new PrismaClient({ adapter, log: counter ? [{ emit: 'event', level: 'query' }] : [] });
  if (counter) db.$on('query' as never, () => void counter.count++);
  return db;
}
