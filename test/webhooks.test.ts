// Webhooks (docs/sync-and-webhooks.md): changes POSTed signed to a receiver on 127.0.0.1 (allowed by WEBHOOKS_ALLOW_PRIVATE=1),
// retried until the receiver recovers, in order per record; the administrator-only GraphQL API; private URLs refused.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.js';
import { retryDelay } from '../src/webhooks/dispatcher.js';
import { postOnce } from '../src/webhooks/post.js';
import { restClient } from './support/rest.js';
import { ADMIN_AUTHORIZATION, basicAuthorization, startServer, type TestServer } from './support/server.js';
import { expectedSignature, startReceiver, type Receiver } from './support/webhook-receiver.js';

const FAST_RETRIES = {
  WEBHOOKS_ALLOW_PRIVATE: '1',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_RETRY_MAX_MS: '200',
  WEBHOOK_TIMEOUT_MS: '400',
  WEBHOOK_WAKE_MS: '20',
};
const SECRET = 'a-test-secret-of-some-length';

const CREATE = `mutation ($input: WebhookInput!) { createWebhook(input: $input) { secret webhook { id databaseId url types } } }`;
const DELIVERIES = `query ($id: ID!) { webhook(id: $id) { deliveries(first: 100) { nodes { id recordType recordId action status attempts lastError nextAttemptAt deliveredAt } } } }`;

const tomorrow = (hour: number) =>
  `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)} ${String(hour).padStart(2, '0')}:00:00`;

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer(FAST_RETRIES);
  receiver = await startReceiver();
});

afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

async function createWebhook(url: string, types: string[] | undefined, secret = SECRET) {
  const data = await server.gqlOk(CREATE, { input: { url, types, secret } });
  return data.createWebhook.webhook.id as string;
}

