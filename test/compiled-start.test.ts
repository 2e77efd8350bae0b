import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/project-files.js';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { freePort } from './support/processes.js';

// `npm start` runs the bundle in dist/ (type-checked and bundled by postinstall and, when stale, by prestart), not the
// TypeScript sources through tsx; the bundled server still finds the files it reads at run time (GraphQL documents,
// GraphiQL's start script, migrations) in the project. test/support/build.ts has built dist/ before this file runs.

const API = '/wp-json/calendar/events/v1';
const ADMIN_PASSWORD = 'compiled-start-admin-pw';
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  config: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

const procFile = (pid: number, name: string) =>
  readFileSync(`/proc/${pid}/${name}`, 'utf8').split('\0').filter(Boolean);

let dir: string;
let database: TestDatabase;
let npm: ChildProcess;
let output = '';
let base: string;
let serverPid: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-compiled-start-'));
  database = await freshDatabase(dir);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  npm = spawn('npm', ['start'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      CALENDAR_ADMIN_PASSWORD: ADMIN_PASSWORD,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  npm.stdout!.on('data', (chunk) => (output += String(chunk)));
  npm.stderr!.on('data', (chunk) => (output += String(chunk)));
  for (let attempt = 0; attempt < 300; attempt++) {
    if (npm.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
    if (
      await fetch(`${base}/healthz`).then(
        (response) => response.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // The start-up line names the server's process (npm and its shell are its parents).
  const started = /"pid":(\d+)[^\n]*Calendar events service on/.exec(output);
  if (!started) throw new Error(`npm start did not log its start-up line:\n${output}`);
  serverPid = Number(started[1]);
}, 120_000);

afterAll(async () => {
  if (serverPid) process.kill(serverPid, 'SIGTERM');
  if (npm && npm.exitCode === null) await new Promise((resolve) => npm.once('exit', resolve));
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start runs the compiled server', () => {
  it('declares a build of src/ to dist/ run on install and before start, and tsx only as a dev dependency', () => {
    expect(manifest.scripts.build).toMatch(/\btsc\b.*tsconfig\.build\.json.*scripts\/bundle\.ts/);
    expect(manifest.scripts.postinstall).toContain('npm run build');
    expect(manifest.scripts.prestart).toContain('npm run build');
    expect(manifest.scripts.start).toContain('dist/cli.js serve');
    for (const script of ['start', 'migrate', 'seed', 'cli'])
      expect(manifest.scripts[script], script).not.toMatch(/tsx|src\/cli\.ts/);
    expect(manifest.dependencies.tsx).toBeUndefined();
    expect(manifest.devDependencies.tsx).toBeDefined();
  });

  it('is node running dist/cli.js with the V8 flags and malloc arenas of package.json, with no TypeScript loader', () => {
    const argv = procFile(serverPid, 'cmdline');
    expect(argv.slice(1)).toEqual([...manifest.config.node_flags!.split(/\s+/), 'dist/cli.js', 'serve']);
    expect(argv.join(' ')).not.toMatch(/tsx|--import|--loader|\.ts\b/);
    const environment = procFile(serverPid, 'environ');
    expect(environment).toContain(`MALLOC_ARENA_MAX=${manifest.config.malloc_arena_max}`);
    expect(environment.find((line) => line.startsWith('NODE_OPTIONS=')) ?? '').not.toMatch(/tsx/);
    expect(existsSync(join(PROJECT_ROOT, 'dist/cli.js'))).toBe(true);
  });

  it('is healthy, migrated and serves REST reads and writes', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const authorization = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
    const start = `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)} 19:00:00`;
    const created = await fetch(`${base}${API}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ title: 'Compiled concert', start_date: start, end_date: start.replace('19:', '21:') }),
    });
    expect(created.status).toBe(201);
    const list = await fetch(`${base}${API}/events`);
    expect(list.status).toBe(200);
    const body = (await list.json()) as { events: Array<{ title: string }>; total: number };
    expect(body.total).toBe(1);
    expect(body.events.map((event) => event.title)).toEqual(['Compiled concert']);
  });

  it('is a bundle in chunks of Latin-1 text, which V8 keeps at one byte per character', () => {
    const chunks = readdirSync(join(PROJECT_ROOT, 'dist')).filter((name) => name.endsWith('.js'));
    // tsc's output would mirror src/, a file per module; the bundle is a handful of chunks beside dist/cli.js.
    expect(existsSync(join(PROJECT_ROOT, 'dist/server.js'))).toBe(false);
    expect(chunks.length).toBeLessThan(40);
    const beyondLatin1 = chunks.filter((name) =>
      /[^\x00-\xff]/.test(readFileSync(join(PROJECT_ROOT, 'dist', name), 'utf8')),
    );
    expect(beyondLatin1).toEqual([]);
  });

  it("serves GraphiQL's start script from src/http, which the compiler does not copy to dist/", async () => {
    const page = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const script = /src="([^"]*\/start\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${base}${script}`);
    expect(asset.status).toBe(200);
    expect(await asset.text()).toBe(readFileSync(join(PROJECT_ROOT, 'src/http/graphiql-start.js'), 'utf8'));
    expect(existsSync(join(PROJECT_ROOT, 'dist/http/graphiql-start.js'))).toBe(false);
  });

  it('registers every operation of src/read/operations when run compiled (node dist/cli.js persisted-operations)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['dist/cli.js', 'persisted-operations'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: database.url },
    });
    const registered = Object.values(JSON.parse(stdout) as Record<string, string>);
    const documents = readdirSync(join(PROJECT_ROOT, 'src/read/operations')).filter((name) =>
      name.endsWith('.graphql'),
    );
    const operationNames = documents.flatMap((name) =>
      [
        ...readFileSync(join(PROJECT_ROOT, 'src/read/operations', name), 'utf8').matchAll(
          /^(?:query|mutation)\s+(\w+)/gm,
        ),
      ].map((match) => match[1]!),
    );
    expect(operationNames.length).toBeGreaterThan(0);
    for (const name of operationNames)
      expect(
        registered.some((text) => new RegExp(`^(query|mutation) ${name}\\b`).test(text)),
        name,
      ).toBe(true);
  });
});
