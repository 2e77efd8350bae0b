import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, TEST_ENGINE, type TestDatabase } from './support/database.js';
import { freePort, PROCESS_ADMIN_PASSWORD, rest, startInstance, stop, type Instance } from './support/processes.js';
import { basicAuthorization } from './support/server.js';
import { CHANGED, subscribe, type Stream } from './support/sse.js';

// Debian's Prometheus scrapes the compiled server's METRICS_PORT with the METRICS_TOKEN (issue 30, point 1), and
// PromQL queries over what it stored show the requests, operations, refusals, cache, statements, change log,
// webhook queue and stream this test caused. A second job with a wrong token is refused (up == 0).

const TOKEN = 'metrics-token-for-the-prometheus-test';
const API = '/wp-json/calendar/events/v1';
const dir = mkdtempSync(join(tmpdir(), 'calendar-prometheus-'));
let database: TestDatabase;
let server: Instance;
let prometheus: ChildProcess;
let prometheusUrl: string;
let stream: Stream | undefined;

const graphql = (query: string, authorization?: string) =>
  fetch(`${server.base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ query }),
  }).then((response) => response.json() as Promise<{ data?: unknown; errors?: unknown[] }>);

async function startPrometheus(metricsPort: number): Promise<void> {
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global: { scrape_interval: 1s, scrape_timeout: 900ms }',
      'scrape_configs:',
      '  - job_name: calendar',
      `    authorization: { type: Bearer, credentials: ${TOKEN} }`,
      `    static_configs: [{ targets: ['127.0.0.1:${metricsPort}'] }]`,
      '  - job_name: calendar-wrong-token',
      '    authorization: { type: Bearer, credentials: not-the-metrics-token-at-all }',
      `    static_configs: [{ targets: ['127.0.0.1:${metricsPort}'] }]`,
      '',
    ].join('\n'),
  );
  prometheus = spawn(
    'prometheus',
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: 'ignore' },
  );
  prometheusUrl = `http://127.0.0.1:${port}`;
}

/** A PromQL instant query's samples: label sets and values. */
async function query(promql: string): Promise<Array<{ metric: Record<string, string>; value: number }>> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as {
    status: string;
    data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
  };
  expect(body.status).toBe('success');
  return body.data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
}

