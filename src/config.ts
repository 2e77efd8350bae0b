// The settings, read from the environment, and the values they take. It imports nothing from src/: every other
// module may import it. The readers of values that requests also carry (time zone names, origins) live here, once.
import { availableParallelism } from 'node:os';
import ipaddr from 'ipaddr.js';
import { DateTime, IANAZone } from 'luxon';

export type Engine = 'sqlite' | 'postgres';

/**
 * SIGNIN_FAILURES_PER_ADDRESS, SIGNIN_FAILURES_PER_ADDRESS_AND_LOGIN, SIGNIN_FAILURES_PER_LOGIN (0: no limit) and
 * SIGNIN_WINDOW_MS.
 */
export interface SignInLimits {
  failuresPerAddress: number;
  failuresPerAddressAndLogin: number;
  failuresPerLogin: number;
  windowMs: number;
}

/** The site's currency (DEFAULT_CURRENCY_SYMBOL, DEFAULT_CURRENCY_POSITION), for costs that name none. */
export interface MetricsSettings {
  /** Scrapes must bear it (`Authorization: Bearer …`); none needed when unset (only with a port of their own). */
  token: string | undefined;
  /** A listener of their own (on HOST); unset: `/metrics` on the service's port. */
  port: number | undefined;
}

export interface SiteCurrency {
  symbol: string;
  position: 'prefix' | 'postfix';
}

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  engine: Engine;
  /** WORKERS: server processes sharing the port (`auto`: one per core); 1 serves in this process. */
  workers: number;
  /** DATABASE_POOL_SIZE: connections each process keeps to PostgreSQL (default 10), and requests it runs at once. */
  databasePoolSize: number;
  siteUrl: string;
  siteTimezone: string;
  restRoot: string;
  /** DEFAULT_CURRENCY_SYMBOL, DEFAULT_CURRENCY_POSITION: the currency of a cost whose event names none (TEC's defaults). */
  defaultCurrency: SiteCurrency;
  /** API_LICENSE: the SPDX identifier of the license /doc states for the API (OpenAPI `info.license`). */
  apiLicense: string;
  /** CALENDAR_ADMIN_PASSWORD: while no administrator has a credential, creates `admin` with this application password. */
  adminPassword: string | undefined;
  /** LOG_LEVEL: the least severe log level written (pino's levels, or `silent`). */
  logLevel: LogLevel;
  /**
   * SHUTDOWN_DELAY_MS: how long a stopping process goes on serving, `/readyz` answering 503, before it stops taking
   * connections and finishes those in flight: time for a load balancer to take it out of rotation (default 0).
   */
  shutdownDelayMs: number;
  /** METRICS_TOKEN, METRICS_PORT: Prometheus metrics at `/metrics`, off unless either is set (docs/operations.md#metrics). */
  metrics: MetricsSettings | undefined;
  limits: Limits;
  /** Failed sign-ins allowed per client address, per address and login, and per login in a window (src/auth/sign-in-limits.ts). */
  signInLimits: SignInLimits;
  /** TRUST_PROXY: the client address is the last one in X-Forwarded-For (added by a proxy in front) instead of the socket's. */
  trustProxy: boolean;
  /** CORS_ORIGINS: the origins whose pages may read REST and GraphQL answers (`any`, or a list; docs/limits-and-security.md). */
  corsOrigins: CorsOrigins;
  /**
   * RESPONSE_CACHE_MB (0: off): anonymous reads answered from memory (src/cache); RESPONSE_CACHE_TTL_MS: how long an
   * answer that read the clock, without saying when the clock changes it, is kept (docs/caching.md).
   */
  responseCache: {
    maxBytes: number;
    clockBoundMs: number;
    /**
     * CDN_MAX_AGE_SECONDS (0: none) and CDN_STALE_WHILE_REVALIDATE_SECONDS: Cache-Control's s-maxage and
     * stale-while-revalidate on the anonymous answers the response cache keeps, for a shared cache in front
     * (docs/caching.md, "A CDN or reverse proxy in front").
     */
    sharedCaches: { maxAgeSeconds: number; staleWhileRevalidateSeconds: number };
  };
  /** CDN_PURGE_URL and the rest: every change purges the tags it made stale from a shared cache in front (src/webhooks/cdn-purge.ts). */
  cdnPurge: CdnPurgeConfig | undefined;
  /** How a process learns that the data changed in another process (docs/performance.md; src/db/data-version.ts). */
  dataVersion: {
    /** DATA_VERSION_POLL_MS: PostgreSQL, while no LISTEN connection is up, the version is read this often. */
    pollMs: number;
    /** DATA_VERSION_LISTEN_URL: PostgreSQL, a direct connection for LISTEN when DATABASE_URL goes through a pooler. */
    listenUrl: string | undefined;
  };
  /** Images given by URL are fetched and checked (docs/stored-content.md, "Images given by URL"; src/images). */
  imageFetch: ImageFetchConfig;
  /** Fetching the iCalendar feeds of import sources (docs/import.md#import-sources). */
  feeds: FeedFetchConfig;
  /** Webhook deliveries (docs/sync-and-webhooks.md, "Webhooks"; src/webhooks). */
  webhooks: WebhookConfig;
  /** The change log behind `changes` and `changed` (docs/sync-and-webhooks.md; src/db/change-log.ts). */
  changes: {
    /** CHANGES_RETENTION_DAYS: changes (and so deletions) are kept this long; older cursors answer 410. */
    retentionDays: number;
    /** CHANGES_PRUNE_INTERVAL_MS: how often each process deletes what is past the retention. */
    pruneIntervalMs: number;
    /** CHANGES_POLL_MS: how often a process with `changed` subscribers asks whether the data version moved. */
    pollMs: number;
    /** SUBSCRIPTIONS_PER_CLIENT: open `changed` streams one client address may hold in a process (0: no limit). */
    subscriptionsPerClient: number;
    /** SUBSCRIPTIONS_PER_PROCESS: open `changed` streams a process holds in all (0: no limit). */
    subscriptionsPerProcess: number;
    /** SUBSCRIPTION_BACKLOG: changes a `changed` subscriber may leave untaken before its stream ends (0: no limit). */
    subscriptionBacklog: number;
  };
  /** RECURRENCE_HORIZON_DAYS: how far ahead of now a series' occurrences always exist (lists reaching further add more). */
  recurrenceHorizonDays: number;
  /** Persisted operations on /graphql (docs/graphql.md, "Persisted operations"; src/limits/persisted-operations.ts). */
  persistedOperations: {
    /** GRAPHQL_PERSISTED_ONLY: `true` runs registered operations only, sent by hash; any other document is refused. */
    only: boolean;
    /** GRAPHQL_PERSISTED_OPERATIONS_FILE: a JSON manifest `{ "<id>": "<document>" }` registered besides REST's own. */
    manifestFile: string | undefined;
    /** GRAPHQL_APQ_STORE_KB: memory for the documents clients registered by automatic persisted queries. */
    apqStoreBytes: number;
  };
}

