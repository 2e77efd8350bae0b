import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { createYoga } from 'graphql-yoga';
import { type IRequest, Router } from 'itty-router';
import type { Config } from './config.js';
import { type CacheLookup, createCachedAnswers, ResponseCache } from './cache/response-cache.js';
import { graphqlPostKeys } from './cache/graphql-post-key.js';
import { RememberedCounts, type AnswerFacts, StaleTags } from './cache/tags.js';
import { changeLogReader } from './db/change-log.js';
import { ChangeNotifier } from './db/change-notifier.js';
import { prepareChangeCursors } from './graphql/changes/cursor.js';
import {
  eventStreamAnswers,
  singleConnectionModeRefusal,
  type EventStreamContext,
} from './graphql/changes/event-stream.js';
import { LiveChanges } from './graphql/changes/live.js';
import { pruneChangesPeriodically } from './db/change-retention.js';
import {
  createDb,
  HELPER_CONNECTION_CACHE_KIB,
  rawTableName,
  REQUESTS_CONNECTION_CACHE_KIB,
  type Db,
  type QueryCounter,
} from './db/client.js';
import { readDataVersion, watchDataVersion, type DataVersionWatch } from './db/data-version.js';
import { migrate, migrationNames, unappliedMigrations } from './db/migrate.js';
import { refreshSqliteStatisticsPeriodically } from './db/planner-statistics.js';
import { bootstrapAdmin } from './auth/credentials.js';
import { credentialKey } from './auth/credential-key.js';
import { icalUidSuffix } from './ical/uid-suffix.js';
import { SignInLimiter } from './auth/sign-in-limits.js';
import {
  PasswordGuesses,
  RequestContexts,
  type RequestScope,
  type SignInRefusal,
  signInRefusalMessage,
} from './read/request-contexts.js';
import type { Context, Viewer } from './graphql/builder.js';
import { ErrorCode } from './graphql/errors.js';
import { schema } from './graphql/schema.js';
import { Deadline, DeadlineExceededError, TIMEOUT_CODE } from './db/request-client.js';
import { documentCaches } from './limits/document-cache.js';
import { documentBytesLimit, graphqlLimitPlugins } from './limits/graphql.js';
import {
  FairRunningLimit,
  HEALTH_PATH,
  isProbePath,
  METRICS_PATH,
  READY_PATH,
  LoadShedder,
  type Refusal,
  StartPacing,
  type Ticket,
} from './limits/admission.js';
import { persistedOperationsPlugin } from './limits/persisted-operations.js';
import { requestParamChecks } from './limits/request-params.js';
import { logErrorCodes, reportUnexpectedErrors, yogaLogger } from './logging/graphql-errors.js';
import {
  createLogger,
  type Logger,
  loggedPathOfTarget,
  type RequestLog,
  requestLineWriter,
  withRequestLog,
} from './logging/logger.js';
import { operationMetrics } from './metrics/graphql.js';
import type { ServiceMetrics } from './metrics/metrics.js';
import { answerScrape, listenForScrapes } from './metrics/scrape.js';
import { SourceScheduler } from './import/sources/schedule.js';
import { measureParts } from './server-metrics.js';
import { tracedOperations } from './tracing/graphql.js';
import { serverSpan, tracingOn } from './tracing/tracing.js';
import { RestError } from './rest/errors.js';
import { createRestHandler, type RestHandler } from './rest/router.js';
import { createPageHandler } from './pages/router.js';
import { createRefusals } from './limits/refusals.js';
import { clientAddressOf, clientKeyOf, headOf, type RequestHead } from './http/request-head.js';
import { createCors } from './http/representation.js';
import { graphiql, GRAPHIQL_ASSETS_PATH } from './http/graphiql.js';
import { EVERY_ANSWER } from './http/security-headers.js';
import { restUrls } from './urls.js';
import { CdnPurger } from './webhooks/cdn-purge.js';
import { pruneDeliveriesPeriodically } from './webhooks/delivery-retention.js';
import type { RenderRecord } from './webhooks/bodies.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { dialectOf, SeriesMaintainer, UNFINISHED_SYNC_POLL_MS } from './graphql/events/series-sync.js';

