/**
 * The process's Prometheus metrics (prom-client), when METRICS_TOKEN or METRICS_PORT switch them on
 * (docs/operations.md#metrics). What requests do is counted as they are answered; what other parts of the process
 * already count (the response cache, webhook attempts, open streams) and what the database holds (the change log,
 * the webhook queue) is read when Prometheus scrapes, so that it costs the requests nothing.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestLine } from '../logging/logger.js';

/** Request and operation durations: a cached hit takes well under a millisecond, a request times out at 10 s. */
const REQUEST_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** SQL statements: most take a fraction of a millisecond on SQLite. */
const STATEMENT_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/** GraphQL operation names come from clients: this many distinct ones are kept per process, later ones count as `other`. */
export const OPERATION_NAMES_KEPT = 100;
/** Error codes are this service's own, but an unexpected one is not kept past this many either. */
const ERROR_CODES_KEPT = 50;
const LONGEST_LABEL = 64;

/** A label whose values come from outside: the first `max` distinct values kept, the others `other`. */
export class BoundedLabel {
  readonly #seen = new Set<string>();
  constructor(private readonly max: number) {}

  of(value: string): string {
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.max || value.length > LONGEST_LABEL) return 'other';
    this.#seen.add(value);
    return value;
  }
}

/** One value read at scrape time, or several by label. */
type Reading = number | Array<{ labels: Record<string, string>; value: number }>;

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #operationNames = new BoundedLabel(OPERATION_NAMES_KEPT);
  readonly #errorCodes = new BoundedLabel(ERROR_CODES_KEPT);
  readonly #requests: Counter<'route' | 'method' | 'status'>;
  readonly #requestSeconds: Histogram<'route' | 'method'>;
  readonly #refused: Counter<'reason'>;
  readonly #graphqlErrors: Counter<'code'>;
  readonly #operations: Counter<'operation' | 'type' | 'outcome'>;
  readonly #operationSeconds: Histogram<'operation' | 'type'>;
  readonly #statementSeconds: Histogram<'client'>;

  /** `routeOf`: a request's route as a label, from its logged path (a bounded set: REST routes by pattern, …). */
  constructor(private readonly routeOf: (path: string) => string) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.#requests = new Counter({
      name: 'calendar_http_requests_total',
      help: 'Requests answered, by route (REST routes by pattern), method and status; refused ones included',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.#requestSeconds = new Histogram({
      name: 'calendar_http_request_duration_seconds',
      help: 'Time from a request being read to its answer being ready, by route and method',
      labelNames: ['route', 'method'],
      buckets: REQUEST_SECONDS,
      registers,
    });
    this.#refused = new Counter({
      name: 'calendar_requests_refused_total',
      help: 'Requests refused without being served: load shedding (client_over_share, overloaded) and sign-in limits (sign_in_failures, password_guesses)',
      labelNames: ['reason'],
      registers,
    });
    this.#graphqlErrors = new Counter({
      name: 'calendar_graphql_errors_total',
      help: 'Errors in answers, by their extensions.code (REST answers run GraphQL operations too)',
      labelNames: ['code'],
      registers,
    });
    this.#operations = new Counter({
      name: 'calendar_graphql_operations_total',
      help: `Operations executed for /graphql, by operation name (the first ${OPERATION_NAMES_KEPT} distinct names, then "other"; "anonymous" without one), type and outcome`,
      labelNames: ['operation', 'type', 'outcome'],
      registers,
    });
    this.#operationSeconds = new Histogram({
      name: 'calendar_graphql_operation_duration_seconds',
      help: 'Time executing an operation for /graphql (after parsing and validation), by operation name and type',
      labelNames: ['operation', 'type'],
      buckets: REQUEST_SECONDS,
      registers,
    });
    this.#statementSeconds = new Histogram({
      name: 'calendar_db_statement_duration_seconds',
      help: 'SQL statements, by client (requests; helper: series upkeep, webhooks, purges), waiting for the connection included',
      labelNames: ['client'],
      buckets: STATEMENT_SECONDS,
      registers,
    });
  }

  /** Counts an answered request (src/logging/logger.ts RequestObserver). */
  readonly observeRequest = (line: RequestLine): void => {
    const route = this.routeOf(line.path);
    this.#requests.inc({ route, method: line.method, status: line.status });
    this.#requestSeconds.observe({ route, method: line.method }, line.durationMs / 1000);
    if (line.reason) this.#refused.inc({ reason: line.reason });
    for (const code of line.errorCodes ?? []) this.#graphqlErrors.inc({ code: this.#errorCodes.of(code) });
  };

  observeOperation(name: string | undefined, type: string, seconds: number, failed: boolean): void {
    const operation = name ? this.#operationNames.of(name) : 'anonymous';
    this.#operations.inc({ operation, type, outcome: failed ? 'error' : 'ok' });
    this.#operationSeconds.observe({ operation, type }, seconds);
  }

  /** A statement timer for one database client (src/db/timed-statements.ts). */
  statementTimer(client: 'requests' | 'helper'): (seconds: number) => void {
    const histogram = this.#statementSeconds.labels({ client });
    return (seconds) => histogram.observe(seconds);
  }

  /** A gauge read at each scrape. */
  gauge(name: string, help: string, read: () => Reading | Promise<Reading>, labelNames: string[] = []): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        const reading = await read();
        this.reset();
        if (typeof reading === 'number') this.set(reading);
        else for (const { labels, value } of reading) this.set(labels, value);
      },
    });
  }

  /** A count kept elsewhere in the process (it only grows), read at each scrape. */
  counter(name: string, help: string, read: () => Reading, labelNames: string[] = []): void {
    new Counter({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        const reading = read();
        this.reset();
        if (typeof reading === 'number') this.inc(reading);
        else for (const { labels, value } of reading) this.inc(labels, value);
      },
    });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
