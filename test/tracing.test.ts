import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracingWanted } from '../src/tracing/tracing.js';
import { freshDatabase, TEST_ENGINE, type TestDatabase } from './support/database.js';
import { rest, startInstance, stop, type Instance } from './support/processes.js';

// OpenTelemetry traces (issue 30, point 2): the compiled server, with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local
// OTLP/HTTP receiver (this test), sends the spans of one REST request nested as it ran: the server span, continuing
// the caller's W3C trace, then the GraphQL operation REST ran in process, then that operation's SQL statements.

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

const dir = mkdtempSync(join(tmpdir(), 'calendar-tracing-'));
const received: ReceivedSpan[] = [];
const requests: Array<{ path: string; contentType: string | undefined }> = [];
let collector: Server;
let database: TestDatabase;
let server: Instance;

/** OTLP/JSON carries IDs as hex (the spec) — or base64 from some encoders; hex either way here. */
const hex = (id: string | undefined) =>
  !id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');

function attributeValue(value: Record<string, unknown>): unknown {
  return value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
}

function startCollector(): Promise<number> {
  collector = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] });
      const payload = JSON.parse(body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, any>> }> }>;
      };
      for (const { scopeSpans } of payload.resourceSpans)
        for (const { spans } of scopeSpans)
          for (const span of spans)
            received.push({
              traceId: hex(span.traceId),
              spanId: hex(span.spanId),
              parentSpanId: hex(span.parentSpanId),
              name: span.name,
              kind: span.kind,
              attributes: Object.fromEntries(
                (span.attributes ?? []).map((a: { key: string; value: Record<string, unknown> }) => [
                  a.key,
                  attributeValue(a.value),
                ]),
              ),
            });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    collector.listen(0, '127.0.0.1', () => resolve((collector.address() as AddressInfo).port)),
  );
}

beforeAll(async () => {
  const port = await startCollector();
  database = await freshDatabase(dir);
  server = await startInstance(database.url, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: 'calendar-under-test',
  });
}, 60_000);

afterAll(async () => {
  if (server) await stop(server);
  collector?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function spansOfTrace(traceId: string, holds: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const spans = received.filter((span) => span.traceId === traceId);
    if (holds(spans)) return spans;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the spans of trace ${traceId} never came: ${JSON.stringify(received.map((s) => s.name))}`);
}

describe(`traces over OTLP/HTTP (${TEST_ENGINE})`, () => {
  it('nests a REST request: server span (the caller’s trace) → GraphQL operation → SQL statements', async () => {
    const created = await rest(server, 'POST', '/events', {
      title: 'Traced',
      start_date: '2027-07-01 10:00:00',
      end_date: '2027-07-01 11:00:00',
    });
    expect(created.status).toBe(201);

    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpanId = '00f067aa0ba902b7';
    const response = await fetch(`${server.base}/wp-json/calendar/events/v1/events/${created.body.id}`, {
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
    });
    expect(response.status).toBe(200);

    const spans = await spansOfTrace(traceId, (all) => all.some((span) => span.kind === 2) && all.length >= 3);
    const serverSpan = spans.find((span) => span.kind === 2)!;
    expect(serverSpan.name).toBe('GET rest /events/{id}');
    expect(serverSpan.parentSpanId).toBe(callerSpanId);
    expect(serverSpan.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': 'rest /events/{id}',
      'url.path': `/wp-json/calendar/events/v1/events/${created.body.id}`,
    });
    expect(Number(serverSpan.attributes['http.response.status_code'])).toBe(200);

    const operations = spans.filter(
      (span) => span.parentSpanId === serverSpan.spanId && span.name.startsWith('graphql '),
    );
    expect(operations.map((span) => span.name)).toEqual([expect.stringMatching(/^graphql query \w+$/)]);
    const operation = operations[0]!;
    expect(operation.attributes['graphql.operation.type']).toBe('query');

    const statements = spans.filter((span) => span.parentSpanId === operation.spanId);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.name).toBe('SELECT');
      expect(statement.attributes['db.system.name']).toBe(TEST_ENGINE === 'sqlite' ? 'sqlite' : 'postgresql');
      expect(String(statement.attributes['db.query.text'])).toMatch(/^\s*SELECT /);
    }
    // Every span of the request belongs below its server span: nothing of it started a trace of its own.
    const ids = new Set(spans.map((span) => span.spanId));
    for (const span of spans) if (span !== serverSpan) expect(ids.has(span.parentSpanId)).toBe(true);
    expect(
      requests.every((request) => request.path === '/v1/traces' && request.contentType === 'application/json'),
    ).toBe(true);
  });

  it('nests a /graphql request the same way: server span → the named operation → its statements', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const response = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-b7ad6b7169203331-01` },
      body: JSON.stringify({ query: 'query TracedEvents { events(first: 3) { nodes { title } } }' }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { errors?: unknown }).errors).toBeUndefined();
    const spans = await spansOfTrace(traceId, (all) => all.some((span) => span.kind === 2) && all.length >= 3);
    const serverSpan = spans.find((span) => span.kind === 2)!;
    expect(serverSpan.name).toBe('POST /graphql');
    const operation = spans.find((span) => span.parentSpanId === serverSpan.spanId)!;
    expect(operation.name).toBe('graphql query TracedEvents');
    expect(operation.attributes['graphql.operation.name']).toBe('TracedEvents');
    expect(spans.filter((span) => span.parentSpanId === operation.spanId).length).toBeGreaterThan(0);
  });

  it('names the span of a target that is no URL relative to the site, and keeps serving', async () => {
    const port = Number(new URL(server.base).port);
    const status = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(answer.slice(9, 12)));
      socket.end(
        'GET //[ HTTP/1.1\r\nHost: x\r\ntraceparent: 00-11111111111111111111111111111111-2222222222222222-01\r\nConnection: close\r\n\r\n',
      );
    });
    expect(status).toBe('404');
    const [span] = await spansOfTrace('11111111111111111111111111111111', (all) => all.some((s) => s.kind === 2));
    expect(span!.name).toBe('GET unmatched');
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
  });

  it('is on only when an OTLP endpoint is set, and off when the SDK is disabled', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(
      false,
    );
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(
      false,
    );
  });
});
