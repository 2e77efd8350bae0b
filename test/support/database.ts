import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';

/** Which engine this test run uses: TEST_ENGINE, set per vitest project (see vitest.config.ts). */
export const TEST_ENGINE = (process.env.TEST_ENGINE ?? 'sqlite') as 'sqlite' | 'postgres';

/** The PostgreSQL server tests create their schemas on (local: trust auth, database `test`). */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database for one test server: a SQLite file in `dir`, or a new PostgreSQL schema dropped afterwards. */
export async function freshDatabase(dir: string): Promise<TestDatabase> {
  if (TEST_ENGINE === 'sqlite') return { url: `file:${join(dir, 'calendar.db')}`, drop: async () => {} };
  const schema = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set('schema', schema);
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Runs one SQL statement on a test server's database, for tests that must set up what no API writes. */
export async function runSql(databaseUrl: string, sql: string): Promise<void> {
  if (TEST_ENGINE === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(databaseUrl.replace(/^file:/, ''));
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  await querySql(databaseUrl, sql);
}

/** Runs one SQL statement on a test server's database and answers its rows (none for a statement that returns none). */
export async function querySql(databaseUrl: string, sql: string): Promise<Record<string, unknown>[]> {
  if (TEST_ENGINE === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(databaseUrl.replace(/^file:/, ''));
    try {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all() as Record<string, unknown>[];
      statement.run();
      return [];
    } finally {
      db.close();
    }
  }
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema')!;
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** SQLite's plan for a statement Prisma logged (its `query` event), its steps joined by ` | `. */
export async function sqlitePlan(databaseUrl: string, statement: { query: string; params: string }): Promise<string> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(databaseUrl.replace(/^file:/, ''), { readonly: true });
  try {
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${statement.query}`)
      .all(
        ...(JSON.parse(statement.params) as unknown[]).map((value) =>
          typeof value === 'boolean' ? Number(value) : value,
        ),
      ) as Array<{ detail: string }>;
    return plan.map((step) => step.detail).join(' | ');
  } finally {
    db.close();
  }
}