export interface App {
  config: Config;
  db: Db;
  /** Statements sent to the database since start (only counted when asked for at creation). */
  queries: QueryCounter;
  logger: Logger;
  /**
   * Takes a request read on node:http, or refuses it (`refusal`): src/limits/admission.ts. Null for the health
   * check, which is never refused. The ticket is finished when the request's answer is ready.
   */
  admit(req: IncomingMessage): Ticket | null;
  /** Answers a refused request on node:http, with its log line. */
  refuse(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void;
  /** The subscribers (`changed`) told of committed changes. */
  changes: LiveChanges;
  /**
   * Shutting down: ends the open subscription streams (Server-Sent Events), which would otherwise keep the server from
   * closing, so that their clients reconnect elsewhere, and refuses new ones with a retryable answer.
   */
  closeStreams(): void;
  /** Stopping: `/readyz` answers 503 from now on, while requests are still served (see shutdown). */
  beginDraining(): void;
  /** The process's metrics, when METRICS_TOKEN or METRICS_PORT switch them on. */
  metrics: ServiceMetrics | undefined;
  /** A request's route, from its path, as metrics and traces name it (`rest /events/{id}`, `/graphql` …). */
  routeOf(path: string): string;
  /**
   * `socketAddress`: the peer's address, for the sign-in limits and fairness (see clientAddressOf); `ticket`: the
   * request's admission (`admit`), or none for a caller in this process, whose requests are taken as they come;
   * `hangUp` cuts the request's connection, for an event stream whose client does not read its end; `lookup` is the
   * request's look into the response cache when it was made on node:http (`answerFromCache`), else it is made here.
   */
  fetch(
    request: Request,
    socketAddress?: string,
    ticket?: Ticket,
    hangUp?: () => void,
    lookup?: CacheLookup,
  ): Promise<Response>;
  /**
   * Answers `req` from the response cache, before any Fetch Request is built (a GraphQL query by POST once its body is
   * read, which then goes on with `req`); resolves null when it did, else the request's lookup, for `fetch`.
   */
  answerFromCache(req: IncomingMessage, res: ServerResponse): Promise<CacheLookup | null>;
  close(): Promise<void>;
}

export interface AppOptions {
  countQueries?: boolean;
  /** Where log lines go; by default a logger at `config.logLevel` writing to stdout. */
  logger?: Logger;
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
  });

const noRoute = () =>
  json(
    {
      code: 'rest_no_route',
      message: 'No route was found matching the URL and request method.',
      data: { status: 404 },
    },
    404,
  );

function graphqlRefusal(refusal: SignInRefusal): Response {
  const message = signInRefusalMessage(refusal);
  if (refusal.refused === 'invalid')
    return json({ errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }] }, 401);
  return json(
    { errors: [{ message, extensions: { code: ErrorCode.rateLimited, retryAfter: refusal.retryAfter } }] },
    429,
    { 'retry-after': String(refusal.retryAfter) },
  );
}

/** The answer to a request past its deadline: 503, shaped as the API it was for (GraphQL or REST). */
function timeoutResponse(request: Request, deadline: Deadline): Response {
  const body = isGraphQL(request)
    ? {
        errors: [
          { message: new DeadlineExceededError(deadline.timeoutMs).message, extensions: { code: TIMEOUT_CODE } },
        ],
      }
    : RestError.of('rest_request_timeout', {}, deadline.timeoutMs).body();
  return json(body, 503, { 'cache-control': 'no-store' });
}

const isGraphQL = (request: Request) => new URL(request.url).pathname === GRAPHQL_PATH;

const GRAPHQL_PATH = '/graphql';

/** A preflight refused by CORS_ORIGINS, shaped as the API it was for. */
function corsRefusal(request: Request, origin: string): Response {
  const error = RestError.of('rest_cors_origin_not_allowed', {}, origin);
  if (isGraphQL(request)) return json({ errors: [{ message: error.message, extensions: { code: 'FORBIDDEN' } }] }, 403);
  return json(error.body(), error.status);
}

