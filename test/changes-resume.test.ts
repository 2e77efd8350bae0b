import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { createClient, NetworkError } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSql, TEST_ENGINE } from './support/database.js';
import { startInstance, stop, type Instance } from './support/processes.js';
import { ADMIN_AUTHORIZATION, basicAuthorization, startServer, type TestServer } from './support/server.js';

// Issue 25, point 3, in one process: the `id` of each event is its change's cursor, and a stream resumes after one
// (`after`, or Last-Event-ID) without loss; shutting down ends the streams without `complete` and refuses new ones
// with an answer to retry (EventSource: a stream that only says when to come back); a subscriber that reads nothing
// is cut off once its backlog passes SUBSCRIPTION_BACKLOG and resumes from its last event; a stream ends when its
// credential is revoked (an error, then `complete`) or its user's role changes; graphql-sse's single connection mode
// is refused with a clear error. Writes come from another process on the same database.

const API = '/wp-json/calendar/events/v1';
const QUERY = 'subscription { changed(types: [ORGANIZER, TAG]) { type databaseId action cursor } }';
const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BACKLOG = 3000;

let server: TestServer;
let writer: Instance;

beforeAll(async () => {
  server = await startServer({ SUBSCRIPTIONS_PER_CLIENT: '100', SUBSCRIPTION_BACKLOG: String(BACKLOG) });
  writer = await startInstance(server.databaseUrl);
}, 120_000);

afterAll(async () => {
  if (writer) await stop(writer);
  await server?.close();
});

/** One Server-Sent Event as received. */
interface Event {
  id?: string;
  event?: string;
  data: string;
  retry?: string;
}

/** Parses the events of a stream's text (comments left out). */
function eventsOf(text: string): Event[] {
  return text
    .split('\n\n')
    .slice(0, -1)
    .map((block) => {
      const event: Event = { data: '' };
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const field = line.slice(0, colon) as keyof Event;
        event[field] = line.slice(colon + 1).replace(/^ /, '');
      }
      return event;
    })
    .filter((event) => event.event || event.data || event.retry);
}

interface Opened {
  status: number;
  headers: Headers;
  /** Everything received so far. */
  text(): string;
  events(): Event[];
  /** The changes told so far. */
  changes(): { type: string; databaseId: number; action: string; cursor: string }[];
  /** Resolves with the whole text once the server ends the stream. */
  ended: Promise<string>;
  close(): void;
}

/** A subscription over SSE: POST (as graphql-sse sends it) or GET (as EventSource does), with headers of its own. */
async function open(
  options: {
    method?: 'GET' | 'POST';
    query?: string;
    variables?: Record<string, unknown>;
    headers?: Record<string, string>;
    base?: string;
  } = {},
): Promise<Opened> {
  const { method = 'POST', query = QUERY, variables, headers = {}, base = server.url } = options;
  const abort = new AbortController();
  const url =
    method === 'GET'
      ? `${base}/graphql?query=${encodeURIComponent(query)}${variables ? `&variables=${encodeURIComponent(JSON.stringify(variables))}` : ''}`
      : `${base}/graphql`;
  const response = await fetch(url, {
    method,
    headers: {
      accept: 'text/event-stream',
      ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: method === 'POST' ? JSON.stringify({ query, variables }) : undefined,
    signal: abort.signal,
  });
  let text = '';
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
        text += decoder.decode(chunk, { stream: true });
    } catch {
      // hung up
    }
    return text;
  })();
  const events = () => eventsOf(text);
  return {
    status: response.status,
    headers: response.headers,
    text: () => text,
    events,
    changes: () =>
      events()
        .filter((event) => event.event === 'next' && event.data.includes('"changed"'))
        .map((event) => JSON.parse(event.data).data.changed),
    ended,
    close: () => abort.abort(),
  };
}

