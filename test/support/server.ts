import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createApp, listen, shutdown, type App } from '../../src/server.js';

export interface GraphQLResult<T = any> {
  data?: T;
  errors?: Array<{ message: string; extensions?: Record<string, any>; path?: string[] }>;
}

export interface TestServer {
  url: string;
  app: App;
  /** Runs a GraphQL operation over HTTP. */
  gql<T = any>(query: string, variables?: Record<string, unknown>): Promise<GraphQLResult<T>>;
  /** Like gql, but fails the test on any GraphQL error and answers `data`. */
  gqlOk<T = any>(query: string, variables?: Record<string, unknown>): Promise<T>;
  /** Statements the database received while `action` ran. */
  countQueries(action: () => Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts the real server on an ephemeral port over a fresh SQLite file in a temporary folder.
 * `env` overrides the environment the configuration is read from (SITE_TIMEZONE, …).
 */
export async function startServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-test-'));
  const config = loadConfig({ DATABASE_URL: `file:${join(dir, 'calendar.db')}`, PORT: '0', HOST: '127.0.0.1', ...env });
  const app = await createApp(config, { countQueries: true });
  const server: Server = await listen(app, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as GraphQLResult;
  };

  return {
    url,
    app,
    gql,
    async gqlOk(query, variables) {
      const result = await gql(query, variables);
      if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors, null, 2)}`);
      return result.data;
    },
    async countQueries(action) {
      const before = app.queries.count;
      await action();
      return app.queries.count - before;
    },
    async close() {
      await shutdown(server, app);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