/**
 * The status logged for a request whose client hung up before its answer was ready (its signal aborted the work):
 * nothing failed on the server's side, and nobody receives the answer (nginx's 499, "client closed request").
 */
const CLIENT_CLOSED_REQUEST = 499;
/** List totals a process remembers (src/cache/tags.ts, RememberedCounts): a number and a key each. */
const REMEMBERED_COUNTS = 1000;
/** How often a SQLite process checks its planner's statistics (src/db/planner-statistics.ts). */
const SQLITE_STATISTICS_INTERVAL_MS = 3_600_000;
const hungUp = (request: Request, error: unknown) =>
  request.signal.aborted && error instanceof Error && error.name === 'AbortError';

/** An error thrown out of the router: logged on the request's line, answered as the API's 500 (which CORS lets a page read). */
function unexpectedAnswer(request: Request, requestLog: RequestLog, error: unknown): Response {
  if (hungUp(request, error)) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
  requestLog.unexpected(error);
  const restError = RestError.of('rest_internal_error');
  const body = isGraphQL(request)
    ? { errors: [{ message: restError.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }
    : restError.body();
  return json(body, 500, { 'cache-control': 'no-store' });
}

/** HEAD is answered as GET without the body (the headers, Content-Length and ETag included, are the same). */
const asGet = (request: Request) =>
  request.method === 'HEAD'
    ? new Request(request.url, { method: 'GET', headers: request.headers, signal: request.signal })
    : request;
const withoutBody = (response: Response) =>
  new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });

/** Answers with CORS headers: the APIs (and their errors); not GraphiQL's assets, nor the health check. */
const takesCors = (pathname: string) => !isProbePath(pathname) && !pathname.startsWith(GRAPHIQL_ASSETS_PATH);

