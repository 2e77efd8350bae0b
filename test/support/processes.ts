import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { COMPILED_CLI } from '../../bench/processes.js';
import { TEST_ENGINE } from './database.js';

// Server child processes, started as `npm start` starts them (the bundled dist/cli.js, built by test/support/build.ts),
// for tests about several processes on one database.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PROCESS_ADMIN_PASSWORD = 'multi-process-admin-pw';
const AUTH = `Basic ${Buffer.from(`admin:${PROCESS_ADMIN_PASSWORD}`).toString('base64')}`;
const API = '/wp-json/calendar/events/v1';

/** A port nothing listens on right now, for a child server process. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface CommandRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command in the project's folder to its end with pipes for stdout and stderr (not a terminal), and answers
 * its exit and output. `onSpawn` gets a way to SIGKILL it, for tests of a command stopped half-way.
 */
export function runCommand(
  command: string,
  args: string[],
  env: Record<string, string>,
  onSpawn?: (kill: () => void) => void,
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    onSpawn?.(() => child.kill('SIGKILL'));
  });
}

/** The command line as `npm run cli` runs it from the sources (`tsx src/cli.ts …`). */
export const runSourceCli = (args: string[], env: Record<string, string>, onSpawn?: (kill: () => void) => void) =>
  runCommand(
    process.execPath,
    ['--import', 'tsx', 'src/cli.ts', ...args],
    { CALENDAR_ADMIN_PASSWORD: '', ...env },
    onSpawn,
  );

export interface Instance {
  base: string;
  child: ChildProcess;
  output: string[];
}

/** Starts `npm start`'s compiled server on the database; on `env.PORT` when given (a restart), else on a free port. */
export async function startInstance(databaseUrl: string, env: Record<string, string> = {}): Promise<Instance> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, [COMPILED_CLI, 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      CALENDAR_ADMIN_PASSWORD: PROCESS_ADMIN_PASSWORD,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk) => output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 150; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output.join('')}`);
    const ready = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { base, child, output };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`server did not become ready:\n${output.join('')}`);
}

export async function stop(instance: Instance): Promise<number | null> {
  if (instance.child.exitCode !== null) return instance.child.exitCode;
  const exited = new Promise<number | null>((resolve) => instance.child.once('exit', (code) => resolve(code)));
  instance.child.kill('SIGTERM');
  return exited;
}

/** A REST call to an instance: writes as the admin, reads anonymous. */
export async function rest(instance: Instance, method: string, route: string, body?: unknown) {
  const response = await fetch(`${instance.base}${API}${route}`, {
    method,
    headers: {
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(method === 'GET' ? {} : { authorization: AUTH }),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/**
 * How long after a write in one process another process may still answer from what it remembers (the staleness
 * bound of docs/performance.md): never on SQLite; on PostgreSQL the delay of the change notification, taken generously on a loaded machine.
 */
export const STALENESS_BOUND_MS = TEST_ENGINE === 'sqlite' ? 0 : 2000;

/** Reads until `fresh` holds of the answer or `withinMs` passed (a single read when 0); answers the last read. */
export async function readUntil<T>(
  read: () => Promise<T>,
  fresh: (answer: T) => boolean,
  withinMs = STALENESS_BOUND_MS,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const answer = await read();
    if (fresh(answer) || Date.now() >= deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