/** What one request may ask of the service (docs/limits-and-security.md). */
export interface Limits {
  /** MAX_BODY_BYTES: largest request body, REST and GraphQL (413 beyond). */
  maxBodyBytes: number;
  /** REQUEST_TIMEOUT_MS: longest a request may take before it is answered with a timeout error; 0: no limit. */
  requestTimeoutMs: number;
  /** MAX_IN_FLIGHT: requests one process works on at once; more are answered 503 with Retry-After at once. 0: no limit. */
  maxInFlight: number;
  /** MAX_EVENT_LOOP_LAG_MS: while the event loop is this late, new requests are answered 503 with Retry-After. 0: off. */
  maxEventLoopLagMs: number;
  /** GraphQL documents sent to /graphql (REST's own operations are not limited). */
  graphql: {
    /** GRAPHQL_MAX_DEPTH: nesting of selections (a fragment spread counts as a level). */
    maxDepth: number;
    /** GRAPHQL_MAX_ALIASES: aliased fields in an operation. */
    maxAliases: number;
    /** GRAPHQL_MAX_DIRECTIVES: directives in an operation. */
    maxDirectives: number;
    /** GRAPHQL_MAX_TOKENS: lexical tokens in a document. */
    maxTokens: number;
    /** GRAPHQL_MAX_DOCUMENT_BYTES: a document's length in UTF-8 bytes, checked before anything reads it. */
    maxDocumentBytes: number;
    /** GRAPHQL_DOCUMENT_CACHE_KB: memory for parsed documents (and their validation) kept for reuse, in bytes. */
    documentCacheBytes: number;
    /** GRAPHQL_MAX_COST: the estimated cost, about the fields an answer can hold (src/limits/cost.ts, docs/limits-and-security.md). */
    maxCost: number;
    /** GRAPHQL_MAX_RESPONSE_FIELDS: fields an answer may grow to while it is built (counted at each list). */
    maxResponseFields: number;
    /** GRAPHQL_INTROSPECTION: `false` refuses `__schema` and `__type` (and hides field suggestions). */
    introspection: boolean;
  };
}