/** Migrates the database and composes the one fetch handler: GraphQL, health, and the REST root. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  await migrate(config, { logger });
  const queries: QueryCounter = { count: 0 };
  // prom-client is loaded only when metrics are on; requests are labelled by routeLabel, defined with the routers.
  const metrics = config.metrics
    ? new (await import('./metrics/metrics.js')).ServiceMetrics((path) => routeLabel(path))
    : undefined;
  // The watch is told of this process's writes by the client it reads the version through: made together.
  let watch: DataVersionWatch | undefined;
  const db = createDb(config, {
    counter: options.countQueries ? queries : undefined,
    writeCommitted: () => watch?.writeCommitted(),
    sqliteCacheKiB: REQUESTS_CONNECTION_CACHE_KIB,
    statementTimer: metrics?.statementTimer('requests'),
  });
  await db.$queryRawUnsafe('SELECT 1');
  watch = await watchDataVersion(config, () => readDataVersion(db), logger);
  const dataVersion = () => watch.current();

  const notifier = new ChangeNotifier(
    db,
    dataVersion,
    config.changes.pollMs,
    (error) =>
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'change notifications: reading the change log failed; retrying',
      ),
    config.changes.subscriptionBacklog,
  );
  const changes = new LiveChanges(
    notifier,
    { perClient: config.changes.subscriptionsPerClient, perProcess: config.changes.subscriptionsPerProcess },
    (error) =>
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'change notifications: checking the credentials of open streams failed; retrying',
      ),
  );
  const stopPruning = pruneChangesPeriodically(
    db,
    config.changes.retentionDays,
    config.changes.pruneIntervalMs,
    logger,
  );
  const stopRefreshingStatistics =
    config.engine === 'sqlite'
      ? refreshSqliteStatisticsPeriodically(db, SQLITE_STATISTICS_INTERVAL_MS, logger)
      : () => {};
  // The background work (series upkeep, webhooks, CDN purges) shares a client of its own: its statements are not the
  // requests' (nor counted with them), and each Prisma client costs about 5 MB of resident memory.
  const helperDb = createDb(
    { ...config, databasePoolSize: 2 },
    { sqliteCacheKiB: HELPER_CONNECTION_CACHE_KIB, statementTimer: metrics?.statementTimer('helper') },
  );
  const series = new SeriesMaintainer(helperDb, dialectOf(config), logger, UNFINISHED_SYNC_POLL_MS);
  series.start();

  if (config.adminPassword) await bootstrapAdmin(db, config.adminPassword, logger);
  await credentialKey(db);
  await icalUidSuffix(db, config.siteUrl);
  await prepareChangeCursors(db);

  const signInLimiter = new SignInLimiter(config.signInLimits);
  // What writes made stale, from the change log: the response cache and the remembered list totals both ask it.
  const staleTags = new StaleTags(changeLogReader(db, config.engine));
  const counts = new RememberedCounts(REMEMBERED_COUNTS, staleTags);
  const contexts = new RequestContexts({ db, config, signInLimiter, dataVersion, series, counts });

  // Errors already on their request's log line, so that GraphQL Yoga's own error logging skips them.
  const reported = new WeakSet<object>();
  type YogaServerContext = {
    viewer: Viewer;
    requestLog: RequestLog;
    deadline: Deadline;
    passwordGuesses?: PasswordGuesses;
    facts?: AnswerFacts;
  } & Required<Pick<EventStreamContext, 'changes'>> &
    EventStreamContext;
  const yoga = createYoga<YogaServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: false, // served below, from this service's own assets (src/http/graphiql.ts)
    landingPage: false,
    cors: false, // decided for REST and GraphQL alike (createCors in src/http/representation.ts)
    logging: yogaLogger(logger, reported),
    plugins: [
      requestParamChecks(),
      documentBytesLimit(config.limits.graphql),
      persistedOperationsPlugin(config.persistedOperations, schema),
      reportUnexpectedErrors(reported),
      logErrorCodes(),
      eventStreamAnswers(),
      ...graphqlLimitPlugins(config.limits.graphql),
      ...(metrics ? [operationMetrics(metrics)] : []),
      tracedOperations(),
    ],
    maxRequestBodySize: config.limits.maxBodyBytes,
    parserAndValidationCache: documentCaches(config.limits.graphql.documentCacheBytes),
    context: ({ viewer, deadline, changes: stream, passwordGuesses, facts }) =>
      contexts.contextOf(viewer, { deadline, passwordGuesses, facts }, stream),
  });

  const responseCache = new ResponseCache(dataVersion, staleTags, config.responseCache, graphqlPostKeys(GRAPHQL_PATH));
  const cors = createCors(config.corsOrigins);
  const shedder = new LoadShedder(config.limits.maxInFlight, config.limits.maxEventLoopLagMs);
  const clientOf = (request: RequestHead, socketAddress: string | undefined) =>
    clientKeyOf(clientAddressOf(request, socketAddress, config.trustProxy));
  const pacing = config.engine === 'sqlite' ? new StartPacing() : new FairRunningLimit(config.databasePoolSize);
  // PostgreSQL: the health check has a connection of its own, so that it never waits behind requests for the pool.
  const healthDb = config.engine === 'postgres' ? createDb({ ...config, databasePoolSize: 1 }) : db;
  const browserIde = graphiql({ title: 'Calendar events service' });
  const graphqlAnswer = async (request: Request, requestLog: RequestLog, scope: RequestScope) => {
    const outcome = await contexts.signIn(request, scope);
    if (!('viewer' in outcome)) return graphqlRefusal(outcome);
    const stream = changes.forRequest({
      clientAddress: scope.clientAddress,
      signal: request.signal,
      lastEventId: request.headers.get('last-event-id'),
    });
    const { deadline, hangUp, passwordGuesses, facts } = scope;
    return yoga.fetch(request, {
      viewer: outcome.viewer,
      requestLog,
      deadline,
      changes: stream,
      hangUp,
      passwordGuesses,
      facts,
    });
  };
  // The probes: never cached by anyone (they tell of this moment), never shed, never CORS-decorated.
  const probeAnswer = (body: object, status = 200) => json(body, status, { 'cache-control': 'no-store' });
  const health = () => probeAnswer({ status: 'ok' });
  const migrations = migrationNames(config.engine);
  let draining = false;
  const ready = async () => {
    if (draining) return probeAnswer({ status: 'draining', reason: 'the process is stopping' }, 503);
    const missing = await unappliedMigrations(healthDb, config, migrations).catch(() => null);
    if (missing === null) return probeAnswer({ status: 'unavailable', reason: 'the database does not answer' }, 503);
    if (missing.length > 0)
      return probeAnswer({ status: 'unavailable', reason: `migrations not applied: ${missing.join(', ')}` }, 503);
    return probeAnswer({ status: 'ready' });
  };
  const rest = createRestHandler(config, contexts);
  const pages = createPageHandler(config, contexts);
  /** A request's route, from its logged path, as the metrics label it: a bounded set whatever the paths asked. */
  const routeLabel = (path: string): string => {
    if (path === GRAPHQL_PATH || path === HEALTH_PATH || path === READY_PATH || path === METRICS_PATH) return path;
    if (path.startsWith(GRAPHIQL_ASSETS_PATH)) return GRAPHIQL_ASSETS_PATH;
    // Appended, not resolved: a path starting with `//` would be read as a host.
    const url = new URL(`http://localhost${path}`);
    const target = rest.targetOf(url);
    if (target) return `rest ${rest.routeLabelOf(target)}`;
    const page = pages.routeOf(url);
    return page ? `page ${page.kind}` : 'unmatched';
  };
  // On the service's port only with a token; METRICS_PORT has a listener of its own (listen, below).
  const scrape =
    metrics && config.metrics?.port === undefined
      ? async (request: Request) => {
          const { status, headers, body } = await answerScrape(
            metrics,
            config.metrics?.token,
            request.headers.get('authorization'),
          );
          return new Response(body, { status, headers });
        }
      : undefined;
  /**
   * The one dispatch: itty-router's table, matched once per request in this order. REST and the pages share the last
   * route, which hands the face what it found in the path (the REST target, the page route). The APIs' and pages'
   * answers go through `cached`: the request's one look into the response cache.
   */
  type Cached = (compute: () => Promise<Response>) => Promise<Response>;
  const router = Router<IRequest, [log: RequestLog, scope: RequestScope, cached: Cached]>();
  router.get(GRAPHQL_PATH, (request) => browserIde.page(request));
  router.put(GRAPHQL_PATH, () => singleConnectionModeRefusal());
  router.all(GRAPHQL_PATH, (request, log, scope, cached) => cached(() => graphqlAnswer(request, log, scope)));
  router.all(`${GRAPHIQL_ASSETS_PATH}*`, (request) => browserIde.assets(request));
  router.get(HEALTH_PATH, health);
  router.get(READY_PATH, ready);
  if (scrape) router.get(METRICS_PATH, scrape);
  router.all('*', (request, log, scope, cached) => {
    const url = new URL(request.url);
    // REST before the pages: their paths never overlap, and a REST request then never looks at the pages' paths.
    const target = rest.targetOf(url);
    if (target) return cached(() => rest.answer(request, url, target, log, scope));
    const page = pages.routeOf(url);
    if (page) return cached(() => pages.answer(request, url, page, log, scope));
    return cached(async () => noRoute());
  });
  const dispatch = (request: Request, log: RequestLog, scope: RequestScope, cached: Cached): Promise<Response> =>
    router.fetch(request, log, scope, cached);
  const render = publicRecordRenderer(config, rest, logger);
  const dispatcher = new WebhookDispatcher(
    helperDb,
    config.webhooks,
    dataVersion,
    render,
    logger,
    rawTableName(config, 'WebhookDelivery'),
  );
  dispatcher.start();
  const purger = config.cdnPurge
    ? new CdnPurger(
        helperDb,
        changeLogReader(helperDb, config.engine),
        config.cdnPurge,
        config.webhooks,
        dataVersion,
        logger,
      )
    : undefined;
  purger?.start();
  const importSources = new SourceScheduler(helperDb, config, logger);
  importSources.start();
  if (metrics) measureParts(metrics, { db, helperDb, responseCache, changes, dispatcher });
  const writeRequestLine = requestLineWriter(logger, metrics?.observeRequest);
  const stopPruningDeliveries = pruneDeliveriesPeriodically(
    helperDb,
    config.webhooks.deliveryRetentionDays,
    config.changes.pruneIntervalMs,
    logger,
  );
  return {
    config,
    db,
    queries,
    logger,
    admit: (req) =>
      isProbePath((req.url ?? '').split('?')[0]!)
        ? null
        : shedder.admit(clientOf(headOf(req), req.socket.remoteAddress)),
    refuse: createRefusals(cors, writeRequestLine, refusalBody),
    answerFromCache: createCachedAnswers(responseCache, cors, writeRequestLine, config.limits.requestTimeoutMs),
    fetch: withRequestLog(
      logger,
      async (
        request,
        requestLog,
        socketAddress?: string,
        admitted?: Ticket,
        hangUp?: () => void,
        lookedUp?: CacheLookup,
      ) => {
        const { pathname } = new URL(request.url);
        const route = () => {
          const clientAddress = clientAddressOf(request, socketAddress, config.trustProxy);
          const passwordGuesses = new PasswordGuesses(signInLimiter, clientAddress);
          const scope: RequestScope = {
            deadline: new Deadline(config.limits.requestTimeoutMs),
            clientAddress,
            hangUp,
            passwordGuesses,
          };
          const routable = asGet(request);
          const cached = async (compute: () => Promise<Response>) =>
            (lookedUp ?? (await responseCache.lookUp(routable))).answer(routable, (facts) => {
              scope.facts = facts;
              return compute();
            });
          const routed = dispatch(routable, requestLog, scope, cached).finally(() => {
            passwordGuesses.settle();
            const refusal = scope.refusal ?? (passwordGuesses.refusedFor > 0 ? 'password_guesses' : undefined);
            if (refusal) requestLog.refused(refusal);
          });
          return scope.deadline.answer(routed, () => timeoutResponse(request, scope.deadline));
        };
        const serve = async () => {
          if (!takesCors(pathname)) return route();
          if (cors.isPreflight(request)) return cors.preflight(request, (origin) => corsRefusal(request, origin));
          return cors.decorate(
            request,
            await route().catch((error: unknown) => unexpectedAnswer(request, requestLog, error)),
          );
        };
        const headless = async () => (request.method === 'HEAD' ? withoutBody(await serve()) : serve());
        // The probes are never shed: they must tell a load balancer the process is alive (and ready) while it sheds.
        if (isProbePath(pathname)) return headless();
        const ticket = admitted ?? shedder.enter(clientOf(request, socketAddress));
        return pacing.run(headless, ticket.rank).finally(() => ticket.finish());
      },
      metrics?.observeRequest,
    ),
    changes,
    closeStreams: () => changes.drain(),
    beginDraining: () => {
      draining = true;
    },
    metrics,
    routeOf: routeLabel,
    close: async () => {
      changes.close();
      stopPruning();
      stopRefreshingStatistics();
      await Promise.all([
        series.close(),
        dispatcher.close(),
        purger?.close(),
        importSources.close(),
        stopPruningDeliveries(),
      ]);
      await helperDb.$disconnect();
      shedder.close();
      await watch.close();
      if (healthDb !== db) await healthDb.$disconnect();
      await db.$disconnect();
    },
  };
}

