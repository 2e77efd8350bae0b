import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPILED_CLI } from '../bench/processes.js';
import { sqlitePath } from '../src/db/client.js';
import { freshDatabase } from './support/database.js';
import { type Instance, rest, runCommand, startInstance, stop } from './support/processes.js';

// `cli backup` copies the SQLite database while the server serves a stream of writes, and `cli restore` puts the copy
// back (issue 30, point 4): the restored database holds every write acknowledged before the backup began, and none
// acknowledged after it ended (so the restore really replaced the database).

const WRITERS = 3;
const dir = mkdtempSync(join(tmpdir(), 'calendar-backup-'));
let server: Instance | undefined;

afterAll(async () => {
  if (server) await stop(server);
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], databaseUrl: string) =>
  runCommand(process.execPath, [COMPILED_CLI, ...args], { DATABASE_URL: databaseUrl, CALENDAR_ADMIN_PASSWORD: '' });

interface Acknowledged {
  id: number;
  at: number;
}

/** Writers creating events one after another until `done()`; each acknowledged create is recorded with its time. */
function streamWrites(
  instance: Instance,
  done: () => boolean,
): { acknowledged: Acknowledged[]; finished: Promise<void> } {
  const acknowledged: Acknowledged[] = [];
  const writer = async (worker: number) => {
    for (let n = 0; !done(); n++) {
      const day = String((n % 27) + 1).padStart(2, '0');
      const reply = await rest(instance, 'POST', '/events', {
        title: `Backup stream ${worker}-${n}`,
        start_date: `2027-03-${day} 10:00:00`,
        end_date: `2027-03-${day} 11:00:00`,
      });
      if (reply.status !== 201) throw new Error(`write answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      acknowledged.push({ id: reply.body.id, at: performance.now() });
    }
  };
  const finished = Promise.all(Array.from({ length: WRITERS }, (_, worker) => writer(worker))).then(() => undefined);
  return { acknowledged, finished };
}

const oneLine = (text: string) => text.trim().split('\n');

describe('backup and restore of the SQLite database', () => {
  it('a backup taken under a stream of writes, restored, holds every write acknowledged before it began', async () => {
    const database = await freshDatabase(dir);
    const backupFile = join(dir, 'calendar-backup.db');
    server = await startInstance(database.url);
    let writing = true;
    const stream = streamWrites(server, () => !writing);
    while (stream.acknowledged.length < 30) await new Promise((resolve) => setTimeout(resolve, 20));

    const began = performance.now();
    const backup = await cli(['backup', backupFile], database.url);
    const ended = performance.now();
    const before = stream.acknowledged.filter((write) => write.at < began).map((write) => write.id);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(
      /^Backed up the database to .*calendar-backup\.db \(\d+ bytes, \d+ migrations applied\)\.\n$/,
    );
    const afterCount = stream.acknowledged.length;
    while (stream.acknowledged.length < afterCount + 10) await new Promise((resolve) => setTimeout(resolve, 20));
    writing = false;
    await stream.finished;
    const after = stream.acknowledged.filter((write) => write.at > ended).map((write) => write.id);
    expect(after.length).toBeGreaterThan(0);

    const cursorAfterBackup = (await rest(server, 'GET', '/changes')).body.next;
    const whileServed = await cli(['restore', backupFile], database.url);
    expect(whileServed.code).toBe(1);
    expect(oneLine(whileServed.stderr)).toEqual([expect.stringMatching(/^Error: a server is using .*; stop it first/)]);

    expect(await stop(server)).toBe(0);
    server = undefined;
    const restore = await cli(['restore', backupFile], database.url);
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.stdout).toContain(`Restored ${backupFile} into ${sqlitePath(database.url)}`);

    const restored = new Database(sqlitePath(database.url), { readonly: true });
    expect(restored.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(restored.pragma('journal_mode', { simple: true })).toBe('wal');
    restored.close();

    server = await startInstance(database.url);
    const statusOf = async (id: number) => (await rest(server!, 'GET', `/events/${id}`)).status;
    const missing = [];
    for (const id of before) if ((await statusOf(id)) !== 200) missing.push(id);
    expect(missing).toEqual([]);
    const present = [];
    for (const id of after) if ((await statusOf(id)) !== 404) present.push(id);
    expect(present).toEqual([]);
    const resync = await rest(server, 'GET', `/changes?since=${encodeURIComponent(cursorAfterBackup)}`);
    expect([resync.status, resync.body.code, resync.body.data?.reason]).toEqual([
      410,
      'rest_changes_resync_required',
      'invalid',
    ]);
    const next = await rest(server, 'POST', '/events', {
      title: 'After the restore',
      start_date: '2027-04-01 10:00:00',
      end_date: '2027-04-01 11:00:00',
    });
    expect(next.status).toBe(201);
  }, 120_000);

  it('refuses, on one line, to overwrite a file, to restore what is not a whole backup or one from a newer build', async () => {
    const databaseUrl = `file:${join(dir, 'refusals.db')}`;
    expect((await cli(['migrate'], databaseUrl)).code).toBe(0);
    const existing = join(dir, 'existing.db');
    writeFileSync(existing, 'keep me');
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'not a database at all, but long enough to be read as a header by SQLite'.repeat(100));
    const newer = join(dir, 'newer.db');
    copyFileSync(sqlitePath(databaseUrl), newer);
    const newerDb = new Database(newer);
    newerDb
      .prepare(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, started_at, applied_steps_count)
         VALUES ('x', 'x', '29991231000000_from_the_future', 1, 1, 1)`,
      )
      .run();
    newerDb.close();

    const refusals: Array<[string[], RegExp]> = [
      [['backup', existing], /exists; name a new file/],
      [['backup'], /backup takes one file; usage: backup <file>/],
      [['restore', join(dir, 'nowhere.db')], /there is no backup at/],
      [['restore', garbage], /garbage\.db is not a SQLite database|cannot be opened/],
      [['restore', newer], /was made by a newer build \(migrations 29991231000000_from_the_future\)/],
      [['restore', existing, '--force'], /Unknown option '--force'.*; usage: restore <file>$/],
    ];
    for (const [args, message] of refusals) {
      const run = await cli(args, databaseUrl);
      expect(run.code, args.join(' ')).toBe(1);
      expect(oneLine(run.stderr), args.join(' ')).toEqual([expect.stringMatching(message)]);
    }
    expect(readFileSync(existing, 'utf8')).toBe('keep me');
  }, 60_000);
});