/**
 * The private and local network addresses the service may connect to besides public ones: all, none, or these
 * addresses and CIDR ranges (src/net/outbound-addresses.ts).
 */
export type PrivateAddresses = 'all' | 'none' | string[];

export interface ImageFetchConfig {
  /** IMAGE_FETCH_TIMEOUT_MS: longest a fetch may take, redirects and body included. */
  timeoutMs: number;
  /** IMAGE_FETCH_MAX_BYTES: largest image body; a longer one is refused as soon as it passes this. */
  maxBytes: number;
  /** IMAGE_FETCH_ALLOW_PRIVATE, else OUTBOUND_ALLOW_PRIVATE: the private addresses images may be fetched from. */
  allowPrivate: PrivateAddresses;
}

export interface FeedFetchConfig {
  /** FEED_FETCH_TIMEOUT_MS: longest a feed's fetch may take, redirects and body included. */
  timeoutMs: number;
  /** FEED_MAX_BYTES: largest feed; a longer one is refused as soon as it passes this. */
  maxBytes: number;
  /** OUTBOUND_ALLOW_PRIVATE: the private addresses a feed may be fetched from. */
  allowPrivate: PrivateAddresses;
  /** FEED_CHECK_MS: how often the server looks for import sources due to run. */
  checkEveryMs: number;
}

export interface WebhookConfig {
  /**
   * WEBHOOKS_ALLOW_PRIVATE (`1`: all), else OUTBOUND_ALLOW_PRIVATE: the loopback, private and other non-public
   * addresses webhook URLs may point at.
   */
  allowPrivate: PrivateAddresses;
  /** WEBHOOK_TIMEOUT_MS: an attempt that has no answer by then failed (and is retried). */
  timeoutMs: number;
  /** WEBHOOK_RETRY_BASE_MS: the delay before the first retry; each later one doubles it, with jitter. */
  retryBaseMs: number;
  /** WEBHOOK_RETRY_MAX_MS: the longest delay between two attempts. */
  retryMaxMs: number;
  /** WEBHOOK_RETRY_FOR_MS: a delivery still failing this long after its first attempt is marked failed. */
  retryForMs: number;
  /** WEBHOOK_DISABLE_AFTER_MS: a webhook no attempt to which succeeded for this long is disabled (at least retryForMs). */
  disableAfterMs: number;
  /** WEBHOOK_LEASE_MS: how long the dispatching process's lease lasts unless renewed (another takes over after it). */
  leaseMs: number;
  /** WEBHOOK_WAKE_MS: how often the dispatcher asks the data version watch for changes and looks for due retries. */
  wakeMs: number;
  /** WEBHOOK_CONCURRENCY: delivery attempts in flight at once, all webhooks together. */
  concurrency: number;
  /** WEBHOOK_CONCURRENCY_PER_WEBHOOK: delivery attempts in flight at once to one webhook. */
  concurrencyPerWebhook: number;
  /** WEBHOOK_DELIVERY_RETENTION_DAYS: delivered and failed deliveries are deleted this long after they were queued. */
  deliveryRetentionDays: number;
}

