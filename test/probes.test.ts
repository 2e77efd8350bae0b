import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationNames } from '../src/db/migrate.js';
import { runSql } from './support/database.js';
import { startServer, type TestServer } from './support/server.js';

// Liveness and readiness (issue 30, point 3): `/healthz` says the process answers; `/readyz` that it can serve, its
// database answering with this build's migrations applied, and that it is not stopping. During a graceful stop
// `/readyz` fails first while requests are still served, for SHUTDOWN_DELAY_MS, then the process stops.

const probe = (server: TestServer, path: string, method = 'GET') => fetch(`${server.url}${path}`, { method });

describe('/healthz and /readyz', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  it('answers both while the process serves, uncached, by GET and HEAD', async () => {
    for (const [path, status] of [
      ['/healthz', 'ok'],
      ['/readyz', 'ready'],
    ] as const) {
      const answer = await probe(server, path);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ status });
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const head = await probe(server, path, 'HEAD');
      expect([head.status, await head.text()]).toEqual([200, '']);
    }
  });

  it('is not ready while a migration of this build is not recorded as applied (a database restored from an older copy)', async () => {
    const last = migrationNames(server.app.config.engine).at(-1)!;
    await runSql(
      server.databaseUrl,
      `UPDATE _prisma_migrations SET rolled_back_at = finished_at WHERE migration_name = '${last}'`,
    );
    const answer = await probe(server, '/readyz');
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({ status: 'unavailable', reason: `migrations not applied: ${last}` });
    expect((await probe(server, '/healthz')).status).toBe(200);
    await runSql(
      server.databaseUrl,
      `UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = '${last}'`,
    );
    expect((await probe(server, '/readyz')).status).toBe(200);
  });
});

describe('a graceful stop', () => {
  it('fails /readyz first while requests are still answered, then stops taking connections', async () => {
    const server = await startServer({ SHUTDOWN_DELAY_MS: '3000' });
    expect((await probe(server, '/readyz')).status).toBe(200);
    const started = Date.now();
    let stopped = false;
    const stopping = server.close().then(() => {
      stopped = true;
    });
    const ready = await probe(server, '/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'draining', reason: 'the process is stopping' });
    expect((await probe(server, '/healthz')).status).toBe(200);
    const read = await fetch(`${server.url}/wp-json/calendar/events/v1/events`);
    expect(read.status).toBe(200);
    expect(stopped).toBe(false);
    await stopping;
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    await expect(probe(server, '/healthz')).rejects.toThrow();
  });
});
