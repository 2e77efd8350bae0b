import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { COMPILED_CLI, startChild, type ChildServer } from '../../bench/processes.js';
import { Api, basicAuthorization } from './api.js';

/** The service as deployed (`node dist/cli.js serve`, one process; `buildServer()` first) on `databaseUrl`, with an administrator. */
export interface ServiceUnderTest {
  child: ChildServer;
  admin: Api;
  anonymous: Api;
}

export async function startService(databaseUrl: string, adminPassword: string): Promise<ServiceUnderTest> {
  const child = await startChild({
    args: [COMPILED_CLI, 'serve'],
    env: {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      WORKERS: '1',
      CALENDAR_ADMIN_PASSWORD: adminPassword,
    },
    ready: /REST: (http:\/\/[^/\s]+)\//,
    healthz: true,
  });
  return {
    child,
    admin: new Api(child.url, basicAuthorization('admin', adminPassword)),
    anonymous: new Api(child.url, null),
  };
}

/** The first lines of the server's output that mention an error, shortened: the cause behind a failed request. */
export function errorLines(child: ChildServer, max = 3): string[] {
  return child
    .output()
    .split('\n')
    .filter((line) => /error/i.test(line))
    .slice(0, max)
    .map((line) => line.slice(0, 600));
}

export interface ScratchDatabase {
  url: string;
  engine: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

/** A new SQLite file in a temporary folder. */
export function scratchSqlite(): ScratchDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-soak-'));
  return {
    url: `file:${join(dir, 'calendar.db')}`,
    engine: 'sqlite',
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A new schema on the PostgreSQL server `serverUrl` names (dropped by `drop`). */
export function scratchPostgres(serverUrl: string): ScratchDatabase {
  const schema = `soak_${randomBytes(4).toString('hex')}`;
  const url = new URL(serverUrl);
  url.searchParams.set('schema', schema);
  return {
    url: url.toString(),
    engine: 'postgres',
    async drop() {
      const plain = new URL(serverUrl);
      plain.searchParams.delete('schema');
      const client = new pg.Client({ connectionString: plain.toString() });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