describe('webhooks', () => {
  it('POSTs each change of the subscribed types, signed with the secret, with the record as REST shows it to anyone', async () => {
    receiver.received.length = 0;
    receiver.answer = () => 204;
    const id = await createWebhook(`${receiver.url}?signed`, ['EVENT']);
    const api = restClient(server);
    const venue = await api.post('/venues', { json: { venue: 'Hall of the signature test', status: 'publish' } });
    expect(venue.status).toBe(201);
    const event = await api.post('/events', {
      json: { title: 'Signed concert', start_date: tomorrow(19), end_date: tomorrow(21), status: 'publish' },
    });
    expect(event.status).toBe(201);
    const eventId = event.body.id as number;

    await receiver.waitFor(() => receiver.accepted().some((b) => b.record_id === eventId && b.action === 'created'));
    const delivery = receiver.received.find((r) => r.json.record_id === eventId)!;
    expect(delivery.headers['x-calendar-signature']).toBe(expectedSignature(delivery.body, SECRET));
    expect(delivery.headers['x-calendar-delivery']).toBe(delivery.json.id);
    expect(delivery.headers['content-type']).toBe('application/json');
    const anonymous = await api.get(`/events/${eventId}`);
    expect(delivery.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'event',
      record_id: eventId,
      action: 'created',
      modified_utc: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      data: anonymous.body,
    });
    // Only events were asked for: the venue is not sent.
    expect(receiver.received.some((r) => r.json.type === 'venue')).toBe(false);

    // Made a draft: gone for an anonymous reader, so sent as deleted without data.
    expect((await api.post(`/events/${eventId}`, { json: { status: 'draft' } })).status).toBe(200);
    await receiver.waitFor(() => receiver.accepted().filter((b) => b.record_id === eventId).length >= 2);
    const hidden = receiver.accepted().filter((b) => b.record_id === eventId)[1];
    expect(hidden).toMatchObject({ type: 'event', record_id: eventId, action: 'deleted', data: null });

    const { webhook } = await server.gqlOk(DELIVERIES, { id }, basicAuthorization('admin', 'test-admin-secret-8d1f'));
    expect(
      webhook.deliveries.nodes.every(
        (d: any) => d.status === 'DELIVERED' && d.attempts === 1 && d.deliveredAt && d.nextAttemptAt === null,
      ),
    ).toBe(true);
    // The deliveries as the receiver got them, newest first, with the action the log recorded (the draft is an update;
    // the body tells the anonymous reader's view of it).
    const ofEvent = receiver.accepted().filter((b) => b.record_id === eventId);
    expect(
      webhook.deliveries.nodes.filter((d: any) => d.recordId === eventId).map((d: any) => [d.id, d.action]),
    ).toEqual([
      [ofEvent[1]!.id, 'UPDATED'],
      [ofEvent[0]!.id, 'CREATED'],
    ]);
    await server.gqlOk(`mutation ($id: ID!) { deleteWebhook(id: $id) }`, { id });
  });

  it('waits longer after each failed attempt, with jitter, up to the maximum, and retries for 24 hours by default', () => {
    const config = loadConfig({ WEBHOOK_RETRY_BASE_MS: '1000', WEBHOOK_RETRY_MAX_MS: '60000' }).webhooks;
    expect(config.retryForMs).toBe(24 * 60 * 60 * 1000);
    for (const [attempts, nominal] of [
      [1, 1000],
      [2, 2000],
      [3, 4000],
      [6, 32000],
      [7, 60000],
      [60, 60000],
    ] as const) {
      const delays = Array.from({ length: 50 }, () => retryDelay(config, attempts));
      expect(Math.min(...delays)).toBeGreaterThanOrEqual(nominal * 0.75);
      expect(Math.max(...delays)).toBeLessThanOrEqual(nominal * 1.25);
      expect(new Set(delays).size).toBeGreaterThan(1);
    }
    expect(() => loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'yes' })).toThrow(/WEBHOOKS_ALLOW_PRIVATE/);
    // A webhook failing for a week is disabled; never before its deliveries could be retried for their whole window.
    expect(config.disableAfterMs).toBe(7 * 24 * 60 * 60 * 1000);
    expect(() => loadConfig({ WEBHOOK_RETRY_FOR_MS: '5000', WEBHOOK_DISABLE_AFTER_MS: '4000' })).toThrow(
      /WEBHOOK_DISABLE_AFTER_MS must be a whole number of at least 5000/,
    );
  });

  it('a signature made with another secret, or of other bytes, does not match', async () => {
    const body = Buffer.from('{"id":"x"}');
    expect(expectedSignature(body, SECRET)).not.toBe(expectedSignature(body, `${SECRET}!`));
    expect(expectedSignature(Buffer.from('{"id": "x"}'), SECRET)).not.toBe(expectedSignature(body, SECRET));
  });

  it('retries through 500s and a timeout until the receiver recovers, and delivers every change in order per record', async () => {
    receiver.received.length = 0;
    // Three 500s, then one answer that never comes (the timeout), then 2xx.
    receiver.answer = (_request, index) => (index < 3 ? 500 : index === 3 ? 'hang' : 204);
    const id = await createWebhook(receiver.url, undefined);
    const api = restClient(server);
    const ids: number[] = [];
    for (let n = 0; n < 2; n++) {
      const created = await api.post('/events', {
        json: { title: `Retried ${n}`, start_date: tomorrow(10), end_date: tomorrow(11), status: 'publish' },
      });
      ids.push(created.body.id);
    }
    for (let round = 0; round < 3; round++) {
      for (const eventId of ids)
        expect((await api.post(`/events/${eventId}`, { json: { title: `Retried ${eventId} v${round}` } })).status).toBe(
          200,
        );
    }
    const admin = basicAuthorization('admin', 'test-admin-secret-8d1f');
    const all = async () => (await server.gqlOk(DELIVERIES, { id }, admin)).webhook.deliveries.nodes as any[];
    await receiver.waitFor(() => receiver.accepted().length >= 8, 20_000);
    const deliveries = await all();
    expect(deliveries.length).toBeGreaterThanOrEqual(8);
    await receiver.waitFor(() => receiver.accepted().length === deliveries.length, 20_000);
    expect(receiver.received.filter((r) => r.answered === 500)).toHaveLength(3);
    expect(receiver.received.filter((r) => r.answered === 0)).toHaveLength(1);
    const final = await all();
    expect(final.every((d) => d.status === 'DELIVERED')).toBe(true);
    // Every request the receiver saw was an attempt counted on a delivery, and the failures were retried.
    expect(final.reduce((sum, d) => sum + d.attempts, 0)).toBe(receiver.received.length);
    expect(receiver.received.length).toBe(final.length + 4);

    // Per record, accepted in the order the changes were made (the list answers newest first).
    const accepted = receiver.accepted();
    for (const eventId of ids) {
      const made = final
        .filter((d) => d.recordType === 'EVENT' && d.recordId === eventId)
        .map((d) => d.id)
        .reverse();
      expect(made).toHaveLength(4);
      expect(accepted.filter((b) => b.record_id === eventId).map((b) => b.id)).toEqual(made);
    }
    await server.gqlOk(`mutation ($id: ID!) { deleteWebhook(id: $id) }`, { id });
  });

  it('keeps a failed attempt visible: attempts, last error and next attempt while pending', async () => {
    receiver.received.length = 0;
    receiver.answer = () => 503;
    const id = await createWebhook(receiver.url, ['TAG']);
    expect((await restClient(server).post('/tags', { json: { name: 'Failing tag' } })).status).toBe(201);
    await receiver.waitFor(() => receiver.received.length >= 2);
    const admin = basicAuthorization('admin', 'test-admin-secret-8d1f');
    const [delivery] = (await server.gqlOk(DELIVERIES, { id }, admin)).webhook.deliveries.nodes;
    expect(delivery).toMatchObject({
      recordType: 'TAG',
      action: 'CREATED',
      status: 'PENDING',
      lastError: 'answered 503',
      deliveredAt: null,
    });
    expect(delivery.attempts).toBeGreaterThanOrEqual(2);
    expect(Date.parse(delivery.nextAttemptAt)).toBeGreaterThan(Date.now() - 1000);
    await server.gqlOk(`mutation ($id: ID!) { deleteWebhook(id: $id) }`, { id });
  });

  it('refuses the GraphQL webhook operations to anyone but administrators', async () => {
    const admin = basicAuthorization('admin', 'test-admin-secret-8d1f');
    const before = (await server.gqlOk(`{ webhooks { id } }`, {}, admin)).webhooks.length;
    await server.gqlOk(`mutation { createUser(input: { login: "hookeditor", role: EDITOR }) { id } }`);
    const password = (
      await server.gqlOk(
        `mutation { createApplicationPassword(name: "t", userId: ${(await server.gqlOk(`{ users(first: 50) { nodes { databaseId login } } }`, {}, basicAuthorization('admin', 'test-admin-secret-8d1f'))).users.nodes.find((u: any) => u.login === 'hookeditor').databaseId}) { secret } }`,
      )
    ).createApplicationPassword.secret;
    const editor = basicAuthorization('hookeditor', password);
    for (const [as, code] of [
      [null, 'UNAUTHENTICATED'],
      [editor, 'FORBIDDEN'],
    ] as const) {
      const created = await server.gql(CREATE, { input: { url: receiver.url } }, as);
      expect(created.errors?.[0]?.extensions?.code).toBe(code);
      expect((await server.gql(`{ webhooks { id url } }`, {}, as)).errors?.[0]?.extensions?.code).toBe(code);
      expect((await server.gql(`mutation { deleteWebhook(id: 1) }`, {}, as)).errors?.[0]?.extensions?.code).toBe(code);
      expect((await server.gql(`mutation { enableWebhook(id: 1) { id } }`, {}, as)).errors?.[0]?.extensions?.code).toBe(
        code,
      );
    }
    expect((await server.gqlOk(`{ webhooks { id } }`, {}, admin)).webhooks).toHaveLength(before);
  });

  it('names a webhook by a global ID as every other record, its database ID beside it, and reads it as a node', async () => {
    const id = await createWebhook(`${receiver.url}?node`, ['VENUE']);
    const { node } = await server.gqlOk(
      `query ($id: ID!) { node(id: $id) { __typename id ... on Webhook { databaseId url } } }`,
      { id },
      ADMIN_AUTHORIZATION,
    );
    expect(node).toEqual({ __typename: 'Webhook', id, databaseId: expect.any(Number), url: `${receiver.url}?node` });
    expect(Buffer.from(id, 'base64').toString()).toBe(`Webhook:${node.databaseId}`);
    // Its database ID names it too, as WPGraphQL takes either; another type's global ID is refused, naming the argument.
    const byNumber = await server.gqlOk(`{ webhook(id: ${node.databaseId}) { id } }`, {}, ADMIN_AUTHORIZATION);
    expect(byNumber.webhook.id).toBe(id);
    const venueId = Buffer.from(`Venue:${node.databaseId}`).toString('base64');
    const refused = await server.gql(`mutation ($id: ID!) { deleteWebhook(id: $id) }`, { id: venueId });
    expect(refused.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { id: 'is the ID of a Venue, not of a Webhook' },
    });
    // Only administrators read it as a node: anyone else gets null at its place and the refusal.
    const anonymous = await server.gql(`query ($id: ID!) { node(id: $id) { id } }`, { id });
    expect([anonymous.data?.node, anonymous.errors?.[0]?.extensions?.code]).toEqual([null, 'UNAUTHENTICATED']);
    expect((await server.gqlOk(`mutation ($id: ID!) { deleteWebhook(id: $id) }`, { id })).deleteWebhook).toBe(true);
  });

  it('refuses unknown types and short secrets', async () => {
    const bad = await server.gql(CREATE, { input: { url: receiver.url, secret: 'short' } });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const ftp = await server.gql(CREATE, { input: { url: 'ftp://example.com/' } });
    expect(ftp.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('Standard Webhooks, verified by the standardwebhooks package as a receiver would', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A delivered attempt of the first test and its webhook's secret, for the receiver's refusals. */
  let delivered: { secret: string; attempt: (typeof receiver.received)[number] } | undefined;
  /** The attempts the receiver got for one record, in arrival order. */
  const attemptsFor = (recordId: number) => receiver.received.filter((r) => r.json?.record_id === recordId);
  const verify = (verifier: Webhook, attempt: { body: Buffer; headers: Record<string, unknown> }) =>
    verifier.verify(attempt.body.toString('utf8'), attempt.headers as Record<string, string>);

  it('signs with a generated whsec_ secret; every retry carries the same id and the same body, however the record changed meanwhile', async () => {
    receiver.received.length = 0;
    const created = await server.gqlOk(CREATE, { input: { url: `${receiver.url}?standard`, types: ['EVENT'] } });
    const secret = created.createWebhook.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const verifier = new Webhook(secret);
    const api = restClient(server);
    // The creation's attempts fail until the event has been changed: the retry that then succeeds must still send the
    // body of the first attempt.
    let changed = false;
    receiver.answer = (request) =>
      request.path.endsWith('?standard') && request.json?.action === 'created' && !changed ? 500 : 204;
    const event = await api.post('/events', {
      json: { title: 'Standard first', start_date: tomorrow(10), end_date: tomorrow(11), status: 'publish' },
    });
    const eventId = event.body.id as number;
    await receiver.waitFor(() => attemptsFor(eventId).length >= 1);
    expect((await api.post(`/events/${eventId}`, { json: { title: 'Standard second' } })).status).toBe(200);
    changed = true;
    await receiver.waitFor(() => receiver.accepted().some((b) => b.record_id === eventId && b.action === 'updated'));

    const creation = attemptsFor(eventId).filter((r) => r.json.action === 'created');
    const first = creation[0]!;
    const retry = creation.at(-1)!;
    expect([first.answered, retry.answered]).toEqual([500, 204]);
    for (const attempt of creation) {
      expect(attempt.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(attempt.body.equals(first.body)).toBe(true);
    }
    expect(retry.json).toMatchObject({ id: first.headers['webhook-id'], data: { title: 'Standard first' } });
    for (const attempt of [first, retry]) {
      expect(verify(verifier, attempt)).toEqual(attempt.json);
      expect(Math.abs(Number(attempt.headers['webhook-timestamp']) - attempt.at / 1000)).toBeLessThan(5);
      // The service's own signature stays, keyed with the secret as text.
      expect(attempt.headers['x-calendar-signature']).toBe(expectedSignature(attempt.body, secret));
    }
    // The update is its own delivery, with its own id.
    const update = attemptsFor(eventId).find((r) => r.json.data?.title === 'Standard second')!;
    expect(update.json.action).toBe('updated');
    expect(update.headers['webhook-id']).not.toBe(first.headers['webhook-id']);
    expect(verify(verifier, update)).toEqual(update.json);
    delivered = { secret, attempt: retry };
  });

  it('is refused by the receiver when replayed 10 minutes later, tampered with, or checked with another secret', () => {
    const { secret, attempt } = delivered!;
    expect(verify(new Webhook(secret), attempt)).toEqual(attempt.json);
    const tampered = { ...attempt, body: Buffer.from(attempt.body.toString('utf8').replace('Standard', 'Forged')) };
    expect(tampered.body.equals(attempt.body)).toBe(false);
    expect(() => verify(new Webhook(secret), tampered)).toThrow(WebhookVerificationError);
    const otherSecret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    expect(() => verify(new Webhook(otherSecret), attempt)).toThrow(WebhookVerificationError);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(attempt.at + 10 * 60_000);
    expect(() => verify(new Webhook(secret), attempt)).toThrow(/too old/);
  });

  it('signs with a secret given as text with its UTF-8 bytes, which the raw format of the library takes', async () => {
    receiver.received.length = 0;
    receiver.answer = () => 204;
    await createWebhook(`${receiver.url}?raw`, ['VENUE']);
    const venue = await restClient(server).post('/venues', { json: { venue: 'Raw secret hall', status: 'publish' } });
    await receiver.waitFor(() => receiver.accepted().some((b) => b.record_id === venue.body.id));
    const attempt = receiver.received.find((r) => r.path.endsWith('?raw'))!;
    expect(verify(new Webhook(SECRET, { format: 'raw' }), attempt)).toMatchObject({ record_id: venue.body.id });
  });

  it.each([
    ['whsec_ with a key that is not base64', 'whsec_not*base64*at*all*but*long*enough'],
    ['whsec_ with a 16-byte key', `whsec_${Buffer.alloc(16, 7).toString('base64')}`],
    ['whsec_ with a 65-byte key', `whsec_${Buffer.alloc(65, 7).toString('base64')}`],
    ['text of 15 characters', 'fifteen-chars!!'],
  ])('refuses a secret that is %s', async (_case, secret) => {
    const result = await server.gql(CREATE, { input: { url: receiver.url, secret } });
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('takes a whsec_ secret of 24 and of 64 bytes', async () => {
    for (const size of [24, 64]) {
      const secret = `whsec_${Buffer.alloc(size, size).toString('base64')}`;
      const data = await server.gqlOk(CREATE, {
        input: { url: `${receiver.url}?size${size}`, types: ['TAG'], secret },
      });
      expect(data.createWebhook.secret).toBe(secret);
    }
  });
});

describe('one delivery per change, each describing that change', () => {
  /** The bodies the receiver accepted at `path` for one record, each delivery once (other tests' webhooks stay). */
  const acceptedAt = (path: string, recordId: number) => {
    const seen = new Set<string>();
    return receiver.received
      .filter((r) => r.path.endsWith(path) && r.answered >= 200 && r.answered < 300 && r.json.record_id === recordId)
      .map((r) => r.json)
      .filter((body) => !seen.has(body.id) && seen.add(body.id));
  };
  const DELIVERIES_OF = `query ($id: ID!) { webhook(id: $id) { deliveries(first: 100) { nodes { recordId action } } } }`;

  it('sends each change with the record as that change left it, though the later ones were queued behind a failing one', async () => {
    receiver.received.length = 0;
    receiver.answer = () => 500;
    const id = await createWebhook(`${receiver.url}?each`, ['EVENT']);
    const api = restClient(server);
    const event = await api.post('/events', {
      json: { title: 'Each first', start_date: tomorrow(8), end_date: tomorrow(9), status: 'publish' },
    });
    const eventId = event.body.id as number;
    const queued = async (count: number) => {
      for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
        const { webhook } = await server.gqlOk(DELIVERIES_OF, { id }, ADMIN_AUTHORIZATION);
        if (webhook.deliveries.nodes.filter((d: any) => d.recordId === eventId).length >= count) return;
      }
      throw new Error(`fewer than ${count} deliveries of event ${eventId} were queued`);
    };
    await queued(1);
    const renamed = await api.post(`/events/${eventId}`, { json: { title: 'Each second' } });
    expect(renamed.status).toBe(200);
    await queued(2);
    expect((await api.delete(`/events/${eventId}`)).status).toBe(200);
    await queued(3);
    // The receiver recovers only now: the update's first attempt comes after the trash.
    receiver.answer = () => 204;
    await receiver.waitFor(() => acceptedAt('?each', eventId).length >= 3);
    const bodies = acceptedAt('?each', eventId);
    expect(bodies.map((b) => [b.action, b.data?.title ?? null, b.superseded ?? false])).toEqual([
      ['created', 'Each first', false],
      ['updated', 'Each second', false],
      ['deleted', null, false],
    ]);
    expect(bodies[1].data).toMatchObject({
      id: eventId,
      title: 'Each second',
      status: 'publish',
      url: renamed.body.url,
    });
    expect(new Set(bodies.map((b) => b.id)).size).toBe(3);
    await server.gqlOk(`mutation ($id: ID!) { deleteWebhook(id: $id) }`, { id });
  });

  it('says a change was superseded, not the later state as its own, when the record changed again before it was read', async () => {
    // The first server holds the dispatcher's lease and looks at the log only every few seconds; the writes go
    // through a second server on the same database, so all three are read in one round.
    const holder = await startServer({ ...FAST_RETRIES, WEBHOOK_WAKE_MS: '6000' });
    const writer = await startServer(FAST_RETRIES, { databaseOf: holder });
    try {
      receiver.received.length = 0;
      receiver.answer = () => 204;
      await writer.gqlOk(CREATE, { input: { url: `${receiver.url}?superseded`, types: ['EVENT'], secret: SECRET } });
      const api = restClient(writer);
      const event = await api.post('/events', {
        json: { title: 'Quick first', start_date: tomorrow(8), end_date: tomorrow(9), status: 'publish' },
      });
      const eventId = event.body.id as number;
      expect((await api.post(`/events/${eventId}`, { json: { title: 'Quick second' } })).status).toBe(200);
      expect((await api.delete(`/events/${eventId}`)).status).toBe(200);
      const other = await api.post('/events', {
        json: { title: 'Quick other', start_date: tomorrow(8), end_date: tomorrow(9), status: 'publish' },
      });
      await receiver.waitFor(() => acceptedAt('?superseded', eventId).length >= 3, 15_000);
      const bodies = acceptedAt('?superseded', eventId);
      expect(bodies.map((b) => [b.action, b.superseded ?? false, b.data])).toEqual([
        ['created', true, null],
        ['updated', true, null],
        ['deleted', false, null],
      ]);
      // A record changed once in the same round is sent with its state.
      await receiver.waitFor(() => acceptedAt('?superseded', other.body.id).length > 0);
      const [otherBody] = acceptedAt('?superseded', other.body.id);
      expect(otherBody).toMatchObject({
        action: 'created',
        data: { id: other.body.id, title: 'Quick other' },
      });
      expect(otherBody.superseded).toBeUndefined();
    } finally {
      await writer.close();
      await holder.close();
    }
  }, 30_000);
});

describe('webhooks to private addresses', () => {
  let guarded: TestServer;
  beforeAll(async () => {
    guarded = await startServer({ WEBHOOK_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => guarded?.close());

  it.each([
    'http://127.0.0.1:9/',
    'http://localhost/',
    'http://10.1.2.3/',
    'http://192.168.0.1/',
    'http://169.254.169.254/latest',
    'http://[::1]/',
    'http://[fd00::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0.0.0.0/',
    'http://100.64.0.1/',
    // IPv4 carried inside IPv6: IPv4-compatible, IPv4-translated, NAT64, 6to4, Teredo (client 127.0.0.1).
    'http://[::7f00:1]/',
    'http://[::a9fe:a9fe]/',
    'http://[::ffff:0:7f00:1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:c0a8:101::1]/',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
  ])('refuses %s at creation without WEBHOOKS_ALLOW_PRIVATE', async (url) => {
    const result = await guarded.gql(CREATE, { input: { url } });
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(result.errors)).toContain('private or local');
  });

  it('refuses at delivery too: a name resolving to loopback is not connected to', async () => {
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    for (const url of [`http://localhost:${port}/hooks`, `http://127.0.0.1:${port}/hooks`]) {
      const outcome = await postOnce(url, '{}', {}, 1000, 'none');
      expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining('refused') });
    }
    expect(receiver.received).toHaveLength(0);
    expect(await postOnce(`http://127.0.0.1:${port}/hooks`, '{}', {}, 1000, 'all')).toEqual({ ok: true, status: 204 });
    // OUTBOUND_ALLOW_PRIVATE's ranges: this address allowed, another range not.
    expect(await postOnce(`http://localhost:${port}/hooks`, '{}', {}, 1000, ['127.0.0.0/8', '::1'])).toEqual({
      ok: true,
      status: 204,
    });
    expect(await postOnce(`http://127.0.0.1:${port}/hooks`, '{}', {}, 1000, ['10.0.0.0/8'])).toMatchObject({
      ok: false,
      error: expect.stringContaining('OUTBOUND_ALLOW_PRIVATE'),
    });
    await receiver.close();
  });

  it('does not follow a redirect', async () => {
    receiver.answer = () => 307;
    expect(await postOnce(receiver.url, '{}', {}, 1000, 'all')).toEqual({ ok: false, error: 'answered 307' });
    receiver.answer = () => 204;
  });
});