/** REST's path segment per change-log record type. */
const REST_COLLECTIONS: Record<string, string> = {
  event: 'events',
  venue: 'venues',
  organizer: 'organizers',
  category: 'categories',
  tag: 'tags',
};
/** Answers of a single read that mean the record is not (or no longer) there for an anonymous reader. */
const NOT_PUBLIC = new Set([401, 403, 404, 410]);

/**
 * A webhook's `data`: the record as the REST API answers an anonymous GET of it, through the same handler (no second
 * serializer), or null when the record is gone or not public. Any other answer is an error, and the attempt is retried.
 */
function publicRecordRenderer(config: Config, rest: RestHandler, logger: Logger): RenderRecord {
  const api = restUrls(config).api;
  const log: RequestLog = {
    id: 'webhooks',
    unexpected: (error) => logger.error({ err: error }, 'webhooks: rendering a record failed'),
    answeredWith: () => undefined,
    refused: () => undefined,
  };
  return async (recordType, recordId) => {
    const scope: RequestScope = { deadline: new Deadline(config.limits.requestTimeoutMs), clientAddress: '127.0.0.1' };
    const request = new Request(`${api}/${REST_COLLECTIONS[recordType]}/${recordId}`);
    const url = new URL(request.url);
    const target = rest.targetOf(url);
    if (!target) throw new Error(`${url.pathname} is not a REST path (REST_ROOT?)`);
    const response = await rest.answer(request, url, target, log, scope);
    if (response.status === 200) return response.json();
    if (NOT_PUBLIC.has(response.status)) return null;
    throw new Error(`the REST read of ${recordType} ${recordId} answered ${response.status}`);
  };
}

