/**
 * What signing in costs: authenticated and anonymous reads of the venues list, and failed sign-ins, over loopback
 * with autocannon at concurrency 1 against `src/cli.ts serve` on a fresh SQLite file (response cache off).
 * Not part of `npm run bench` or the tests: `npx tsx bench/auth-latency.ts` prints one line per scenario.
 * The user signing in holds ten application passwords (the case where scrypt once cost one check each).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad, type LoadRequest } from './load.js';
import { buildServer, PROJECT_ROOT, startService } from './processes.js';

const DURATION = Number(process.env.AUTH_BENCH_DURATION ?? 5);
const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

function cli(databaseUrl: string, ...args: string[]): string {
  const env = { ...process.env, DATABASE_URL: databaseUrl, CALENDAR_ADMIN_PASSWORD: '' };
  return execFileSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: PROJECT_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  })
    .toString()
    .trim();
}

async function main(): Promise<void> {
  buildServer();
  const dir = mkdtempSync(join(tmpdir(), 'auth-latency-'));
  const databaseUrl = `file:${join(dir, 'calendar.db')}`;
  cli(databaseUrl, 'users', 'create', 'reader', '--role', 'editor');
  const passwords = Array.from({ length: 10 }, (_, n) =>
    cli(databaseUrl, 'passwords', 'create', 'reader', '--name', `p${n}`),
  );
  const token = cli(databaseUrl, 'tokens', 'create', 'reader');
  // The limits on failed sign-ins off, so that the failures measure the work a check costs rather than a 429.
  Object.assign(process.env, {
    SIGNIN_FAILURES_PER_ADDRESS: '0',
    SIGNIN_FAILURES_PER_ADDRESS_AND_LOGIN: '0',
    SIGNIN_FAILURES_PER_LOGIN: '0',
  });
  const server = await startService(databaseUrl, 'http://localhost', { responseCache: false, workers: 1 });
  const path = '/wp-json/calendar/events/v1/venues';
  const scenarios: Array<[string, LoadRequest]> = [
    ['anonymous read', { path }],
    [
      'application password (the last of 10), read',
      { path, headers: { authorization: basic('reader', passwords[9]!) } },
    ],
    ['bearer token, read', { path, headers: { authorization: `Bearer ${token}` } }],
    [
      'wrong password of a user with 10 (401)',
      { path, headers: { authorization: basic('reader', 'abcd efgh ijkl mnop qrst uvwx') } },
    ],
    ['unknown user (401)', { path, headers: { authorization: basic('nobody', 'abcd efgh ijkl mnop qrst uvwx') } }],
  ];
  try {
    for (const [name, request] of scenarios) {
      await runLoad({ url: server.url, connections: 1, duration: 1, requests: [request] });
      const result = await runLoad({ url: server.url, connections: 1, duration: DURATION, requests: [request] });
      console.log(
        `${name.padEnd(45)} ${result.rps.toFixed(0).padStart(5)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  non-2xx ${result.non2xx}`,
      );
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
