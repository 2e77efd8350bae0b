import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-sse';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from './support/database.js';
import { freePort, rest, startInstance, stop, type Instance } from './support/processes.js';
import { startServer } from './support/server.js';

// Issue 25, point 3: `changed` streams across a graceful restart. The server a browser's EventSource and a graphql-sse
// client follow is stopped with SIGTERM while another process keeps writing; the streams end without `complete`, both
// clients reconnect by themselves (to the same port once the service is back, or through a proxy to the other
// process) and resume from the `id` of the last event they received (EventSource: Last-Event-ID; graphql-sse: the
// same header, from its `headers` function): every change arrives once, in commit order.

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const QUERY = 'subscription { changed(types: [ORGANIZER]) { type databaseId action cursor } }';
const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Told {
  databaseId: number;
  action: string;
  cursor: string;
}

/** Polls `test` every 50 ms for up to `ms`; fails with `describe()` when it never holds. */
async function until(test: () => boolean | Promise<boolean>, ms: number, describe: () => string) {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${describe()}`);
    await idle(50);
  }
}

/** A server of one empty page, of another origin than the service's (CORS_ORIGINS is `any` by default). */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) =>
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>follower</title>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A graphql-sse client (distinct connections, its default retries) resuming from the last cursor it received. */
function graphqlSseFollower(url: string) {
  const told: Told[] = [];
  const errors: unknown[] = [];
  let completed = false;
  let cursor: string | undefined;
  const client = createClient({
    url,
    headers: (): Record<string, string> => (cursor ? { 'last-event-id': cursor } : {}),
  });
  const unsubscribe = client.subscribe<{ changed: Told }>(
    { query: QUERY },
    {
      next: (result) => {
        if (result.errors) errors.push(result.errors);
        if (!result.data) return;
        told.push(result.data.changed);
        cursor = result.data.changed.cursor;
      },
      error: (error) => errors.push(error),
      complete: () => (completed = true),
    },
  );
  return {
    told,
    errors,
    get completed() {
      return completed;
    },
    close: () => {
      unsubscribe();
      client.dispose();
    },
  };
}

/** Chromium's EventSource on the page, following `url`; what it received is read from the page. */
async function eventSourceFollower(browser: Browser, pageOrigin: string, url: string) {
  const page: Page = await browser.newPage();
  await page.goto(`${pageOrigin}/`);
  await page.evaluate((url) => {
    const state = { told: [] as { data: unknown; lastEventId: string }[], closed: false, errors: 0, opens: 0 };
    (window as any).follower = state;
    const source = new EventSource(url);
    (window as any).source = source;
    source.addEventListener('open', () => state.opens++);
    source.addEventListener('next', (event) =>
      state.told.push({
        data: JSON.parse((event as MessageEvent).data),
        lastEventId: (event as MessageEvent).lastEventId,
      }),
    );
    source.addEventListener('error', () => {
      state.errors++;
      if (source.readyState === EventSource.CLOSED) state.closed = true;
    });
  }, url);
  const state = () =>
    page.evaluate(
      () =>
        (window as any).follower as {
          told: { data: any; lastEventId: string }[];
          closed: boolean;
          errors: number;
          opens: number;
        },
    );
  return {
    state,
    told: async (): Promise<Told[]> => (await state()).told.map((one) => one.data.data.changed as Told),
    close: () => page.close(),
  };
}

/** Writes organizers through `writer` one after another until stopped; answers their IDs in the order written. */
function keepWriting(writer: Instance) {
  const written: number[] = [];
  let stopped = false;
  const run = Date.now();
  const done = (async () => {
    for (let n = 0; !stopped; n++) {
      // Names of their own: an organizer named as an existing one is that one (no change).
      const created = await rest(writer, 'POST', '/organizers', { organizer: `Written while restarting ${run}-${n}` });
      expect(created.status).toBe(201);
      written.push(created.body.id);
      await idle(40);
    }
  })();
  return {
    written,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/**
 * A load balancer in front of several processes: each new connection goes to the first upstream that accepts it, so a
 * process that stopped listening (shutting down) gets none.
 */
async function failoverProxy(upstreams: () => number[]): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    const attempt = (ports: number[]) => {
      const [port, ...rest] = ports;
      if (port === undefined) return void client.destroy();
      const upstream = connect(port, '127.0.0.1');
      upstream.once('error', () => attempt(rest));
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        upstream.on('error', () => client.destroy());
        sockets.add(upstream);
        upstream.on('close', () => {
          sockets.delete(upstream);
          client.destroy();
        });
        client.on('close', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
      });
    };
    attempt(upstreams());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let dir: string;
let database: TestDatabase;
let writer: Instance;
let browser: Browser;
let page: { server: Server; origin: string };
const instances: Instance[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is needed at ${CHROMIUM}: apt-get install -y chromium (.ci/run installs it)`);
  dir = mkdtempSync(join(tmpdir(), 'calendar-restart-'));
  database = await freshDatabase(dir);
  // The first process migrates and creates the administrator; the writer is another process on the same database.
  writer = await startInstance(database.url);
  [browser, page] = await Promise.all([
    chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
    pageServer(),
  ]);
}, 120_000);

