/**
 * The load generator: autocannon, driven from code. A scenario is a list of requests each connection cycles through
 * (several event IDs, say); the result is throughput, latency percentiles and every kind of failure.
 *
 * Latencies are recorded here from autocannon's per-response times (fractional milliseconds, every response), not
 * from its own histogram, which keeps whole milliseconds of 2xx responses only.
 */
import autocannon from 'autocannon';

export interface LoadRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  /** Base URL, `http://127.0.0.1:4000`. */
  url: string;
  connections: number;
  /** Seconds measured. */
  duration: number;
  /**
   * Seconds of load before the measured part, in the same run (the connections stay open and busy; responses that
   * complete during the warm-up are not counted). Default 0.
   */
  warmup?: number;
  requests: LoadRequest[];
  /** Seconds before a request counts as timed out (and as an error). */
  timeout?: number;
  /** The status every response should have (default 200); others are counted as unexpected. */
  expectStatus?: number;
}

export interface LoadResult {
  connections: number;
  /** Responses received. */
  requests: number;
  /** Seconds measured (after the warm-up). */
  duration: number;
  /** Responses per second. */
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Connection errors and timeouts (autocannon counts timeouts as errors). */
  errors: number;
  timeouts: number;
  /** Responses with a status other than 2xx. */
  non2xx: number;
  /** Responses with a status other than the expected one (warm-up included): any fails the scenario. */
  unexpected: number;
  /** Responses by status (warm-up included). */
  statuses: Record<string, number>;
  /** Average response size in bytes (headers and body). */
  bytesPerResponse: number;
  /** Throughputs of every run of a scenario measured more than once (bench/run.ts, PAIRED_SCENARIOS): this is the median. */
  samples?: number[];
}

/** The value at percentile `p` (0–100) of ascending `sorted`, nearest rank. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** Runs one load test and resolves with its numbers. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let bytes = 0;
  const statuses: Record<string, number> = {};
  const expected = options.expectStatus ?? 200;
  const warmup = options.warmup ?? 0;
  const measureFrom = performance.now() + warmup * 1000;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: 1,
        duration: warmup + options.duration,
        timeout: options.timeout ?? 30,
        requests: options.requests.map((request) => ({
          method: request.method ?? 'GET',
          path: request.path,
          ...(request.headers ? { headers: request.headers } : {}),
          ...(request.body !== undefined ? { body: request.body } : {}),
        })),
      },
      (error, result) => {
        if (error) return reject(error);
        latencies.sort((a, b) => a - b);
        const duration = Math.max(0, (performance.now() - measureFrom) / 1000);
        resolve({
          connections: options.connections,
          requests: latencies.length,
          duration,
          rps: duration > 0 ? latencies.length / duration : 0,
          p50: percentile(latencies, 50),
          p90: percentile(latencies, 90),
          p99: percentile(latencies, 99),
          max: latencies.length ? latencies[latencies.length - 1]! : Number.NaN,
          errors: result.errors,
          timeouts: result.timeouts,
          non2xx: result.non2xx,
          unexpected: Object.entries(statuses).reduce(
            (sum, [status, count]) => sum + (Number(status) === expected ? 0 : count),
            0,
          ),
          statuses,
          bytesPerResponse: latencies.length ? Math.round(bytes / latencies.length) : 0,
        });
      },
    );
    instance.on('response', (_client: unknown, status: number, responseBytes: number, responseTime: number) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (performance.now() < measureFrom) return;
      latencies.push(responseTime);
      bytes += responseBytes;
    });
  });
}