/** How a shared cache in front is purged (docs/caching.md, "A CDN or reverse proxy in front"). */
export interface CdnPurgeConfig {
  /** CDN_PURGE_URL: where purge requests go. */
  url: string;
  /**
   * CDN_PURGE_STYLE: `ban` sends `BAN` with the tags in a space-separated Surrogate-Key header (the Varnish
   * configuration in deploy/varnish/); `json` POSTs `{"tags": [...]}` (Cloudflare's purge by tag, or a relay).
   */
  style: 'ban' | 'json';
  /** CDN_PURGE_HEADER: one `Name: value` header sent with every purge request (a token the CDN asks for). */
  header: [string, string] | undefined;
  /** CDN_PURGE_TIMEOUT_MS: a purge request that has no answer by then failed (and is retried). */
  timeoutMs: number;
  /** CDN_PURGE_RETRY_MAX_MS: failed purges are retried after 1 s, doubling up to this delay, until one succeeds. */
  retryMaxMs: number;
  /**
   * CDN_PURGE_REPEAT_MS (0: never): each purge is sent again this long after it succeeded, for answers computed before
   * the write and stored by the shared cache after the first purge (processes that learnt of the write late).
   */
  repeatAfterMs: number;
}

export class ConfigError extends Error {}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Env = Record<string, string | undefined>;

function readPort(env: Env): number {
  const raw = env.PORT ?? '4000';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new ConfigError(`PORT must be a port number (0-65535), got "${raw}"`);
  return port;
}

/** The shortest METRICS_TOKEN taken: a bearer token anyone can try from the network must not be guessable. */
const SHORTEST_METRICS_TOKEN = 16;

function readMetrics(env: Env, port: number, workers: number): MetricsSettings | undefined {
  const token = env.METRICS_TOKEN || undefined;
  const rawPort = env.METRICS_PORT || undefined;
  if (token === undefined && rawPort === undefined) return undefined;
  if (token !== undefined && token.length < SHORTEST_METRICS_TOKEN)
    throw new ConfigError(`METRICS_TOKEN must be at least ${SHORTEST_METRICS_TOKEN} characters long`);
  const metricsPort = rawPort === undefined ? undefined : Number(rawPort);
  if (rawPort !== undefined && (!/^\d+$/.test(rawPort) || metricsPort! > 65535))
    throw new ConfigError(`METRICS_PORT must be a port number (0-65535), got "${rawPort}"`);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port)
    throw new ConfigError(`METRICS_PORT must differ from PORT (${port}); leave it unset to serve /metrics on PORT`);
  if (workers > 1)
    throw new ConfigError(
      'metrics (METRICS_TOKEN, METRICS_PORT) count one process: with WORKERS > 1 each worker would answer for itself; run WORKERS=1 processes and scrape each',
    );
  return { token, port: metricsPort };
}

function readWorkers(env: Env): number {
  const raw = env.WORKERS ?? '1';
  if (raw === 'auto') return availableParallelism();
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 256)
    throw new ConfigError(`WORKERS must be "auto" or a whole number from 1 to 256, got "${raw}"`);
  return Number(raw);
}

function readPoolSize(env: Env): number {
  const raw = env.DATABASE_POOL_SIZE ?? '10';
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000)
    throw new ConfigError(`DATABASE_POOL_SIZE must be a whole number from 1 to 1000, got "${raw}"`);
  return Number(raw);
}

function readLogLevel(env: Env): LogLevel {
  const raw = env.LOG_LEVEL ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(raw))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw as LogLevel;
}

function readWholeNumber(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name] ?? String(fallback);
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < min)
    throw new ConfigError(`${name} must be a whole number of at least ${min}, got "${raw}"`);
  return Number(raw);
}

function readSwitch(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name] ?? String(fallback);
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  return raw === 'true';
}

