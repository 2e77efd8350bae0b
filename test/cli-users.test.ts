// The account commands of the CLI, run as child processes over a temporary SQLite file, and the credentials they
// print, used against the real server over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CliError } from '../src/cli/arguments.js';
import { runAccountCommand } from '../src/cli/users.js';
import { loadConfig, type Config } from '../src/config.js';
import { createApp, listen, shutdown, type App } from '../src/server.js';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { runSourceCli, type CommandRun } from './support/processes.js';

const SLOW = 90_000;

let dir: string;
let database: TestDatabase;
let config: Config;

const cli = (...args: string[]): Promise<CommandRun> => runSourceCli(args, { DATABASE_URL: database.url });

/** Runs a command that must succeed. */
async function ok(...args: string[]): Promise<CommandRun> {
  const run = await cli(...args);
  expect(run.code, `${args.join(' ')}\n${run.stderr}`).toBe(0);
  return run;
}

/** Runs a command that must fail with one line on stderr, no stack trace and nothing on stdout. */
async function fails(args: string[], reason: RegExp): Promise<void> {
  const run = await cli(...args);
  expect(run.code, args.join(' ')).toBe(1);
  expect(run.stdout).toBe('');
  const lines = run.stderr.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^Error: /);
  expect(lines[0]).toMatch(reason);
}

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

let app: App;
let server: Server;
let url: string;

function createCategory(name: string, authorization?: string): Promise<Response> {
  return fetch(`${url}/wp-json/calendar/events/v1/categories`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ name }),
  });
}

async function viewerLogin(authorization: string): Promise<{ status: number; login: string | null }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ query: '{ viewer { login } }' }),
  });
  const body = (await response.json()) as { data?: { viewer: { login: string } | null } };
  return { status: response.status, login: body.data?.viewer?.login ?? null };
}

/** The row of `passwords list` for credential `id`, split into its columns. */
function listRow(list: string, id: number): string[] {
  const row = list.split('\n').find((line) => line.startsWith(`${id} `));
  expect(row, list).toBeDefined();
  return row!.split(/\s{2,}/);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-cli-'));
  database = await freshDatabase(dir);
  // The server reads the same database the CLI writes, without CALENDAR_ADMIN_PASSWORD: only CLI-made users exist.
  config = loadConfig({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
  app = await createApp(config);
  server = await listen(app, 0, '127.0.0.1');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, SLOW);

afterAll(async () => {
  if (server) await shutdown(server, app);
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('CLI: users', () => {
  it('creates users with a role and lists them', { timeout: SLOW }, async () => {
    const created = await ok(
      'users',
      'create',
      'edith',
      '--role',
      'editor',
      '--email',
      'edith@example.org',
      '--name',
      'Edith E.',
    );
    expect(created.stdout).toMatch(/Created user edith \(ID \d+, editor\)/);
    await ok('users', 'create', 'carl', '--role=contributor');

    const { stdout } = await ok('users', 'list');
    const [header, ...rows] = stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['ID', 'LOGIN', 'ROLE', 'NAME', 'EMAIL', 'CREDENTIALS']);
    expect(rows.map((row) => row.split(/\s{2,}/).slice(1))).toEqual([
      ['edith', 'editor', 'Edith E.', 'edith@example.org', '0'],
      ['carl', 'contributor', 'carl', '0'],
    ]);
  });

  it('explains bad input in one line on stderr and exits 1', { timeout: SLOW }, async () => {
    await Promise.all([
      fails(
        ['users', 'create', 'bob', '--role', 'boss'],
        /unknown role "boss" \(administrator, editor, author, contributor, subscriber\)/,
      ),
      fails(['users', 'create'], /missing <login>; usage: users create <login> --role <role>/),
      fails(['passwords', 'create', 'nobody'], /no user with login "nobody"/),
      fails(['frob'], /unknown command "frob"/),
    ]);
  });

  it('refuses every kind of bad input, naming it', { timeout: SLOW }, async () => {
    // The same commands in process (quicker than a process each); the child-process runs above show the output.
    const refusal = async (args: string[]) => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      const note = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        const [group, ...rest] = args;
        const error = await runAccountCommand(config, group!, rest).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error, args.join(' ')).toBeInstanceOf(CliError);
        expect(log).not.toHaveBeenCalled();
        return (error as Error).message;
      } finally {
        log.mockRestore();
        note.mockRestore();
      }
    };
    const cases: Array<[string[], RegExp]> = [
      [
        ['users', 'create', 'bob'],
        /^missing --role <role> \(administrator, editor, author, contributor, subscriber\)$/,
      ],
      [['users', 'create', 'bob', '--role'], /^Option '--role <value>' argument missing; usage: /],
      [['users', 'create', 'edith', '--role', 'author'], /^login "edith" is taken$/],
      [['users', 'create', 'b b', '--role', 'author'], /^login "b b" is not valid: use 1-60 letters/],
      [['users', 'create', 'bob', '--role', 'author', '--email', 'nope'], /^--email "nope" is not an e-mail address$/],
      [['users', 'create', 'bob', '--role', 'author', '--bogus'], /^Unknown option '--bogus'; usage: users create/],
      [['users', 'list', 'extra'], /^unexpected argument "extra"; usage: users list$/],
      [['users', 'frob'], /^unknown command "users frob" \(create, list\)$/],
      [['users'], /^missing a command after "users" \(create, list\)$/],
      [['passwords', 'list'], /^missing <login>; usage: passwords list <login>$/],
      [['passwords', 'list', 'nobody'], /^no user with login "nobody"/],
      [['passwords', 'revoke', 'seven'], /^<id> must be a credential ID/],
      [['passwords', 'revoke', '999999'], /^no credential with ID 999999$/],
      [['passwords', 'create', 'edith', '--role', 'editor'], /^Unknown option '--role'/],
      [['tokens', 'create', 'nobody'], /^no user with login "nobody"/],
      [['tokens', 'create', 'edith', '--name', ' '], /^--name must not be empty$/],
      [
        ['tokens', 'list', 'edith'],
        /^unknown command "tokens list" \(create\); passwords list and passwords revoke cover tokens too$/,
      ],
    ];
    for (const [args, reason] of cases) expect(await refusal(args), args.join(' ')).toMatch(reason);
    const users = await app.db.user.findMany({ select: { login: true } });
    expect(users.map((user) => user.login).sort()).toEqual(['carl', 'edith']);
  });
});

