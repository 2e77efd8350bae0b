import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase } from './database.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging/logger.js';
import { createApp, listen, shutdown, type App } from '../../src/server.js';

export interface GraphQLResult<T = any> {
  data?: T;
  errors?: Array<{ message: string; extensions?: Record<string, any>; path?: string[] }>;
}

/** The administrator every test server has (CALENDAR_ADMIN_PASSWORD), for writes made by fixtures. */
export const TEST_ADMIN_PASSWORD = 'test-admin-secret-8d1f';
export const ADMIN_AUTHORIZATION = basicAuthorization('admin', TEST_ADMIN_PASSWORD);

export function basicAuthorization(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

/**
 * Who a request is made as: an Authorization header value, or null for an anonymous request. Left out, reads are
 * anonymous and mutations are made by the administrator.
 */
export type As = string | null | undefined;

export interface TestServer {
  url: string;
  /** The DATABASE_URL it serves (for a second server on the same database: StartOptions.databaseOf). */
  databaseUrl: string;
  app: App;
  /** Runs a GraphQL operation over HTTP. */
  gql<T = any>(query: string, variables?: Record<string, unknown>, as?: As): Promise<GraphQLResult<T>>;
  /** Like gql, but fails the test on any GraphQL error and answers `data`. */
  gqlOk<T = any>(query: string, variables?: Record<string, unknown>, as?: As): Promise<T>;
  /** Statements the database received while `action` ran. */
  countQueries(action: () => Promise<unknown>): Promise<number>;
  /** The statements the server sends while `action` runs (background tasks' included). */
  captureQueries(action: () => Promise<unknown>): Promise<Array<{ query: string; params: string }>>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Where the server's log lines go (at LOG_LEVEL, which test servers default to `warn`); stdout when left out. */
  logTo?: { write(line: string): void };
  /** Serve the database of this (running) test server, or one a test made, instead of a fresh one; it stays its owner's to drop. */
  databaseOf?: Pick<TestServer, 'databaseUrl'>;
}

/**
 * Starts the real server on an ephemeral port over a fresh database of the run's engine (TEST_ENGINE): a SQLite
 * file in a temporary folder, or a PostgreSQL schema of its own.
 * `env` overrides the environment the configuration is read from (SITE_TIMEZONE, LOG_LEVEL, …).
 */
export async function startServer(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-test-'));
  const database = options.databaseOf
    ? { url: options.databaseOf.databaseUrl, drop: async () => {} }
    : await freshDatabase(dir);
  const config = loadConfig({
    DATABASE_URL: database.url,
    PORT: '0',
    HOST: '127.0.0.1',
    CALENDAR_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    // Request lines would drown the test report; failures (level error) still show.
    LOG_LEVEL: 'warn',
    // Every test's requests come from 127.0.0.1, and many send wrong credentials on purpose; the limits on failed
    // sign-ins are tested with their own settings (test/auth-sign-in-limits.test.ts).
    SIGNIN_FAILURES_PER_ADDRESS: '1000',
    SIGNIN_FAILURES_PER_ADDRESS_AND_LOGIN: '1000',
    SIGNIN_FAILURES_PER_LOGIN: '1000',
    // The suite keeps both cores busy, which would make test servers shed load; shedding is tested with its defaults
    // in a server process of its own (test/load-shedding.test.ts).
    MAX_EVENT_LOOP_LAG_MS: '0',
    MAX_IN_FLIGHT: '0',
    // Images given by URL are fetched from the local image server (test/support/image-server.ts) on 127.0.0.1, an
    // address the service otherwise refuses; refusals are tested with IMAGE_FETCH_ALLOW_PRIVATE=false.
    IMAGE_FETCH_ALLOW_PRIVATE: '127.0.0.1',
    ...env,
  });
  const logger = options.logTo ? createLogger(config.logLevel, options.logTo) : undefined;
  const app = await createApp(config, { countQueries: true, logger });
  const server: Server = await listen(app, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const gql = async (query: string, variables: Record<string, unknown> = {}, as?: As) => {
    const authorization = as === undefined ? (/^\s*mutation\b/.test(query) ? ADMIN_AUTHORIZATION : null) : as;
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as GraphQLResult;
  };

  return {
    url,
    databaseUrl: database.url,
    app,
    gql,
    async gqlOk(query, variables, as) {
      const result = await gql(query, variables, as);
      if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors, null, 2)}`);
      return result.data;
    },
    async captureQueries(action) {
      const statements: Array<{ query: string; params: string }> = [];
      app.queries.seen = (statement) => statements.push(statement);
      try {
        await action();
      } finally {
        app.queries.seen = undefined;
      }
      return statements;
    },
    async countQueries(action) {
      const before = app.queries.count;
      await action();
      return app.queries.count - before;
    },
    async close() {
      await shutdown(server, app);
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
