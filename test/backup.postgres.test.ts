import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPILED_CLI } from '../bench/processes.js';
import { postgresConnectionString, postgresSchema } from '../src/db/client.js';
import { freshDatabase, TEST_POSTGRES_URL, type TestDatabase } from './support/database.js';
import { type Instance, rest, runCommand, startInstance, stop } from './support/processes.js';

// On PostgreSQL, `cli backup` points at PostgreSQL's own tools, and the recipe docs/operations.md#backups gives
// (pg_dump of the service's schema while it serves, pg_restore into a new database) brings back every record.

const dir = mkdtempSync(join(tmpdir(), 'calendar-pg-backup-'));
const restoredDatabase = `restore_${process.pid}`;
let database: TestDatabase | undefined;
let server: Instance | undefined;

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  if (server) await stop(server);
  await database?.drop();
  await onServer(`DROP DATABASE IF EXISTS "${restoredDatabase}"`);
  rmSync(dir, { recursive: true, force: true });
});

describe('backups on PostgreSQL', () => {
  it('cli backup names the tools; pg_dump while serving and pg_restore into a new database keep every record', async () => {
    database = await freshDatabase(dir);
    const refused = await runCommand(process.execPath, [COMPILED_CLI, 'backup', join(dir, 'x.db')], {
      DATABASE_URL: database.url,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      'Error: PostgreSQL is backed up with its own tools: pg_dump --format=custom, and pg_restore to bring it back (docs/operations.md#backups)',
    );

    server = await startInstance(database.url);
    const ids: number[] = [];
    for (let n = 0; n < 5; n++) {
      const reply = await rest(server, 'POST', '/events', {
        title: `Dumped ${n}`,
        start_date: '2027-05-02 10:00:00',
        end_date: '2027-05-02 11:00:00',
        venue: { venue: `Dump hall ${n}` },
      });
      expect(reply.status).toBe(201);
      ids.push(reply.body.id);
    }
    const dump = join(dir, 'calendar.dump');
    const schema = postgresSchema(database.url);
    const connection = postgresConnectionString(database.url);
    const dumped = await runCommand(
      'pg_dump',
      ['--format=custom', `--schema=${schema}`, `--file=${dump}`, connection],
      {},
    );
    expect(dumped.stderr).toBe('');
    expect(dumped.code).toBe(0);
    expect(await stop(server)).toBe(0);
    server = undefined;

    await onServer(`CREATE DATABASE "${restoredDatabase}"`);
    const target = new URL(connection);
    target.pathname = `/${restoredDatabase}`;
    const restored = await runCommand('pg_restore', ['--no-owner', `--dbname=${target}`, dump], {});
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);

    target.searchParams.set('schema', schema);
    server = await startInstance(target.toString());
    for (const [n, id] of ids.entries()) {
      const reply = await rest(server, 'GET', `/events/${id}`);
      expect(reply.status).toBe(200);
      expect(reply.body.title).toBe(`Dumped ${n}`);
      expect(reply.body.venue.venue).toBe(`Dump hall ${n}`);
    }
    expect((await rest(server, 'GET', '/events?start_date=2027-05-01&end_date=2027-05-31')).body.total).toBe(5);
  }, 120_000);
});