/** Asks `promql` until its single value satisfies `holds` (a scrape after the traffic may take a few seconds). */
async function eventually(promql: string, holds: (value: number) => boolean): Promise<number> {
  let last: number | undefined;
  for (let attempt = 0; attempt < 60; attempt++) {
    const samples = await query(promql).catch(() => []);
    last = samples.length === 1 ? samples[0]!.value : undefined;
    if (last !== undefined && holds(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${promql} never held; last value ${last}`);
}

beforeAll(async () => {
  database = await freshDatabase(dir);
  const metricsPort = await freePort();
  server = await startInstance(database.url, {
    METRICS_PORT: String(metricsPort),
    METRICS_TOKEN: TOKEN,
    SIGNIN_FAILURES_PER_ADDRESS: '2',
    WEBHOOKS_ALLOW_PRIVATE: '1',
  });
  await startPrometheus(metricsPort);
}, 120_000);

afterAll(async () => {
  stream?.close();
  prometheus?.kill();
  if (server) await stop(server);
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe(`Prometheus scraping the metrics (${TEST_ENGINE})`, () => {
  it('stores what requests, operations, refusals, the cache, statements, the change log, webhooks and streams did', async () => {
    const created = await rest(server, 'POST', '/events', {
      title: 'Measured',
      start_date: '2027-06-01 10:00:00',
      end_date: '2027-06-01 11:00:00',
    });
    expect(created.status).toBe(201);
    for (let n = 0; n < 3; n++) expect((await rest(server, 'GET', '/events')).status).toBe(200);
    expect((await rest(server, 'GET', `/events/${created.body.id}`)).status).toBe(200);
    expect((await graphql('query MeasuredUpcoming { events(first: 2) { nodes { title } } }')).errors).toBeUndefined();
    expect((await graphql('query MeasuredBroken { event(id: "nonsense") { title } }')).errors).toBeDefined();
    // A webhook to a port nothing listens on: its delivery fails and stays queued.
    const webhook = await graphql(
      `mutation { createWebhook(input: { url: "http://127.0.0.1:${await freePort()}/hook" }) { secret } }`,
      basicAuthorization('admin', PROCESS_ADMIN_PASSWORD),
    );
    expect(webhook.errors).toBeUndefined();
    expect(
      (
        await rest(server, 'POST', '/events', {
          title: 'Queued for the webhook',
          start_date: '2027-06-02 10:00:00',
          end_date: '2027-06-02 11:00:00',
        })
      ).status,
    ).toBe(201);
    const wrong = basicAuthorization('admin', 'not the password');
    const statuses = [];
    for (let n = 0; n < 4; n++)
      statuses.push((await fetch(`${server.base}${API}/events`, { headers: { authorization: wrong } })).status);
    expect(statuses.slice(-1)).toEqual([429]);
    stream = await subscribe(server.base, CHANGED);
    expect(stream.status).toBe(200);

    await eventually('up{job="calendar"}', (value) => value === 1);
    await eventually('up{job="calendar-wrong-token"}', (value) => value === 0);
    await eventually(
      'calendar_http_requests_total{job="calendar",route="rest /events",method="GET",status="200"}',
      (value) => value >= 3,
    );
    await eventually(
      'calendar_http_requests_total{route="rest /events/{id}",method="GET",status="200"}',
      (v) => v >= 1,
    );
    await eventually('calendar_http_requests_total{route="rest /events",status="401"}', (v) => v >= 1);
    await eventually('sum(calendar_http_request_duration_seconds_count{route="/graphql"})', (v) => v >= 3);
    await eventually(
      'histogram_quantile(0.5, sum by (le) (calendar_http_request_duration_seconds_bucket{route="rest /events"}))',
      (v) => v > 0 && v <= 10,
    );
    await eventually(
      'calendar_graphql_operations_total{operation="MeasuredUpcoming",type="query",outcome="ok"}',
      (v) => v === 1,
    );
    await eventually('calendar_graphql_operations_total{operation="MeasuredBroken",outcome="error"}', (v) => v === 1);
    await eventually('sum(calendar_graphql_errors_total)', (v) => v >= 1);
    await eventually('calendar_requests_refused_total{reason="sign_in_failures"}', (v) => v >= 1);
    await eventually('calendar_response_cache_hits_total', (v) => v >= 2);
    await eventually('calendar_response_cache_misses_total', (v) => v >= 1);
    await eventually('calendar_response_cache_entries', (v) => v >= 1);
    await eventually('calendar_db_statement_duration_seconds_count{client="requests"}', (v) => v > 0);
    await eventually('calendar_db_statement_duration_seconds_count{client="helper"}', (v) => v > 0);
    await eventually('calendar_change_log_entries', (v) => v >= 2);
    await eventually('calendar_subscription_streams', (v) => v === 1);
    await eventually('calendar_webhook_attempts_total{outcome="failed"}', (v) => v >= 1);
    await eventually('sum(calendar_webhook_deliveries_queued)', (v) => v >= 1);
    await eventually('calendar_webhook_oldest_queued_delivery_age_seconds', (v) => v > 0);
    await eventually('process_resident_memory_bytes{job="calendar"}', (v) => v > 10_000_000);
    await eventually('nodejs_heap_size_used_bytes{job="calendar"}', (v) => v > 0);
    await eventually('nodejs_eventloop_lag_seconds{job="calendar"}', (v) => v >= 0);
    if (TEST_ENGINE === 'postgres')
      await eventually('sum(calendar_db_pool_connections{state!="waiting"})', (v) => v >= 1);

    // METRICS_PORT set: the service's own port has no /metrics, with or without the token.
    const onServicePort = await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(onServicePort.status).toBe(404);
  }, 120_000);
});