async function until(test: () => boolean | Promise<boolean>, ms: number, describe: () => string = () => '') {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms ${describe()}`);
    await idle(20);
  }
}

/** Waits until the server holds `count` streams. */
const streamsHeld = (count: number) =>
  until(
    () => server.app.changes.subscriberCount === count,
    10_000,
    () => `: ${server.app.changes.subscriberCount} held, not ${count}`,
  );

let named = 0;
/** A new organizer, written by the other process as `authorization`; answers its ID. */
async function write(
  route = '/organizers',
  body: Record<string, unknown> = { organizer: `Resumed ${Date.now()}-${named++}` },
  authorization = ADMIN_AUTHORIZATION,
): Promise<number> {
  const response = await fetch(`${writer.base}${API}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify(body),
  });
  const created = (await response.json()) as { id: number };
  expect(response.status, JSON.stringify(created)).toBe(201);
  return created.id;
}

describe('resuming a changed stream', () => {
  it('carries each change’s cursor as the event id, and resumes after one (after, or Last-Event-ID in its place) with nothing lost or told twice', async () => {
    const first = await open();
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await until(() => first.text().includes('retry'), 2000);
    expect(first.events()[0]?.retry).toBe('1000');
    await streamsHeld(1);
    const ids = [await write(), await write(), await write()];
    await until(() => first.changes().length === 3, 5000);
    const told = first.events().filter((event) => event.event === 'next');
    expect(told.map((event) => event.id)).toEqual(first.changes().map((change) => change.cursor));
    expect(first.changes().map((change) => change.databaseId)).toEqual(ids);
    first.close();
    await streamsHeld(0);

    // Written while nobody listened; then resumed from the first change's cursor, by argument and by header.
    const missed = [await write(), await write()];
    const resumed = await open({
      query: 'subscription ($after: String) { changed(types: [ORGANIZER], after: $after) { databaseId cursor } }',
      variables: { after: told[0]!.id },
    });
    const byHeader = await open({ method: 'GET', headers: { 'last-event-id': told[1]!.id! } });
    // The header takes the argument's place (EventSource's URL keeps the cursor it first subscribed with).
    const headerWins = await open({
      query: 'subscription { changed(types: [ORGANIZER], after: "not even a cursor") { databaseId } }',
      headers: { 'last-event-id': told[2]!.id! },
    });
    await streamsHeld(3);
    const live = await write();
    await until(
      () => resumed.changes().length === 5 && byHeader.changes().length === 4 && headerWins.changes().length === 3,
      5000,
      () => resumed.text(),
    );
    await idle(300);
    expect(resumed.changes().map((change) => change.databaseId)).toEqual([ids[1], ids[2], ...missed, live]);
    expect(byHeader.changes().map((change) => change.databaseId)).toEqual([ids[2], ...missed, live]);
    expect(headerWins.changes().map((change) => change.databaseId)).toEqual([...missed, live]);
    for (const stream of [resumed, byHeader, headerWins]) stream.close();
    await streamsHeld(0);
  });

  it('gives the feed’s nodes the same cursors: the feed read since a node’s goes on after that node', async () => {
    const start = (await server.gqlOk<{ changes: { next: string } }>('{ changes { next } }')).changes.next;
    const ids = [await write(), await write()];
    const FEED = 'query ($since: String) { changes(since: $since) { nodes { type databaseId cursor } next } }';
    const page = (
      await server.gqlOk<{ changes: { nodes: { type: string; databaseId: number; cursor: string }[]; next: string } }>(
        FEED,
        { since: start },
      )
    ).changes;
    const organizers = page.nodes.filter((node) => node.type === 'ORGANIZER');
    expect(organizers.map((node) => node.databaseId)).toEqual(ids);
    expect(page.nodes.at(-1)!.cursor).toBe(page.next);
    const after = (
      await server.gqlOk<{ changes: { nodes: { databaseId: number }[] } }>(FEED, { since: organizers[0]!.cursor })
    ).changes;
    expect(after.nodes.map((node) => node.databaseId)).toEqual([ids[1]]);
  });

  it('refuses a cursor it did not hand out: 200 with RESYNC_REQUIRED and complete over POST, 410 for EventSource (which would otherwise ask again every second)', async () => {
    const posted = await open({ query: 'subscription { changed(after: "bogus") { databaseId } }' });
    expect(posted.status).toBe(200);
    const events = eventsOf(await posted.ended);
    expect(JSON.parse(events.find((event) => event.event === 'next')!.data).errors[0].extensions).toMatchObject({
      code: 'RESYNC_REQUIRED',
      reason: 'invalid',
    });
    expect(events.at(-1)?.event).toBe('complete');
    const eventSource = await open({ method: 'GET', headers: { 'last-event-id': 'bogus' } });
    expect(eventSource.status).toBe(410);
    await eventSource.ended;
    await streamsHeld(0);
  });

  it('refuses graphql-sse’s single connection mode with a clear error, and serves its distinct connections mode', async () => {
    const errors: unknown[] = [];
    const single = createClient({ url: `${server.url}/graphql`, singleConnection: true, retryAttempts: 0 });
    await new Promise<void>((resolve) =>
      single.subscribe(
        { query: QUERY },
        { next: () => undefined, error: (error) => (errors.push(error), resolve()), complete: resolve },
      ),
    );
    single.dispose();
    const [error] = errors as NetworkError<Response>[];
    expect(error).toBeInstanceOf(NetworkError);
    expect(error!.response?.status).toBe(405);
    // What it was answered (graphql-sse does not read the body): the reservation (a PUT) is refused, and says why.
    const answer = await fetch(`${server.url}/graphql`, { method: 'PUT' });
    expect(answer.status).toBe(405);
    const body = (await answer.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('SINGLE_CONNECTION_MODE_UNSUPPORTED');
    expect(body.errors[0]!.message).toMatch(
      /single connection mode is not supported: use its distinct connections mode/,
    );

    const told: number[] = [];
    const distinct = createClient({ url: `${server.url}/graphql` });
    const unsubscribe = distinct.subscribe<{ changed: { databaseId: number } }>(
      { query: QUERY },
      {
        next: (result) => void told.push(result.data!.changed.databaseId),
        error: () => undefined,
        complete: () => undefined,
      },
    );
    await streamsHeld(1);
    const id = await write();
    await until(() => told.includes(id), 5000);
    unsubscribe();
    distinct.dispose();
    await streamsHeld(0);
  });
});

describe('shutting down', () => {
  it('ends the open streams without complete, and answers new subscriptions with 503 and Retry-After (EventSource: a stream that says when to come back)', async () => {
    const own = await startServer();
    try {
      const posted = await open({ base: own.url });
      const eventSource = await open({ base: own.url, method: 'GET' });
      await until(() => own.app.changes.subscriberCount === 2, 5000);
      own.app.closeStreams();
      for (const stream of [posted, eventSource]) {
        const events = eventsOf(await stream.ended);
        expect(events.some((event) => event.event === 'complete')).toBe(false);
        expect(events[0]?.retry).toBe('1000');
      }
      expect(own.app.changes.subscriberCount).toBe(0);

      const refused = await open({ base: own.url });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(
        JSON.parse(eventsOf(await refused.ended).find((event) => event.event === 'next')!.data).errors[0].extensions,
      ).toMatchObject({ code: 'SHUTTING_DOWN', retryAfter: 1 });
      // EventSource gives up for good on any answer but 200: it is told to come back in a second, and the stream ends.
      const handedOff = await open({ base: own.url, method: 'GET' });
      expect(handedOff.status).toBe(200);
      expect(handedOff.headers.get('connection')).toBe('close');
      const handOff = await handedOff.ended;
      expect(eventsOf(handOff)).toEqual([{ data: '', retry: '1000' }]);
      expect(handOff).toMatch(/^: This server process is shutting down/);
    } finally {
      await own.close();
    }
  });
});

/** The body of a chunked HTTP/1.1 answer as received (the answer's head first), up to where it was cut. */
function dechunked(raw: string): string {
  let rest = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  let body = '';
  for (;;) {
    const end = rest.indexOf('\r\n');
    const size = end < 0 ? 0 : parseInt(rest.slice(0, end), 16);
    if (!size) return body;
    body += rest.slice(end + 2, end + 2 + size);
    rest = rest.slice(end + 2 + size + 2);
  }
}

describe('a subscriber that reads nothing', () => {
  /** A subscription over a raw socket that stops reading once its stream opened; `read()` takes what it was sent. */
  async function nonReader(): Promise<{ socket: Socket; read(): Promise<string>; closed: Promise<void> }> {
    const body = JSON.stringify({ query: QUERY });
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    let received = '';
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      socket.on('data', (chunk) => {
        received += chunk;
        if (!received.includes('retry: 1000')) return;
        socket.pause();
        resolve();
      });
      socket.once('close', () => reject(new Error('closed before its stream opened')));
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    return {
      socket,
      closed,
      read: async () => {
        socket.resume();
        await Promise.race([closed, idle(2000)]);
        return received;
      },
    };
  }

  /** `count` new tags in one statement (a change each), written around the API so that a test can make thousands. */
  async function manyTags(count: number, prefix: string) {
    const rows = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})`;
    await runSql(
      server.databaseUrl,
      `${rows} INSERT INTO "Term" ("taxonomy", "name", "slug") SELECT 'tag', '${prefix} ' || i, '${prefix}-' || i FROM n`,
    );
  }

  it('is cut off once it leaves more than SUBSCRIPTION_BACKLOG changes untaken, gives its place back, and resumes from its last event with nothing lost', {
    timeout: 120_000,
  }, async () => {
    const reader = await open();
    const stalled = await nonReader();
    await streamsHeld(2);
    const prefix = `backlog${Date.now()}`;
    // Bursts smaller than the backlog bound (the reading subscriber keeps up), until the stalled one's socket buffers
    // are full and its backlog passes the bound.
    let written = 0;
    for (let burst = 0; burst < 40 && server.app.changes.subscriberCount === 2; burst++) {
      await manyTags(BACKLOG / 2, `${prefix}-${burst}`);
      written += BACKLOG / 2;
      await until(
        () => reader.changes().length === written,
        60_000,
        () => `: the reader got ${reader.changes().length} of ${written}`,
      );
    }
    // The stalled subscriber was ended, its place given back; as it reads nothing, the server hung up on it: the
    // connection's descriptor is closed in this process, which the server shares with the test (the client's socket,
    // paused, cannot tell before it reads).
    await streamsHeld(1);
    const descriptors = () => readdirSync('/proc/self/fd').length;
    const held = descriptors();
    await until(
      () => descriptors() < held,
      10_000,
      () => ': the server did not hang up',
    );
    expect(reader.changes().length).toBe(written);
    expect(reader.changes().every((change) => change.action === 'CREATED')).toBe(true);
    expect(await server.gqlOk('{ __typename }')).toEqual({ __typename: 'Query' });

    // It resumes from the last event it got, and is told of the rest once.
    const before = eventsOf(dechunked(await stalled.read()));
    const got = before
      .filter((event) => event.event === 'next')
      .map((event) => ({ id: event.id!, change: JSON.parse(event.data).data.changed }));
    const resumed = await open({ headers: got.length ? { 'last-event-id': got.at(-1)!.id } : {} });
    await until(
      () => got.length + resumed.changes().length >= written,
      60_000,
      () => `: ${got.length} + ${resumed.changes().length} of ${written}`,
    );
    await idle(300);
    const all = [...got.map((one) => one.change), ...resumed.changes()];
    expect(all.map((change) => change.cursor)).toEqual(reader.changes().map((change) => change.cursor));
    reader.close();
    resumed.close();
    await streamsHeld(0);
  });
});

describe('a stream whose credential no longer holds', () => {
  let login: string;
  let userId: number;

  beforeAll(async () => {
    login = `streamer${Date.now()}`;
    const created = await server.gqlOk<{ user: { id: number } }>(
      `mutation { user: createUser(input: { login: "${login}", role: AUTHOR }) { id: databaseId } }`,
    );
    userId = created.user.id;
  });

  async function password(): Promise<{ id: number; authorization: string }> {
    const { password } = await server.gqlOk<{ password: { id: number; secret: string } }>(
      `mutation { password: createApplicationPassword(name: "stream ${Date.now()}", userId: ${userId}) { id: databaseId secret } }`,
    );
    return { id: password.id, authorization: basicAuthorization(login, password.secret) };
  }

  const draft = (authorization: string) =>
    write(
      '/events',
      {
        title: `Draft ${Date.now()}`,
        status: 'draft',
        start_date: '2031-03-01 10:00:00',
        end_date: '2031-03-01 11:00:00',
      },
      authorization,
    );
  const EVENTS = 'subscription { changed(types: [EVENT]) { type databaseId action cursor } }';

  it('ends at the first change after its credential is revoked, with UNAUTHENTICATED then complete, and is told of nothing committed after', async () => {
    const credential = await password();
    const stream = await open({ query: EVENTS, headers: { authorization: credential.authorization } });
    await streamsHeld(1);
    const before = await draft(credential.authorization);
    await until(() => stream.changes().length === 1, 5000);
    // Its own draft, which only it (and editors) may see.
    expect(stream.changes()[0]).toMatchObject({ databaseId: before, action: 'CREATED' });

    const revoked = await server.gql(`mutation { revokeCredential(id: ${credential.id}) { revokedAt } }`);
    expect(revoked.errors).toBeUndefined();
    const other = await password();
    const after = await draft(other.authorization);
    const events = eventsOf(
      await Promise.race([stream.ended, idle(10_000).then(() => Promise.reject(new Error('the stream did not end')))]),
    );
    expect(stream.changes().map((change) => change.databaseId)).toEqual([before]);
    expect(stream.changes().some((change) => change.databaseId === after)).toBe(false);
    const error = JSON.parse(events.filter((event) => event.event === 'next').at(-1)!.data).errors[0];
    expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'revoked' });
    expect(events.at(-1)?.event).toBe('complete');
    await streamsHeld(0);
  });

  it('ends within seconds of the revocation while nothing changes', async () => {
    const credential = await password();
    const stream = await open({ query: EVENTS, headers: { authorization: credential.authorization } });
    await streamsHeld(1);
    await server.gqlOk(`mutation { revokeCredential(id: ${credential.id}) { revokedAt } }`);
    const revokedAt = Date.now();
    const events = eventsOf(
      await Promise.race([stream.ended, idle(15_000).then(() => Promise.reject(new Error('the stream did not end')))]),
    );
    // CREDENTIAL_RECHECK_MS (5 s), and a second for the check's own pace.
    expect(Date.now() - revokedAt).toBeLessThan(8000);
    expect(events.at(-1)?.event).toBe('complete');
    await streamsHeld(0);
  });

  it('ends without complete when its user’s role changes, so that its client reconnects and sees with its new role', async () => {
    const credential = await password();
    const stream = await open({ query: EVENTS, headers: { authorization: credential.authorization } });
    await streamsHeld(1);
    const role = TEST_ENGINE === 'sqlite' ? `'contributor'` : `'contributor'::"Role"`;
    await runSql(server.databaseUrl, `UPDATE "User" SET "role" = ${role} WHERE "id" = ${userId}`);
    await write();
    const events = eventsOf(
      await Promise.race([stream.ended, idle(10_000).then(() => Promise.reject(new Error('the stream did not end')))]),
    );
    expect(events.some((event) => event.event === 'complete')).toBe(false);
    await streamsHeld(0);
    // Reconnecting, it is served with its new role.
    const again = await open({ query: EVENTS, headers: { authorization: credential.authorization } });
    expect(again.status).toBe(200);
    await streamsHeld(1);
    again.close();
    await streamsHeld(0);
  });
});
