import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, stop, type Instance } from './support/processes.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';
import { CHANGED, subscribe as subscribeOver, type Stream } from './support/sse.js';

// The `changed` subscription over Server-Sent Events: a subscriber of one server process is told of a change made
// by another process on the same database (PostgreSQL: LISTEN/NOTIFY; SQLite: the same file, its data version) within
// a second, each change once, as the subscriber may see it.

let server: TestServer;
let other: Instance;

beforeAll(async () => {
  // All of the test's clients are 127.0.0.1: room for more streams than one client may hold by default (the limits
  // are tested in test/security-audit-2-subscriptions.test.ts).
  server = await startServer({ SUBSCRIPTIONS_PER_CLIENT: '100' });
  other = await startInstance(server.databaseUrl);
}, 120_000);

afterAll(async () => {
  if (other) await stop(other);
  await server?.close();
});

/** A write through the other process, as the test administrator (whom the in-process server created). */
async function rest(instance: Instance, method: string, route: string, body: unknown) {
  const response = await fetch(`${instance.base}/wp-json/calendar/events/v1${route}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: ADMIN_AUTHORIZATION },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Subscribes and checks that the stream opened. */
async function subscribe(base: string, query: string, authorization?: string): Promise<Stream> {
  const stream = await subscribeOver(base, query, { authorization });
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return stream;
}

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the server holds `count` subscriptions (a subscription registers once its stream has started). */
async function subscribers(count: number) {
  for (let i = 0; i < 100 && server.app.changes.subscriberCount !== count; i++) await idle(20);
  expect(server.app.changes.subscriberCount).toBe(count);
}

describe('the changed subscription', () => {
  it('tells a subscriber of a change made by another server process within a second, once', async () => {
    const stream = await subscribe(server.url, CHANGED);
    await subscribers(1);
    const started = Date.now();
    const created = await rest(other, 'POST', '/organizers', { organizer: `Across ${started}` });
    expect(created.status).toBe(201);
    const written = Date.now();
    const arrived = await stream.waitFor(
      (change) => change.type === 'ORGANIZER' && change.databaseId === created.body.id,
    );
    expect(arrived.change.action).toBe('CREATED');
    expect(arrived.at - written).toBeLessThan(1000);
    const updated = await rest(other, 'POST', `/organizers/${created.body.id}`, { phone: '123' });
    expect(updated.status).toBe(200);
    await stream.waitFor((change) => change.databaseId === created.body.id && change.action === 'UPDATED');
    await idle(500);
    const mine = stream.received.filter(
      (one) => one.change.type === 'ORGANIZER' && one.change.databaseId === created.body.id,
    );
    expect(mine.map((one) => one.change.action)).toEqual(['CREATED', 'UPDATED']);
    stream.close();
    await subscribers(0);
  });

  it('delivers only the kinds asked for, as each subscriber may see them', async () => {
    const venues = await subscribe(
      server.url,
      'subscription { changed(types: [VENUE, EVENT]) { type databaseId action modifiedAt } }',
    );
    const admin = await subscribe(server.url, CHANGED, ADMIN_AUTHORIZATION);
    await subscribers(2);
    const organizer = await rest(other, 'POST', '/organizers', { organizer: `Not asked ${Date.now()}` });
    const venue = await rest(other, 'POST', '/venues', { venue: `Asked ${Date.now()}` });
    const draft = await rest(other, 'POST', '/events', {
      title: 'Draft',
      status: 'draft',
      start_date: '2031-01-01 10:00:00',
      end_date: '2031-01-01 11:00:00',
    });
    expect([organizer.status, venue.status, draft.status]).toEqual([201, 201, 201]);
    await venues.waitFor((change) => change.type === 'VENUE' && change.databaseId === venue.body.id);
    // A draft is out of an anonymous reader's view: it learns the ID is gone for it, never that a draft exists.
    expect(
      (await venues.waitFor((change) => change.type === 'EVENT' && change.databaseId === draft.body.id)).change.action,
    ).toBe('DELETED');
    expect(
      (await admin.waitFor((change) => change.type === 'EVENT' && change.databaseId === draft.body.id)).change.action,
    ).toBe('CREATED');
    await admin.waitFor((change) => change.type === 'ORGANIZER' && change.databaseId === organizer.body.id);
    expect(venues.received.some((one) => one.change.type === 'ORGANIZER')).toBe(false);
    venues.close();
    admin.close();
    await subscribers(0);
  });

  it('forgets a subscriber that hangs up, at once and while nothing changes, and keeps serving the others', async () => {
    const leaving = await subscribe(server.url, CHANGED);
    const staying = await subscribe(server.url, CHANGED);
    await subscribers(2);
    leaving.close();
    await subscribers(1);
    const count = leaving.received.length;
    const organizer = await rest(other, 'POST', '/organizers', { organizer: `After hang-up ${Date.now()}` });
    await staying.waitFor((change) => change.databaseId === organizer.body.id && change.type === 'ORGANIZER');
    expect(leaving.received.length).toBe(count);
    // Many clients that connect and hang up at once leave nothing behind.
    const many = await Promise.all(Array.from({ length: 20 }, () => subscribe(server.url, CHANGED)));
    for (const stream of many) stream.close();
    await subscribers(1);
    staying.close();
    await subscribers(0);
  });

  it('refuses an unknown kind, and lets the server shut down while a stream is open', async () => {
    const refused = await server.gql('subscription { changed(types: [MEDIA]) { type } }');
    expect(refused.errors?.length).toBeGreaterThan(0);
    const own = await startServer();
    await subscribe(own.url, CHANGED);
    for (let i = 0; i < 100 && own.app.changes.subscriberCount === 0; i++) await idle(20);
    const closing = Date.now();
    await own.close();
    expect(Date.now() - closing).toBeLessThan(5000);
  });
});