const refusalBody = (status: 429 | 503) =>
  RestError.of(status === 503 ? 'rest_service_overloaded' : 'rest_client_over_share').body();

/** Serves the app on node:http. Resolves once listening. */
export async function listen(app: App, port = app.config.port, host = app.config.host): Promise<Server> {
  const adapter = createServerAdapter<{
    req: IncomingMessage;
    res: ServerResponse;
    ticket?: Ticket;
    lookup?: CacheLookup;
  }>((request, { req, res, ticket, lookup }) =>
    app.fetch(request, req.socket.remoteAddress, ticket, () => void (res.writableFinished || res.destroy()), lookup),
  );
  // A request that is shed is answered here, before a Fetch Request is built for it: shedding must cost next to
  // nothing, or a flood of shed requests keeps the process as far behind as the flood it sheds. So is a response-cache
  // hit, for the same reason: the Fetch objects would cost more than the hit.
  const serve = (req: IncomingMessage, res: ServerResponse, ticket: Ticket | null, lookup?: CacheLookup) =>
    void Promise.resolve(adapter(req, res, { ...(ticket ? { ticket } : {}), lookup })).finally(() => ticket?.finish());
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    for (const [name, value] of Object.entries(EVERY_ANSWER)) res.setHeader(name, value);
    const ticket = app.admit(req);
    if (ticket?.refusal) {
      app.refuse(req, res, ticket.refusal);
      ticket.finish();
      return;
    }
    app.answerFromCache(req, res).then(
      (lookup) => (lookup ? serve(req, res, ticket, lookup) : ticket?.finish()),
      () => serve(req, res, ticket),
    );
  };
  const server = createServer((req, res) => {
    if (!tracingOn()) return answer(req, res);
    const path = (req.url ?? '/').split('?')[0]!;
    serverSpan(req.method ?? 'GET', path, req.headers, (finished) => {
      res.once('close', () => finished(res.statusCode, app.routeOf(loggedPathOfTarget(req.url ?? '/'))));
      answer(req, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { metrics } = app;
  const metricsPort = app.config.metrics?.port;
  if (metrics && metricsPort !== undefined) {
    const scrapes = await listenForScrapes(metrics, app.config.metrics?.token, metricsPort, host, METRICS_PATH);
    server.once('close', () => scrapes.close());
    const { port: bound } = scrapes.address() as AddressInfo;
    app.logger.info({ metricsPort: bound }, `Metrics for Prometheus on port ${bound}, path ${METRICS_PATH}`);
  }
  return server;
}

/** Stops accepting, lets in-flight requests finish, then closes the database. */
export async function shutdown(server: Server, app: App): Promise<void> {
  app.beginDraining();
  if (app.config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, app.config.shutdownDelayMs));
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    app.closeStreams();
    server.closeIdleConnections();
  });
  await app.close();
}
