import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPeople, type People, type ViewerName } from './auth-fixtures.js';
import { freshDatabase, TEST_ENGINE, TEST_POSTGRES_URL, type TestDatabase } from './support/database.js';
import { PROCESS_ADMIN_PASSWORD, runCommand, startInstance, stop, type Instance } from './support/processes.js';
import { ADMIN_AUTHORIZATION, basicAuthorization, startServer, type TestServer } from './support/server.js';
import { CHANGED, subscribe, type Change, type Stream, type SubscribeOptions } from './support/sse.js';

// Regression tests for issue 24, row 4: one anonymous client opened 3,000 `changed` subscriptions over Server-Sent
// Events, all accepted (3,028 file descriptors), and each change then cost one visibility query per subscriber on the
// main thread: writes took up to 6.3 s, /healthz up to 3.4 s, a list timed out. Streams are now limited per client
// address and per process (SUBSCRIPTIONS_PER_CLIENT, SUBSCRIPTIONS_PER_PROCESS: 20 and 1,000 by default), and a
// change's visibility is checked once per visibility class, whatever the number of subscribers in it.

const API = '/wp-json/calendar/events/v1';
const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const forwardedFor = (address: string) => ({ 'x-forwarded-for': address });

/** Runs `count` calls of `task`, `concurrency` at a time. */
async function inWaves<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += concurrency) {
    results.push(
      ...(await Promise.all(Array.from({ length: Math.min(concurrency, count - start) }, (_, k) => task(start + k)))),
    );
  }
  return results;
}

/** Every stream the tests opened, to hang up whatever happened. */
const held: Stream[] = [];
const hangUpAll = () => held.splice(0).forEach((stream) => stream.close());

/** Subscribes (see subscribe), holding the stream for hangUpAll. */
async function open(base: string, query = CHANGED, options: SubscribeOptions = {}): Promise<Stream> {
  const stream = await subscribe(base, query, options);
  held.push(stream);
  return stream;
}

const SHED = new Set(['RATE_LIMITED', 'SERVICE_OVERLOADED']);

/**
 * Opens `count` streams from `address` (X-Forwarded-For), each expected to be accepted. A stream refused by load
 * shedding (the server busy with the test's own burst of clients) is asked again after its Retry-After, as
 * graphql-sse does.
 */
async function openFrom(
  base: string,
  address: string,
  count: number,
  query = CHANGED,
  authorization?: string,
): Promise<Stream[]> {
  const openOne = async (): Promise<Stream> => {
    for (let attempt = 1; ; attempt++) {
      const stream = await open(base, query, { authorization, headers: forwardedFor(address) });
      if (stream.status === 200) return stream;
      await stream.ended;
      if (!SHED.has(String(stream.errors[0]?.extensions?.code)) || attempt === 10) return stream;
      await idle(Number(stream.headers.get('retry-after') ?? 1) * 1000);
    }
  };
  const streams = await inWaves(count, 25, openOne);
  expect(streams.map((stream) => stream.status)).toEqual(Array(count).fill(200));
  return streams;
}