describe('CLI: application passwords and tokens against the server', () => {
  let passwordId: number;
  let password: string;

  it('prints an application password once (alone on stdout) that signs in over HTTP Basic', {
    timeout: SLOW,
  }, async () => {
    expect((await createCategory('Anonymous')).status).toBe(401);

    const run = await ok('passwords', 'create', 'edith', '--name', 'laptop');
    password = run.stdout.trim();
    expect(password).toMatch(/^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$/);
    expect(run.stderr).toMatch(/cannot be shown again/);
    passwordId = Number(/\(ID (\d+)\)/.exec(run.stderr)![1]);

    const response = await createCategory('Jazz', basic('edith', password));
    expect(response.status).toBe(201);
    expect((await response.json()).name).toBe('Jazz');
    // WordPress shows application passwords in groups; they work with or without the spaces.
    expect((await createCategory('Blues', basic('edith', password.replace(/ /g, '')))).status).toBe(201);
    expect(await viewerLogin(basic('edith', password))).toEqual({ status: 200, login: 'edith' });

    // A contributor's password signs in too, and the role decides: no categories for contributors.
    const carl = (await ok('passwords', 'create', 'carl')).stdout.trim();
    expect((await createCategory('Folk', basic('carl', carl))).status).toBe(403);
  });

  it('lists credentials with their last use and never their secrets', { timeout: SLOW }, async () => {
    const { stdout, stderr } = await ok('passwords', 'list', 'edith');
    expect(stdout.split('\n')[0]!.split(/\s{2,}/)).toEqual(['ID', 'KIND', 'NAME', 'CREATED', 'LAST USED', 'REVOKED']);
    const [, kind, name, created, lastUsed, revoked] = listRow(stdout, passwordId);
    expect([kind, name, revoked]).toEqual(['application password', 'laptop', '-']);
    expect(created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(lastUsed).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    for (const output of [stdout, stderr]) {
      expect(output).not.toContain(password);
      expect(output).not.toContain(password.replace(/ /g, ''));
      expect(output).not.toContain('scrypt$');
    }
  });

  it('revokes an application password: the next request answers 401', { timeout: SLOW }, async () => {
    const run = await ok('passwords', 'revoke', String(passwordId));
    expect(run.stdout).toMatch(new RegExp(`Revoked the application password "laptop" \\(ID ${passwordId}\\) of edith`));

    const response = await createCategory('Soul', basic('edith', password));
    expect(response.status).toBe(401);
    expect((await response.json()).code).toBe('incorrect_password');
    expect((await viewerLogin(basic('edith', password))).status).toBe(401);

    // Revoking again is harmless and says so; the list shows when it was revoked.
    expect((await ok('passwords', 'revoke', String(passwordId))).stdout).toMatch(/already revoked/);
    const [, , , , , revoked] = listRow((await ok('passwords', 'list', 'edith')).stdout, passwordId);
    expect(revoked).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('prints a bearer token once that signs in, until it is revoked', { timeout: SLOW }, async () => {
    const run = await ok('tokens', 'create', 'edith', '--name', 'deploy');
    const token = run.stdout.trim();
    expect(token).toMatch(/^[A-Za-z0-9]{16}\.[A-Za-z0-9]{24}$/);
    expect(run.stderr).toMatch(/cannot be shown again/);
    const id = Number(/\(ID (\d+)\)/.exec(run.stderr)![1]);

    expect(await viewerLogin(`Bearer ${token}`)).toEqual({ status: 200, login: 'edith' });
    expect((await createCategory('Gospel', `Bearer ${token}`)).status).toBe(201);

    const list = (await ok('passwords', 'list', 'edith')).stdout;
    expect(listRow(list, id).slice(1, 3)).toEqual(['bearer token', 'deploy']);
    expect(list).not.toContain(token.split('.')[1]);

    await ok('passwords', 'revoke', String(id));
    expect((await viewerLogin(`Bearer ${token}`)).status).toBe(401);
    expect((await ok('users', 'list')).stdout).toMatch(/edith\s+editor\s+Edith E\.\s+edith@example\.org\s+0\n/);
  });
});
