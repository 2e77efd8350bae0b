import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { freePort, runSourceCli } from './support/processes.js';

// The command line refuses what it does not know (issue 30, point 6): an unknown option or word is an error with the
// command's usage, never ignored; `serve --port` and `--host` are used, as PORT and HOST would be.

let dir: string;
let database: TestDatabase;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-cli-options-'));
  database = await freshDatabase(dir);
});
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the command line', () => {
  it.each([
    [['serve', '--bogus'], "Unknown option '--bogus'; usage: serve [--port <n>] [--host <address>]"],
    [['serve', 'now'], "Unexpected argument 'now'"],
    [['serve', '--port'], "Option '--port <value>' argument missing"],
    [['serve', '--port', 'abc'], 'PORT must be a port number (0-65535), got "abc"'],
    [['migrate', 'extra'], "Unexpected argument 'extra'"],
    [['seed', '--forse'], "Unknown option '--forse'; usage: seed [--force]"],
    [['persisted-operations', '--json'], "Unknown option '--json'"],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['import', 'https://example.com/wp-json', '--bogus'], "Unknown option '--bogus'; usage: import <rest-root>"],
    [['users', 'list', '--all'], "Unknown option '--all'; usage: users list"],
    [['backup', 'a.db', '--force'], "Unknown option '--force'; usage: backup <file>"],
    [['restore'], 'restore takes one file; usage: restore <file>'],
  ])('refuses %j with one line, exit code 1, and starts nothing', async (args, message) => {
    const run = await runSourceCli(args, { DATABASE_URL: database.url, PORT: String(await freePort()) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stdout).toBe('');
  });

  it('fails with one line, not a stack trace, when the database cannot be reached or made', async () => {
    for (const url of [
      'file:/etc/hostname/calendar/calendar.db',
      `postgresql://postgres@127.0.0.1:${await freePort()}/none`,
    ]) {
      const run = await runSourceCli(['migrate'], { DATABASE_URL: url });
      expect(run.code, url).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines, url).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^Error: (ENOTDIR: not a directory|connect ECONNREFUSED).* \(LOG_LEVEL=debug shows the whole error\)$/,
      );
    }
    const verbose = await runSourceCli(['migrate'], {
      DATABASE_URL: 'file:/etc/hostname/calendar/calendar.db',
      LOG_LEVEL: 'debug',
    });
    expect(verbose.stderr).toMatch(/\n\s+at /);
  });

  it('serves on --port and --host, not on PORT', async () => {
    const [port, ignored] = [await freePort(), await freePort()];
    let kill: () => void = () => {};
    const running = runSourceCli(
      ['serve', '--port', String(port), '--host', '127.0.0.1'],
      { DATABASE_URL: database.url, PORT: String(ignored), LOG_LEVEL: 'warn' },
      (stop) => {
        kill = stop;
      },
    );
    let answered = false;
    for (let attempt = 0; attempt < 150 && !answered; attempt++) {
      answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (!answered) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const onPortVariable = await fetch(`http://127.0.0.1:${ignored}/healthz`).then(
      () => true,
      () => false,
    );
    kill();
    const run = await running;
    expect(answered, run.stderr).toBe(true);
    expect(onPortVariable).toBe(false);
  });
});