/** A REST write as `authorization` (the administrator by default), answering the record's ID. */
async function write(base: string, route: string, body: unknown, authorization = ADMIN_AUTHORIZATION): Promise<number> {
  const response = await fetch(`${base}${API}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify(body),
  });
  const created = (await response.json()) as { id: number };
  expect(response.status, JSON.stringify(created)).toBe(201);
  return created.id;
}

const isChangeOf = (type: string, id: number) => (change: Change) => change.type === type && change.databaseId === id;

/** Resolves once every stream received the change of that record. */
const allReceived = (streams: Stream[], type: string, id: number, ms = 20_000) =>
  Promise.all(streams.map((stream) => stream.waitFor(isChangeOf(type, id), ms)));

/** How a subscription was answered: status, Retry-After and, once a refusal's body is read, its error's extensions. */
async function answerOf(stream: Stream) {
  if (stream.status !== 200) await stream.ended;
  return { status: stream.status, retryAfter: stream.headers.get('retry-after'), error: stream.errors[0]?.extensions };
}

interface Slowest {
  write: number;
  health: number;
  read: number;
}

/**
 * Makes `writes` organizers one after another while a second client reads a list and asks /healthz every 50 ms, all
 * from a process of its own (test/support/latency-probe.mjs); answers the IDs written and the slowest answer of each.
 */
async function writeWhileReading(
  base: string,
  writes: number,
  authorization: string,
): Promise<{ ids: number[]; slowest: Slowest }> {
  const run = await runCommand(
    process.execPath,
    ['test/support/latency-probe.mjs', base, String(writes), authorization],
    {},
  );
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { ids: number[]; slowest: Slowest };
}

/**
 * Generous bounds for a loaded 2-core machine: the issue measured writes of 6.3 s and /healthz of 3.4 s; here, with a
 * load average of 14 on 2 cores, the slowest were about 1.2 s (a write, whose scrypt check is slow on purpose) and 0.5 s.
 */
const BOUNDS_MS: Slowest = { write: 3000, health: 2000, read: 3000 };

/** File descriptors a process holds (Linux). */
const descriptorsOf = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

describe('one client opening 3,000 subscriptions, against a compiled server with the default limits (24.4)', () => {
  let dir: string;
  let database: TestDatabase;
  let instance: Instance;
  const admin = basicAuthorization('admin', PROCESS_ADMIN_PASSWORD);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-subscriptions-'));
    database = await freshDatabase(dir);
    // As deployed (production mode: GraphQL Yoga pings a stream every 12 s, not every 300 ms as under test), behind a
    // proxy that says who the client is, so that one test can be many clients.
    instance = await startInstance(database.url, { NODE_ENV: 'production', TRUST_PROXY: 'true' });
  }, 120_000);

  afterAll(async () => {
    hangUpAll();
    if (instance) await stop(instance);
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts 20 of 3,000 from one address and refuses the rest at once, while writes, /healthz and reads stay fast', {
    timeout: 180_000,
  }, async () => {
    const pid = instance.child.pid!;
    const before = descriptorsOf(pid);
    // Fewer at once than MAX_IN_FLIGHT, so that load shedding does not answer in the limit's place.
    const answers = await inWaves(3000, 25, () => open(instance.base));
    const accepted = answers.filter((stream) => stream.status === 200);
    expect(accepted).toHaveLength(20);
    const refusals = await Promise.all(answers.filter((stream) => stream.status !== 200).map(answerOf));
    const byLimit = refusals.filter((refusal) => refusal.status === 429);
    expect(byLimit.length).toBeGreaterThan(2900);
    for (const refusal of byLimit) {
      expect(refusal).toEqual({
        status: 429,
        retryAfter: '10',
        error: { code: 'TOO_MANY_SUBSCRIPTIONS', scope: 'client', limit: 20, retryAfter: 10 },
      });
    }
    // Any other refusal is load shedding's (503 SERVICE_OVERLOADED), never an accepted stream.
    for (const refusal of refusals.filter((one) => one.status !== 429))
      expect(refusal).toMatchObject({ status: 503, error: { code: 'SERVICE_OVERLOADED' } });
    expect(descriptorsOf(pid) - before).toBeLessThan(100);

    const { ids, slowest } = await writeWhileReading(instance.base, 10, admin);
    for (const id of ids) await allReceived(accepted, 'ORGANIZER', id);
    expect(slowest.write).toBeLessThan(BOUNDS_MS.write);
    expect(slowest.health).toBeLessThan(BOUNDS_MS.health);
    expect(slowest.read).toBeLessThan(BOUNDS_MS.read);
  });

  it('holds 1,000 from many addresses, refuses the next with 503, and tells each of them every change while writes, /healthz and reads stay fast', {
    timeout: 240_000,
  }, async () => {
    // The first test's 20 streams are still open; more addresses of 20 each make 1,000.
    const everyone = held.filter((stream) => stream.status === 200);
    for (let client = 1; everyone.length < 1000; client++) {
      everyone.push(...(await openFrom(instance.base, `198.51.100.${client}`, Math.min(20, 1000 - everyone.length))));
    }
    const past = await open(instance.base, CHANGED, { headers: forwardedFor('198.51.100.200') });
    expect(await answerOf(past)).toEqual({
      status: 503,
      retryAfter: '10',
      error: { code: 'TOO_MANY_SUBSCRIPTIONS', scope: 'process', limit: 1000, retryAfter: 10 },
    });
    expect(past.errors[0]?.message).toMatch(/SUBSCRIPTIONS_PER_PROCESS/);

    const { ids, slowest } = await writeWhileReading(instance.base, 5, admin);
    for (const id of ids) await allReceived(everyone, 'ORGANIZER', id, 30_000);
    for (const stream of everyone) {
      for (const id of ids)
        expect(stream.received.filter((one) => isChangeOf('ORGANIZER', id)(one.change))).toHaveLength(1);
    }
    expect(slowest.write).toBeLessThan(BOUNDS_MS.write);
    expect(slowest.health).toBeLessThan(BOUNDS_MS.health);
    expect(slowest.read).toBeLessThan(BOUNDS_MS.read);

    // A stream that ends gives its place back at once.
    everyone.pop()!.close();
    let again: Stream | undefined;
    for (let attempt = 0; attempt < 50 && again?.status !== 200; attempt++) {
      if (again) await idle(20);
      again = await open(instance.base, CHANGED, { headers: forwardedFor('198.51.100.200') });
    }
    expect(again!.status).toBe(200);
  });
});

describe('limits and the visibility work per change, counted in process (24.4)', () => {
  let server: TestServer;
  let writer: Instance;
  let people: People;
  const PER_CLIENT = 150;
  const PER_PROCESS = 320;

  beforeAll(async () => {
    server = await startServer({
      TRUST_PROXY: 'true',
      SUBSCRIPTIONS_PER_CLIENT: String(PER_CLIENT),
      SUBSCRIPTIONS_PER_PROCESS: String(PER_PROCESS),
    });
    people = await createPeople(server, 'live');
    // Writes come from another server process on the same database: the statements this one counts are its own
    // reading of the change log and the visibility checks of its subscribers.
    writer = await startInstance(server.databaseUrl);
  }, 120_000);

  const sockets: Socket[] = [];
  afterEach(async () => {
    hangUpAll();
    for (const socket of sockets.splice(0)) socket.destroy();
    await streamsHeld(0);
  });

  afterAll(async () => {
    if (writer) await stop(writer);
    await server?.close();
  });

  const as = (viewer: ViewerName) => people.actors[viewer].authorization ?? undefined;

  /** Waits until the server holds `count` streams. */
  async function streamsHeld(count: number) {
    for (let i = 0; i < 250 && server.app.changes.subscriberCount !== count; i++) await idle(20);
    expect(server.app.changes.subscriberCount).toBe(count);
  }

  /** A subscription sent over a raw socket from `address`; `opened` resolves once its stream is open. */
  function rawSubscription(address: string) {
    const body = JSON.stringify({ query: CHANGED });
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    sockets.push(socket);
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n` +
        `X-Forwarded-For: ${address}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const opened = new Promise<void>((resolve, reject) => {
      let head = '';
      socket.on('data', (chunk) => {
        head += chunk;
        if (!head.includes('\r\n\r\n')) return;
        if (head.startsWith('HTTP/1.1 200')) resolve();
        else reject(new Error(`not opened: ${head.slice(0, 200)}`));
      });
      socket.on('close', () => reject(new Error('closed before the stream opened')));
      socket.on('error', () => undefined);
    });
    return { socket, opened };
  }

  /**
   * PostgreSQL's statements wait on the network, so a client can hang up while its subscription is being made: here
   * another connection locks the change log, a client hangs up while the server waits on it, then the lock goes.
   */
  async function hangUpWhileTheChangeLogIsLocked() {
    const lock = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await lock.connect();
    try {
      await lock.query(`SET search_path TO "${new URL(server.databaseUrl).searchParams.get('schema')}"`);
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE "Change" IN ACCESS EXCLUSIVE MODE');
      const { socket, opened } = rawSubscription('192.0.2.3');
      opened.catch(() => undefined);
      const waiting = async () =>
        (
          await lock.query(
            `SELECT count(*)::int AS n FROM pg_locks WHERE relation = '"Change"'::regclass AND NOT granted`,
          )
        ).rows[0].n as number;
      for (let i = 0; i < 250 && (await waiting()) === 0; i++) await idle(20);
      expect(await waiting()).toBeGreaterThan(0);
      socket.destroy();
      await idle(200);
    } finally {
      await lock.query('COMMIT');
      await lock.end();
    }
  }

  it('refuses a client past its limit with 429 and the process past its limit with 503, and gives a place back the moment a stream ends', {
    timeout: 120_000,
  }, async () => {
    const first = await openFrom(server.url, '192.0.2.1', PER_CLIENT);
    const past = await open(server.url, CHANGED, { headers: forwardedFor('192.0.2.1') });
    expect(await answerOf(past)).toEqual({
      status: 429,
      retryAfter: '10',
      error: { code: 'TOO_MANY_SUBSCRIPTIONS', scope: 'client', limit: PER_CLIENT, retryAfter: 10 },
    });
    expect(past.errors[0]?.message).toMatch(/SUBSCRIPTIONS_PER_CLIENT/);
    // Signed in or not, a client is its address.
    const signedIn = await open(server.url, CHANGED, {
      authorization: ADMIN_AUTHORIZATION,
      headers: forwardedFor('192.0.2.1'),
    });
    expect(signedIn.status).toBe(429);

    await openFrom(server.url, '192.0.2.2', PER_CLIENT);
    const third = await openFrom(server.url, '192.0.2.3', PER_PROCESS - 2 * PER_CLIENT);
    await streamsHeld(PER_PROCESS);
    const full = await open(server.url, CHANGED, { headers: forwardedFor('192.0.2.4') });
    expect(await answerOf(full)).toEqual({
      status: 503,
      retryAfter: '10',
      error: { code: 'TOO_MANY_SUBSCRIPTIONS', scope: 'process', limit: PER_PROCESS, retryAfter: 10 },
    });

    // A hang-up gives the place back at once: to the client, and to the process.
    first.pop()!.close();
    await streamsHeld(PER_PROCESS - 1);
    const replacement = await open(server.url, CHANGED, { headers: forwardedFor('192.0.2.1') });
    expect(replacement.status).toBe(200);

    // So does a socket half-closed by its client (it sent FIN and only reads).
    first.pop()!.close();
    await streamsHeld(PER_PROCESS - 1);
    const halfClosed = rawSubscription('192.0.2.1');
    await halfClosed.opened;
    await streamsHeld(PER_PROCESS);
    halfClosed.socket.end();
    await streamsHeld(PER_PROCESS - 1);
    const afterHalfClose = await open(server.url, CHANGED, { headers: forwardedFor('192.0.2.1') });
    expect(afterHalfClose.status).toBe(200);

    // And clients that hang up while subscribing, or as their stream opens, leave no place taken.
    for (const stream of third) stream.close();
    await streamsHeld(2 * PER_CLIENT);
    await Promise.all(
      Array.from({ length: 60 }, async (_, n) => {
        const { socket, opened } = rawSubscription('192.0.2.3');
        opened.catch(() => undefined);
        await (n % 3 === 0 ? opened.catch(() => undefined) : idle(n % 3 === 1 ? 0 : 5));
        socket.destroy();
      }),
    );
    await streamsHeld(2 * PER_CLIENT);
    if (TEST_ENGINE === 'postgres') await hangUpWhileTheChangeLogIsLocked();
    await openFrom(server.url, '192.0.2.3', PER_PROCESS - 2 * PER_CLIENT);
    await streamsHeld(PER_PROCESS);
  });

  it('counts an IPv6 client by its /64, whichever of its addresses each stream comes from', {
    timeout: 120_000,
  }, async () => {
    // Each stream from another address of one /64: before the count was read under the key it is kept under, none was
    // ever refused (an IPv6 client had no limit but the process's).
    const addresses = Array.from({ length: PER_CLIENT }, (_, n) => `2001:db8:5:6::${(n + 1).toString(16)}`);
    const streams = await inWaves(PER_CLIENT, 25, (n) =>
      open(server.url, CHANGED, { headers: forwardedFor(addresses[n]!) }),
    );
    expect(streams.filter((stream) => stream.status !== 200)).toEqual([]);
    const past = await open(server.url, CHANGED, { headers: forwardedFor('2001:db8:5:6:ffff:ffff:ffff:ffff') });
    expect(await answerOf(past)).toEqual({
      status: 429,
      retryAfter: '10',
      error: { code: 'TOO_MANY_SUBSCRIPTIONS', scope: 'client', limit: PER_CLIENT, retryAfter: 10 },
    });
    const otherNetwork = await open(server.url, CHANGED, { headers: forwardedFor('2001:db8:5:7::1') });
    expect(otherNetwork.status).toBe(200);
  });

  it('checks a change once per visibility class: N subscribers of a class cost the statements of one', {
    timeout: 120_000,
  }, async () => {
    const streams: Stream[] = [];
    const change = async () => {
      const id = await write(writer.base, '/organizers', { organizer: `Counted ${Date.now()}` });
      await allReceived(streams, 'ORGANIZER', id);
    };
    /**
     * Statements this server makes for one new organizer until every stream was told of it. A change first, not
     * counted: signing in writes (a credential's last use), after which PostgreSQL's version watch reads the version.
     */
    const statementsPerChange = async () => {
      await change();
      return server.countQueries(change);
    };
    const add = async (viewer: ViewerName, count = 1, address = '192.0.2.10') =>
      streams.push(...(await openFrom(server.url, address, count, CHANGED, as(viewer))));

    await add('anonymous');
    const anonymous = await statementsPerChange();
    // Subscribers see what anonymous readers see: one class. Signed-in streams add one statement per change, whatever
    // their number: their credentials checked again, all at once (src/graphql/changes/credentials.ts).
    await add('subscriber');
    expect(await statementsPerChange()).toBe(anonymous + 1);
    // Editors and administrators share a class; each author and contributor has one of their own.
    await add('administrator');
    await add('editor');
    await add('author');
    await add('contributor');
    const fourClasses = await statementsPerChange();
    expect(fourClasses).toBe(anonymous + 1 + 3);
    // Hundreds more subscribers of the same four classes cost nothing more per change.
    await add('anonymous', PER_CLIENT - 6);
    await add('anonymous', PER_CLIENT, '192.0.2.11');
    await add('subscriber', 2, '192.0.2.12');
    await add('administrator', 2, '192.0.2.12');
    await add('editor', 2, '192.0.2.12');
    await add('author', 2, '192.0.2.12');
    await add('contributor', 2, '192.0.2.12');
    expect(streams.length).toBe(2 * PER_CLIENT + 10);
    expect(await statementsPerChange()).toBe(fourClasses);
    expect(await statementsPerChange()).toBe(fourClasses);
  });

  it('tells every one of hundreds of subscribers every change it may see, and of none it may not', {
    timeout: 120_000,
  }, async () => {
    const readers: ViewerName[] = ['subscriber', 'contributor', 'author', 'editor', 'administrator'];
    const anonymous = [
      ...(await openFrom(server.url, '192.0.2.20', PER_CLIENT)),
      ...(await openFrom(server.url, '192.0.2.21', 100)),
    ];
    const eventsOnly = await openFrom(
      server.url,
      '192.0.2.22',
      20,
      'subscription { changed(types: [EVENT]) { type databaseId action modifiedAt } }',
    );
    const signedIn = Object.fromEntries(
      await Promise.all(
        readers.map(
          async (viewer) => [viewer, (await openFrom(server.url, '192.0.2.23', 1, CHANGED, as(viewer)))[0]!] as const,
        ),
      ),
    );
    const other = (await openFrom(server.url, '192.0.2.23', 1, CHANGED, people.other.authorization ?? undefined))[0]!;
    const everyone = [...anonymous, ...eventsOnly, ...Object.values(signedIn), other];

    const draft = await write(
      writer.base,
      '/events',
      { title: 'Author draft', status: 'draft', start_date: '2031-02-01 10:00:00', end_date: '2031-02-01 11:00:00' },
      as('author'),
    );
    const published = await write(writer.base, '/events', {
      title: 'Published',
      start_date: '2031-02-02 10:00:00',
      end_date: '2031-02-02 11:00:00',
    });
    const venue = await write(writer.base, '/venues', { venue: `Hall ${Date.now()}` });
    await allReceived(everyone, 'EVENT', draft);
    await allReceived(everyone, 'EVENT', published);
    await allReceived([...anonymous, ...Object.values(signedIn), other], 'VENUE', venue);
    await idle(300);

    const actions = (stream: Stream) =>
      stream.received.map(
        (one) =>
          `${one.change.type} ${one.change.databaseId === draft ? 'draft' : one.change.databaseId === published ? 'published' : 'venue'} ${one.change.action}`,
      );
    // The draft is its author's and of those who read others' drafts; to anyone else its ID is gone.
    const hidden = ['EVENT draft DELETED', 'EVENT published CREATED', 'VENUE venue CREATED'];
    const shown = ['EVENT draft CREATED', 'EVENT published CREATED', 'VENUE venue CREATED'];
    for (const stream of anonymous) expect(actions(stream)).toEqual(hidden);
    for (const stream of eventsOnly) expect(actions(stream)).toEqual(hidden.slice(0, 2));
    expect(actions(signedIn.subscriber!)).toEqual(hidden);
    expect(actions(signedIn.contributor!)).toEqual(hidden);
    expect(actions(other)).toEqual(hidden);
    expect(actions(signedIn.author!)).toEqual(shown);
    expect(actions(signedIn.editor!)).toEqual(shown);
    expect(actions(signedIn.administrator!)).toEqual(shown);
  });
});