function readLimits(env: Env): Limits {
  return {
    maxBodyBytes: readWholeNumber(env, 'MAX_BODY_BYTES', 1_048_576, 1),
    requestTimeoutMs: readWholeNumber(env, 'REQUEST_TIMEOUT_MS', 30_000, 0),
    maxInFlight: readWholeNumber(env, 'MAX_IN_FLIGHT', 64, 0),
    maxEventLoopLagMs: readWholeNumber(env, 'MAX_EVENT_LOOP_LAG_MS', 1000, 0),
    graphql: {
      maxDepth: readWholeNumber(env, 'GRAPHQL_MAX_DEPTH', 15, 1),
      maxAliases: readWholeNumber(env, 'GRAPHQL_MAX_ALIASES', 100, 0),
      maxDirectives: readWholeNumber(env, 'GRAPHQL_MAX_DIRECTIVES', 50, 0),
      maxTokens: readWholeNumber(env, 'GRAPHQL_MAX_TOKENS', 5_000, 1),
      maxDocumentBytes: readWholeNumber(env, 'GRAPHQL_MAX_DOCUMENT_BYTES', 131_072, 1),
      documentCacheBytes: readWholeNumber(env, 'GRAPHQL_DOCUMENT_CACHE_KB', 16_384, 0) * 1024,
      maxCost: readWholeNumber(env, 'GRAPHQL_MAX_COST', 100_000, 1),
      maxResponseFields: readWholeNumber(env, 'GRAPHQL_MAX_RESPONSE_FIELDS', 200_000, 1),
      introspection: readSwitch(env, 'GRAPHQL_INTROSPECTION', true),
    },
  };
}

function readCorsOrigins(env: Env): CorsOrigins {
  const origins = parseCorsOrigins(env.CORS_ORIGINS ?? 'any');
  if (typeof origins === 'object' && 'invalid' in origins)
    throw new ConfigError(
      `CORS_ORIGINS must be "any" or a comma-separated list of origins such as "https://example.com", got "${origins.invalid}"`,
    );
  return origins;
}

/** OUTBOUND_ALLOW_PRIVATE or IMAGE_FETCH_ALLOW_PRIVATE: `true`, `false`, or addresses and CIDR ranges. */
function readPrivateAddresses(env: Env, name: string): PrivateAddresses | undefined {
  const given = env[name];
  if (given === undefined) return undefined;
  const raw = given.trim();
  if (raw === 'true') return 'all';
  if (raw === 'false' || raw === '') return 'none';
  const ranges = raw.split(',').map((range) => range.trim());
  const bad = ranges.find((range) => !isAddressRange(range));
  if (bad !== undefined)
    throw new ConfigError(
      `${name} must be true, false or a comma-separated list of addresses or CIDR ranges such as "10.1.0.0/16", got "${bad}"`,
    );
  return ranges;
}

/** Every outgoing request's private addresses, OUTBOUND_ALLOW_PRIVATE (none by default). */
const outboundAllowPrivate = (env: Env): PrivateAddresses =>
  readPrivateAddresses(env, 'OUTBOUND_ALLOW_PRIVATE') ?? 'none';

