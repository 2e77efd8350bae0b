import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPILED_CLI } from '../bench/processes.js';
import { freshDatabase } from './support/database.js';
import { type Instance, rest, runCommand, startInstance, stop } from './support/processes.js';

// The command line writing to the SQLite file a busy server writes to (issue 30, point 6): `seed --force`, `users`,
// `webhooks` and `passwords` succeed while clients stream writes at the server, and none of the server's writes
// fails because of theirs. A transaction that read and then wrote after the other process committed used to fail at
// once (SQLite's BUSY_SNAPSHOT, which no busy timeout waits out: Prisma's P1008 "Operation has timed out").

const WRITERS = 4;
const dir = mkdtempSync(join(tmpdir(), 'calendar-cli-busy-'));
let server: Instance | undefined;

afterAll(async () => {
  if (server) await stop(server);
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], databaseUrl: string) =>
  runCommand(process.execPath, [COMPILED_CLI, ...args], {
    DATABASE_URL: databaseUrl,
    CALENDAR_ADMIN_PASSWORD: '',
    // The webhook's receiver is on this machine (no network here).
    WEBHOOKS_ALLOW_PRIVATE: '1',
  });

describe('CLI writes beside a busy server on SQLite', () => {
  it('succeed, and the server’s writes meanwhile all succeed too', async () => {
    const database = await freshDatabase(dir);
    server = await startInstance(database.url);
    const failures: string[] = [];
    let writes = 0;
    let writing = true;
    const writer = async (worker: number) => {
      const created = await rest(server!, 'POST', '/events', {
        title: `Busy ${worker}`,
        start_date: '2027-08-01 10:00:00',
        end_date: '2027-08-01 11:00:00',
      });
      if (created.status !== 201) failures.push(`create ${created.status} ${JSON.stringify(created.body)}`);
      for (let n = 0; writing; n++) {
        // An update reads the event, then writes it and its links: a read-then-write transaction.
        const updated = await rest(server!, 'POST', `/events/${created.body.id}`, {
          title: `Busy ${worker} ${n}`,
          categories: [`busy-${n % 5}`],
          venue: { venue: `Busy hall ${n % 3}` },
        });
        if (updated.status !== 200) failures.push(`update ${updated.status} ${JSON.stringify(updated.body)}`);
        writes++;
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, worker) => writer(worker));
    while (writes < 20 && failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));

    const runs = [];
    const refusedSeed = await cli(['seed'], database.url);
    expect(refusedSeed.stdout).toMatch(/^Not seeding: the database already has \d+ event\(s\)/);
    runs.push([
      'users create',
      await cli(['users', 'create', 'busy-editor', '--role', 'editor'], database.url),
    ] as const);
    runs.push(['passwords create', await cli(['passwords', 'create', 'busy-editor'], database.url)] as const);
    runs.push(['webhooks create', await cli(['webhooks', 'create', 'http://127.0.0.1:9/busy'], database.url)] as const);
    runs.push(['seed --force', await cli(['seed', '--force'], database.url)] as const);
    writing = false;
    await Promise.all(writers);

    for (const [name, run] of runs) {
      expect(
        run.stderr.split('\n').filter((line) => /^Error|^\s+at /.test(line)),
        name,
      ).toEqual([]);
      expect(run.code, `${name}: ${run.stderr}`).toBe(0);
    }
    expect(failures).toEqual([]);
    expect(writes).toBeGreaterThan(20);
    // The seed wrote its events beside the stream.
    const listed = await rest(server, 'GET', '/events?per_page=1&start_date=2000-01-01&end_date=2100-01-01');
    expect(Number(listed.headers.get('x-tec-total'))).toBeGreaterThan(300);
  }, 240_000);
});
