import { createServer, type Server } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import { createYoga } from 'graphql-yoga';
import { Router } from 'itty-router';
import type { Config } from './config.js';
import { createDb, type Db, type QueryCounter } from './db/client.js';
import { migrate } from './db/migrate.js';
import { authenticate } from './auth/authenticate.js';
import { ensureAdmin } from './auth/credentials.js';
import { createContext, type Context, type Viewer } from './graphql/context.js';
import { schema } from './graphql/schema.js';
import { RestError } from './rest/errors.js';
import { createRestHandler } from './rest/router.js';

export interface App {
  config: Config;
  db: Db;
  /** Statements sent to the database since start (only counted when asked for at creation). */
  queries: QueryCounter;
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

export interface AppOptions {
  countQueries?: boolean;
}

const INVALID_CREDENTIALS = 'The credentials sent are not valid.';

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=UTF-8' } });

/** Migrates the database and composes the one fetch handler: GraphQL, health, and the REST root. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  await migrate(config);
  const queries: QueryCounter = { count: 0 };
  const db = createDb(config, options.countQueries ? queries : undefined);
  await db.$queryRawUnsafe('SELECT 1');

  if (config.adminPassword) await ensureAdmin(db, config.adminPassword);

  /** The request's viewer, or null when it sent credentials that do not verify. */
  const viewerOf = async (request: Request): Promise<Viewer | null> => {
    const result = await authenticate(db, request.headers.get('authorization'));
    if (result.kind === 'invalid') return null;
    return { user: result.kind === 'user' ? result.user : null };
  };

  const yoga = createYoga<{ viewer: Viewer }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: { title: 'Calendar events service' },
    landingPage: false,
    logging: 'warn',
    context: ({ viewer }) => createContext(db, config, viewer),
  });

  const router = Router();
  router.all('/graphql', async (request: Request) => {
    const viewer = await viewerOf(request);
    if (!viewer) return json({ errors: [{ message: INVALID_CREDENTIALS, extensions: { code: 'UNAUTHENTICATED' } }] }, 401);
    return yoga.fetch(request, { viewer });
  });
  router.get('/healthz', async () => {
    await db.$queryRawUnsafe('SELECT 1');
    return json({ status: 'ok' });
  });
  const handleRest = createRestHandler(config, async (request) => {
    const viewer = await viewerOf(request);
    if (!viewer) throw RestError.of('incorrect_password');
    return createContext(db, config, viewer);
  });
  router.all('*', async (request: Request) => (await handleRest(request)) ?? json({ code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } }, 404));

  return {
    config,
    db,
    queries,
    fetch: (request) => router.fetch(request),
    close: () => db.$disconnect(),
  };
}

/** Serves the app on node:http. Resolves once listening. */
export function listen(app: App, port = app.config.port, host = app.config.host): Promise<Server> {
  const server = createServer(createServerAdapter((request: Request) => app.fetch(request)));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** Stops accepting, lets in-flight requests finish, then closes the database. */
export async function shutdown(server: Server, app: App): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await app.close();
}