afterEach(async () => {
  for (const instance of instances.splice(0)) await stop(instance);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => page?.server.close(resolve));
  if (writer) await stop(writer);
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** What a follower must have been told: a creation of each organizer written, once, in the order written. */
const expected = (written: number[]) => written.map((databaseId) => ({ databaseId, action: 'CREATED' }));
const asTold = (told: Told[]) => told.map(({ databaseId, action }) => ({ databaseId, action }));

/**
 * Follows the service at `entry` with both clients while `writer` writes, restarts the service with `restart` (which
 * answers once the service takes streams again), writes on, and checks that each client was told every change once.
 */
async function followAcrossRestart(entry: string, restart: (written: readonly number[]) => Promise<void>) {
  const sse = graphqlSseFollower(`${entry}/graphql`);
  const source = await eventSourceFollower(browser, page.origin, `${entry}/graphql?query=${encodeURIComponent(QUERY)}`);
  try {
    // Both streams open before the first write (the first change tells that a stream is open).
    await until(
      async () => (await source.state()).opens === 1,
      10_000,
      () => 'EventSource did not open',
    );
    await idle(500);
    const writes = keepWriting(writer);
    await until(
      async () => sse.told.length >= 3 && (await source.told()).length >= 3,
      15_000,
      () => `before the restart: ${writes.written.length} written, ${sse.told.length} told`,
    );

    await restart(writes.written);
    const afterRestart = writes.written.length;
    await until(
      () => writes.written.length >= afterRestart + 5,
      15_000,
      () => 'the writer stalled',
    );
    await writes.stop();

    const all = expected(writes.written);
    await until(
      async () => sse.told.length >= all.length && (await source.told()).length >= all.length,
      60_000,
      () => `${all.length} written; graphql-sse told ${sse.told.length}, errors ${JSON.stringify(sse.errors)}`,
    );
    await idle(1500);
    expect(asTold(sse.told)).toEqual(all);
    expect(asTold(await source.told())).toEqual(all);
    expect(sse.errors).toEqual([]);
    expect(sse.completed).toBe(false);
    const state = await source.state();
    // The EventSource reconnected (it never gave up), and each event's id is the change's cursor.
    expect(state.closed).toBe(false);
    expect(state.opens).toBeGreaterThanOrEqual(2);
    expect(state.told.map((one) => one.lastEventId)).toEqual(state.told.map((one) => one.data.data.changed.cursor));
  } finally {
    sse.close();
    await source.close();
  }
}

describe('changed streams across a graceful restart (issue 25.3)', { timeout: 180_000 }, () => {
  it('a graphql-sse client and an EventSource told of every change once when the service restarts on its port with SIGTERM, while another process writes', async () => {
    const port = await freePort();
    instances.push(await startInstance(database.url, { PORT: String(port) }));
    const entry = `http://127.0.0.1:${port}`;
    await followAcrossRestart(entry, async (written) => {
      const before = written.length;
      expect(await stop(instances.pop()!)).toBe(0);
      instances.push(await startInstance(database.url, { PORT: String(port) }));
      // Changes were committed while no process served the port.
      expect(written.length).toBeGreaterThan(before);
    });
  });

  it('an EventSource whose process is shutting down keeps reconnecting, told to come back, rather than giving up for good', async () => {
    // A process that drains its streams but still takes requests on connections it already has (as behind a load
    // balancer that keeps its connections): EventSource would give up on a refusal (before: a 500).
    const own = await startServer();
    try {
      const source = await eventSourceFollower(
        browser,
        page.origin,
        `${own.url}/graphql?query=${encodeURIComponent(QUERY)}`,
      );
      await until(
        async () => (await source.state()).opens === 1,
        10_000,
        () => 'EventSource did not open',
      );
      own.app.closeStreams();
      await until(
        async () => (await source.state()).errors >= 3,
        15_000,
        () => 'EventSource did not come back',
      );
      const state = await source.state();
      expect(state.closed).toBe(false);
      expect(state.opens).toBeGreaterThanOrEqual(3);
      await source.close();
    } finally {
      await own.close();
    }
  });

  it('both told of every change once when they reach the service through a load balancer and one of its two processes stops with SIGTERM', async () => {
    const first = await startInstance(database.url);
    const second = await startInstance(database.url);

    instances.push(first, second);
    const portOf = (instance: Instance) => Number(new URL(instance.base).port);
    const proxy = await failoverProxy(() => [portOf(first), portOf(second)]);
    try {
      await followAcrossRestart(`http://127.0.0.1:${proxy.port}`, async () => {
        instances.splice(instances.indexOf(first), 1);
        expect(await stop(first)).toBe(0);
      });
    } finally {
      await proxy.close();
    }
  });
});
