import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../bench/datasets.js';
import { copyToPostgres, dropPostgresCopy } from '../bench/postgres.js';
import { firstDifference, REST } from '../bench/scenarios.js';
import { loadConfig } from '../src/config.js';
import { createApp, type App } from '../src/server.js';
import { querySql, TEST_POSTGRES_URL } from './support/database.js';

// The benchmark's PostgreSQL engine (bench/postgres.ts) measures the same data as SQLite: its copy of the demo data
// answers the same bytes, recorded no change of its own, and hands out IDs after the copied ones.

const SITE_URL = 'http://calendar.bench';
const SCHEMA = `bench_copy_${process.pid}`;
let dir: string;
let seedPath: string;
let copyUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-bench-pg-'));
  seedPath = seedDatabase(join(dir, 'seed.db')).path;
  copyUrl = (await copyToPostgres(seedPath, SCHEMA, TEST_POSTGRES_URL)).url;
}, 120_000);

afterAll(async () => {
  await dropPostgresCopy(SCHEMA, TEST_POSTGRES_URL);
  rmSync(dir, { recursive: true, force: true });
});

const appOn = (databaseUrl: string) =>
  createApp(loadConfig({ DATABASE_URL: databaseUrl, SITE_URL, PORT: '0', LOG_LEVEL: 'warn', RESPONSE_CACHE_MB: '0' }));

async function body(app: App, path: string) {
  const response = await app.fetch(new Request(`http://127.0.0.1${path}`));
  expect(response.status, path).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

describe('benchmark PostgreSQL copy', () => {
  it('answers the lists, an event and a venue with the bytes SQLite answers', async () => {
    const [sqlite, postgres] = await Promise.all([appOn(`file:${seedPath}`), appOn(copyUrl)]);
    try {
      const list = JSON.parse((await body(sqlite, `${REST}/events?per_page=50`)).toString());
      const event = list.events.find((candidate: { venue?: unknown }) => candidate.venue);
      const paths = [
        `${REST}/events`,
        `${REST}/events?per_page=50&page=2`,
        `${REST}/events?categories=${event.categories[0]?.slug ?? ''}`,
        `${REST}/events/${event.id}`,
        `${REST}/venues`,
        `${REST}/organizers`,
        `${REST}/categories`,
      ];
      for (const path of paths)
        expect(firstDifference(await body(postgres, path), await body(sqlite, path)), path).toBeNull();
    } finally {
      await Promise.all([sqlite.close(), postgres.close()]);
    }
  });

  it('records no change of its own and continues the ID sequences after the copied IDs', async () => {
    const source = new Database(seedPath, { readonly: true });
    const sqliteCount = (sql: string) => Number(source.prepare(sql).pluck().get());
    const one = async (sql: string) => Number(Object.values((await querySql(copyUrl, sql))[0]!)[0]);
    const table = (name: string) => `"${SCHEMA}"."${name}"`;
    try {
      expect(await one(`SELECT count(*) FROM ${table('Change')}`)).toBe(sqliteCount('SELECT count(*) FROM "Change"'));
      expect(await one(`SELECT "version" FROM ${table('DataVersion')}`)).toBe(
        sqliteCount('SELECT "version" FROM "DataVersion"'),
      );
      const highestPost = sqliteCount(
        'SELECT max(id) FROM (SELECT id FROM Event UNION ALL SELECT id FROM Venue UNION ALL SELECT id FROM Organizer)',
      );
      expect(await one(`SELECT nextval('${table('Post_id_seq')}')`)).toBe(highestPost + 1);
      expect(await one(`SELECT nextval('${table('Term_id_seq')}')`)).toBe(sqliteCount('SELECT max(id) FROM Term') + 1);
    } finally {
      source.close();
    }
  });
});