function engineOf(url: string): Engine {
  if (url.startsWith('file:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  throw new ConfigError(`DATABASE_URL must start with file: (SQLite) or postgres:// (PostgreSQL), got "${url}"`);
}

function readSiteUrl(env: Env, port: number): string {
  const raw = env.SITE_URL ?? `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`SITE_URL must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`SITE_URL must use http or https, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

function readRestRoot(env: Env): string {
  const raw = env.REST_ROOT ?? 'wp-json';
  const trimmed = raw.replace(/^\/+|\/+$/g, '');
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(trimmed))
    throw new ConfigError(`REST_ROOT must be a path such as "wp-json", got "${raw}"`);
  return trimmed;
}

const PURGE_STYLES = ['ban', 'json'] as const;

function readCdnPurge(env: Env): CdnPurgeConfig | undefined {
  const url = env.CDN_PURGE_URL?.trim();
  if (!url) return undefined;
  if (!/^https?:\/\/[^/\s]+/.test(url)) throw new ConfigError(`CDN_PURGE_URL must be an http(s) URL, got "${url}"`);
  const style = env.CDN_PURGE_STYLE ?? 'ban';
  if (!(PURGE_STYLES as readonly string[]).includes(style))
    throw new ConfigError(`CDN_PURGE_STYLE must be one of ${PURGE_STYLES.join(', ')}, got "${style}"`);
  const rawHeader = env.CDN_PURGE_HEADER?.trim();
  const header = rawHeader ? /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(rawHeader) : null;
  // The value may be a secret: never repeated in the error.
  if (rawHeader && !header) throw new ConfigError('CDN_PURGE_HEADER must be one header, as "Name: value"');
  const retryMaxMs = readWholeNumber(env, 'CDN_PURGE_RETRY_MAX_MS', 60_000, 1000);
  return {
    url,
    style: style as CdnPurgeConfig['style'],
    header: header ? [header[1]!, header[2]!] : undefined,
    timeoutMs: readWholeNumber(env, 'CDN_PURGE_TIMEOUT_MS', 10_000, 1),
    retryMaxMs,
    repeatAfterMs: readWholeNumber(env, 'CDN_PURGE_REPEAT_MS', 2000, 0),
  };
}

function readWebhookConfig(env: Env): WebhookConfig {
  const allow = env.WEBHOOKS_ALLOW_PRIVATE;
  if (allow !== undefined && !['0', '1', 'true', 'false'].includes(allow))
    throw new ConfigError(`WEBHOOKS_ALLOW_PRIVATE must be 1 or 0, got "${allow}"`);
  const allowPrivate: PrivateAddresses =
    allow === undefined ? outboundAllowPrivate(env) : allow === '1' || allow === 'true' ? 'all' : 'none';
  const retryBaseMs = readWholeNumber(env, 'WEBHOOK_RETRY_BASE_MS', 10_000, 1);
  const retryForMs = readWholeNumber(env, 'WEBHOOK_RETRY_FOR_MS', 24 * 60 * 60 * 1000, 0);
  return {
    allowPrivate,
    timeoutMs: readWholeNumber(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1),
    retryBaseMs,
    retryMaxMs: readWholeNumber(env, 'WEBHOOK_RETRY_MAX_MS', 60 * 60 * 1000, retryBaseMs),
    retryForMs,
    disableAfterMs: readWholeNumber(env, 'WEBHOOK_DISABLE_AFTER_MS', 7 * 24 * 60 * 60 * 1000, retryForMs),
    leaseMs: readWholeNumber(env, 'WEBHOOK_LEASE_MS', 15_000, 100),
    wakeMs: readWholeNumber(env, 'WEBHOOK_WAKE_MS', 100, 10),
    concurrency: readWholeNumber(env, 'WEBHOOK_CONCURRENCY', 16, 1),
    concurrencyPerWebhook: readWholeNumber(env, 'WEBHOOK_CONCURRENCY_PER_WEBHOOK', 4, 1),
    deliveryRetentionDays: readWholeNumber(env, 'WEBHOOK_DELIVERY_RETENTION_DAYS', 7, 1),
  };
}

/** TEC's defaults: `$` before the amount. */
function readDefaultCurrency(env: Env): SiteCurrency {
  const symbol = env.DEFAULT_CURRENCY_SYMBOL ?? '$';
  if (symbol.length > 10 || /[\d\s]/.test(symbol))
    throw new ConfigError(`DEFAULT_CURRENCY_SYMBOL must be a short symbol without digits or spaces, got "${symbol}"`);
  const position = env.DEFAULT_CURRENCY_POSITION ?? 'prefix';
  if (position !== 'prefix' && position !== 'postfix')
    throw new ConfigError(`DEFAULT_CURRENCY_POSITION must be prefix or postfix, got "${position}"`);
  return { symbol, position };
}

/**
 * An SPDX license identifier (`CC-BY-4.0`, `GPL-2.0-or-later`, `LicenseRef-…` for terms of one's own). The default
 * is the license of The Events Calendar, whose REST API v1 this service answers.
 */
function readApiLicense(env: Env): string {
  const raw = env.API_LICENSE ?? 'GPL-2.0-or-later';
  if (!/^[A-Za-z0-9.+-]+$/.test(raw))
    throw new ConfigError(`API_LICENSE must be an SPDX license identifier such as "CC-BY-4.0", got "${raw}"`);
  return raw;
}

/** Reads the environment into a typed configuration; throws ConfigError with a one-line reason when it is wrong. */
export function loadConfig(env: Env = process.env): Config {
  const port = readPort(env);
  const databaseUrl = env.DATABASE_URL ?? 'file:./data/calendar.db';
  const siteTimezone = canonicalTimeZone(env.SITE_TIMEZONE ?? 'UTC');
  if (!siteTimezone)
    throw new ConfigError(
      `SITE_TIMEZONE must be an IANA time zone such as "Europe/Berlin", got "${env.SITE_TIMEZONE}"`,
    );
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    databaseUrl,
    engine: engineOf(databaseUrl),
    databasePoolSize: readPoolSize(env),
    workers: readWorkers(env),
    siteUrl: readSiteUrl(env, port),
    siteTimezone,
    restRoot: readRestRoot(env),
    apiLicense: readApiLicense(env),
    defaultCurrency: readDefaultCurrency(env),
    adminPassword: env.CALENDAR_ADMIN_PASSWORD || undefined,
    logLevel: readLogLevel(env),
    shutdownDelayMs: readWholeNumber(env, 'SHUTDOWN_DELAY_MS', 0, 0),
    metrics: readMetrics(env, port, readWorkers(env)),
    limits: readLimits(env),
    signInLimits: {
      failuresPerAddress: readWholeNumber(env, 'SIGNIN_FAILURES_PER_ADDRESS', 30, 0),
      failuresPerAddressAndLogin: readWholeNumber(env, 'SIGNIN_FAILURES_PER_ADDRESS_AND_LOGIN', 5, 0),
      failuresPerLogin: readWholeNumber(env, 'SIGNIN_FAILURES_PER_LOGIN', 10, 0),
      windowMs: readWholeNumber(env, 'SIGNIN_WINDOW_MS', 15 * 60 * 1000, 1),
    },
    trustProxy: readSwitch(env, 'TRUST_PROXY', false),
    corsOrigins: readCorsOrigins(env),
    responseCache: {
      maxBytes: readWholeNumber(env, 'RESPONSE_CACHE_MB', 32, 0) * 1024 * 1024,
      clockBoundMs: readWholeNumber(env, 'RESPONSE_CACHE_TTL_MS', 1000, 1),
      sharedCaches: {
        maxAgeSeconds: readWholeNumber(env, 'CDN_MAX_AGE_SECONDS', 3600, 0),
        staleWhileRevalidateSeconds: readWholeNumber(env, 'CDN_STALE_WHILE_REVALIDATE_SECONDS', 30, 0),
      },
    },
    cdnPurge: readCdnPurge(env),
    changes: {
      retentionDays: readWholeNumber(env, 'CHANGES_RETENTION_DAYS', 30, 1),
      pruneIntervalMs: readWholeNumber(env, 'CHANGES_PRUNE_INTERVAL_MS', 3_600_000, 1000),
      pollMs: readWholeNumber(env, 'CHANGES_POLL_MS', 100, 10),
      subscriptionsPerClient: readWholeNumber(env, 'SUBSCRIPTIONS_PER_CLIENT', 20, 0),
      subscriptionsPerProcess: readWholeNumber(env, 'SUBSCRIPTIONS_PER_PROCESS', 1000, 0),
      subscriptionBacklog: readWholeNumber(env, 'SUBSCRIPTION_BACKLOG', 10_000, 0),
    },
    dataVersion: {
      pollMs: readWholeNumber(env, 'DATA_VERSION_POLL_MS', 1000, 1),
      listenUrl: env.DATA_VERSION_LISTEN_URL || undefined,
    },
    imageFetch: {
      timeoutMs: readWholeNumber(env, 'IMAGE_FETCH_TIMEOUT_MS', 10_000, 1),
      maxBytes: readWholeNumber(env, 'IMAGE_FETCH_MAX_BYTES', 10 * 1024 * 1024, 1),
      allowPrivate: readPrivateAddresses(env, 'IMAGE_FETCH_ALLOW_PRIVATE') ?? outboundAllowPrivate(env),
    },
    feeds: {
      timeoutMs: readWholeNumber(env, 'FEED_FETCH_TIMEOUT_MS', 30_000, 1),
      maxBytes: readWholeNumber(env, 'FEED_MAX_BYTES', 10 * 1024 * 1024, 1),
      allowPrivate: outboundAllowPrivate(env),
      checkEveryMs: readWholeNumber(env, 'FEED_CHECK_MS', 30_000, 100),
    },
    webhooks: readWebhookConfig(env),
    recurrenceHorizonDays: readWholeNumber(env, 'RECURRENCE_HORIZON_DAYS', 730, 1),
    persistedOperations: {
      only: readSwitch(env, 'GRAPHQL_PERSISTED_ONLY', false),
      manifestFile: env.GRAPHQL_PERSISTED_OPERATIONS_FILE || undefined,
      apqStoreBytes: readWholeNumber(env, 'GRAPHQL_APQ_STORE_KB', 4096, 1) * 1024,
    },
  };
}

// Time zone names: SITE_TIMEZONE, an event's `timezone`, a feed's TZID.

let ianaSpellings: Map<string, string> | undefined;

/** Zone names as ICU lists them, by their lower-case form. */
function ianaSpelling(zone: string): string | undefined {
  ianaSpellings ??= new Map(Intl.supportedValuesOf('timeZone').map((name) => [name.toLowerCase(), name]));
  return ianaSpellings.get(zone.toLowerCase());
}

/**
 * A zone's name as it is stored, or null when it names no zone. Zones are IANA zones (`Europe/Berlin`) or fixed
 * offsets the way WordPress writes them (`UTC+2`, `UTC-5:30`), at most ±14:00. IANA names in their own spelling (`europe/berlin` →
 * `Europe/Berlin`, `utc` → `UTC`), offsets as `UTC+2`. Links that ICU does not list (`Asia/Kolkata`, `US/Eastern`)
 * keep the name sent: ICU's canonical form of a link can be an older name (`Asia/Calcutta`), so it is not used.
 */
export function canonicalTimeZone(zone: string): string | null {
  const offset = /^UTC([+-])(\d{1,2})(?::([0-5]\d))?$/i.exec(zone);
  if (offset) {
    const minutes = Number(offset[2]) * 60 + Number(offset[3] ?? 0);
    const name = `UTC${zone.slice(3)}`;
    return minutes <= 14 * 60 && DateTime.now().setZone(name).isValid ? name : null;
  }
  if (!IANAZone.isValidZone(zone)) return null;
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  if (resolved.toLowerCase() === zone.toLowerCase()) return resolved;
  return ianaSpelling(zone) ?? zone;
}

// Web origins (`scheme://host[:port]`): the CORS_ORIGINS setting that lists them, and the Origin header.

/** CORS_ORIGINS: `any`, or the exact origins (`scheme://host[:port]`) whose pages may read the APIs' answers. */
export type CorsOrigins = 'any' | readonly string[];

/** `scheme://host[:port]` as a browser serializes an origin: no path, query, user information or trailing slash. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(?:\[[0-9a-f:.]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?$/i;

/** The Origin header's value when it is a well-formed origin (`null` and anything else are not). */
export function wellFormedOrigin(value: string | null): string | null {
  if (value === null || value.length > 512) return null;
  const match = ORIGIN.exec(value);
  if (!match || (match[1] !== undefined && Number(match[1]) > 65535)) return null;
  return value;
}

/** Reads CORS_ORIGINS: `any` (the default) or a comma-separated list of origins; `invalid` names an entry that is not one. */
export function parseCorsOrigins(raw: string): CorsOrigins | { invalid: string } {
  if (raw.trim() === 'any') return 'any';
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  const invalid = origins.find((origin) => wellFormedOrigin(origin) === null);
  return invalid === undefined && origins.length ? origins : { invalid: invalid ?? raw };
}

/** An address or CIDR range as IMAGE_FETCH_ALLOW_PRIVATE lists them (`10.1.0.0/16`, `127.0.0.1`, `fd00::/8`). */
export function isAddressRange(text: string): boolean {
  // Written out in full only: ipaddr.js would also read `1` or `10.1` as IPv4 addresses (as inet_aton does).
  const [address = '', bits] = text.split('/');
  const written =
    ipaddr.IPv4.isValidFourPartDecimal(address) || (address.includes(':') && ipaddr.IPv6.isValid(address));
  return written && (bits === undefined ? true : ipaddr.isValidCIDR(text));
}
