// A delivery is retried for WEBHOOK_RETRY_FOR_MS from its own first attempt (docs/sync-and-webhooks.md), not from when it was
// queued: the changes of a record that waited behind a failing delivery are still tried for the whole window once
// their turn comes. A webhook no attempt to which succeeded for WEBHOOK_DISABLE_AFTER_MS is disabled.
// Before: the window ran from the queuing, so a delivery that had waited behind one failing for the window was marked
// failed after a single attempt, and the receiver lost every later change of the record although it had recovered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTag } from './support/factories.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

const RETRY_FOR_MS = 1500;
const SHORT_RETRIES = {
  WEBHOOKS_ALLOW_PRIVATE: '1',
  WEBHOOK_RETRY_FOR_MS: String(RETRY_FOR_MS),
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_RETRY_MAX_MS: '200',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_WAKE_MS: '20',
};
/**
 * How much shorter than the window the span between the receiver's first and last request of a delivery may be: the
 * window starts as the first attempt is claimed (before its request) and is checked as the last attempt ends (after
 * its answer).
 */
const ROUND_TRIP_MS = 250;

interface Delivery {
  id: string;
  recordId: number;
  status: string;
  attempts: number;
  lastError: string | null;
}

async function createWebhook(server: TestServer, url: string): Promise<number> {
  const data = await server.gqlOk(
    `mutation ($url: String!) { createWebhook(input: { url: $url, types: [TAG] }) { webhook { databaseId } } }`,
    { url },
  );
  return data.createWebhook.webhook.databaseId;
}

/** The webhook's deliveries in change order. */
async function deliveries(server: TestServer, id: number): Promise<Delivery[]> {
  const { webhook } = await server.gqlOk(
    `query ($id: ID!) { webhook(id: $id) { deliveries(first: 100) { nodes { id recordId status attempts lastError } } } }`,
    { id },
    ADMIN_AUTHORIZATION,
  );
  return (webhook.deliveries.nodes as Delivery[]).reverse();
}

async function waitUntilFinished(server: TestServer, id: number, count: number, withinMs: number): Promise<Delivery[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const all = await deliveries(server, id);
    if (all.length === count && all.every((d) => d.status !== 'PENDING')) return all;
    if (Date.now() > deadline) throw new Error(`deliveries not finished within ${withinMs} ms: ${JSON.stringify(all)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A tag created and renamed `renames` times: that many + 1 changes of one record. */
async function changedTag(server: TestServer, renames: number): Promise<number> {
  const tag = await createTag(server);
  for (let n = 1; n <= renames; n++) {
    await server.gqlOk(
      `mutation ($id: ID!, $name: PlainText!) { updateEventTag(id: $id, input: { name: $name }) { id } }`,
      { id: tag.id, name: `${tag.slug} v${n}` },
    );
  }
  return tag.id;
}

describe('a delivery queued behind a failing one', () => {
  let server: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    server = await startServer(SHORT_RETRIES);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('is tried for the whole WEBHOOK_RETRY_FOR_MS from its own first attempt: delivered when the receiver recovers, failed only past its window', async () => {
    // Tag A: its first change fails for its whole window; the receiver recovers while the second is retried.
    // Tag B: every attempt fails; each change is tried for its own window, one after the other.
    let recovering: number | undefined;
    let tagA: number | undefined;
    const attemptsOf = (id: string) => receiver.received.filter((r) => r.json.id === id);
    receiver.answer = (request) => {
      if (request.json.record_id !== tagA) return 500;
      const idsOfA = [
        ...new Set(receiver.received.filter((r) => r.json.record_id === tagA).map((r) => r.json.id)),
        request.json.id,
      ];
      // Down until A's second change has been turned away twice.
      if (recovering === undefined && idsOfA.indexOf(request.json.id) === 1 && attemptsOf(request.json.id).length >= 2)
        recovering = Date.now();
      return recovering === undefined ? 500 : 204;
    };
    const webhookId = await createWebhook(server, receiver.url);
    tagA = await changedTag(server, 3);
    const tagB = await changedTag(server, 2);

    // On main: A's later changes and B's were marked failed after one attempt each, once their turn came.
    const all = await waitUntilFinished(server, webhookId, 7, 30_000);
    const ofA = all.filter((d) => d.recordId === tagA);
    const ofB = all.filter((d) => d.recordId === tagB);
    expect(ofA.map((d) => d.status)).toEqual(['FAILED', 'DELIVERED', 'DELIVERED', 'DELIVERED']);
    expect(ofB.map((d) => d.status)).toEqual(['FAILED', 'FAILED', 'FAILED']);
    expect(recovering).toBeDefined();

    // Every change of A queued behind the failed one reached the receiver, in change order, after its recovery.
    expect(
      receiver
        .accepted()
        .filter((body) => body.record_id === tagA)
        .map((body) => body.id),
    ).toEqual(ofA.slice(1).map((d) => d.id));
    expect(ofA[1]!.attempts).toBe(3);
    // Each failed delivery was tried, with its backoff, for the whole window from its own first attempt.
    for (const failed of [ofA[0]!, ...ofB]) {
      const attempts = attemptsOf(failed.id);
      expect(attempts.length, failed.id).toBe(failed.attempts);
      expect(attempts.length, failed.id).toBeGreaterThanOrEqual(3);
      expect(attempts.at(-1)!.at - attempts[0]!.at, failed.id).toBeGreaterThanOrEqual(RETRY_FOR_MS - ROUND_TRIP_MS);
      expect(failed.lastError).toBe('answered 500');
    }
    // B's changes were tried one after the other: each only once the one before it had failed.
    for (let n = 1; n < ofB.length; n++)
      expect(attemptsOf(ofB[n]!.id)[0]!.at).toBeGreaterThanOrEqual(attemptsOf(ofB[n - 1]!.id).at(-1)!.at);
  }, 60_000);
});

describe('a webhook no attempt to which succeeds for WEBHOOK_DISABLE_AFTER_MS', () => {
  const DISABLE_AFTER_MS = 4000;
  let server: TestServer;
  let down: Receiver;
  let healthy: Receiver;
  const logs: string[] = [];
  beforeAll(async () => {
    server = await startServer(
      { ...SHORT_RETRIES, WEBHOOK_DISABLE_AFTER_MS: String(DISABLE_AFTER_MS) },
      { logTo: { write: (line) => logs.push(line) } },
    );
    down = await startReceiver();
    down.answer = () => 500;
    healthy = await startReceiver();
  });
  afterAll(async () => {
    await server?.close();
    await down?.close();
    await healthy?.close();
  });

  const STATE = `query ($id: ID!) { webhook(id: $id) { status failingSince disabledAt } }`;
  const state = async (id: number) =>
    (await server.gqlOk(STATE, { id }, ADMIN_AUTHORIZATION)).webhook as {
      status: string;
      failingSince: string | null;
      disabledAt: string | null;
    };

  it('is disabled, its queue marked failed, nothing more queued for it until an administrator enables it again', async () => {
    const webhookId = await createWebhook(server, down.url);
    const tag = await changedTag(server, 4);
    const seen = new Set<string>();
    const deadline = Date.now() + 30_000;
    let disabled = await state(webhookId);
    for (; disabled.status !== 'DISABLED'; disabled = await state(webhookId)) {
      seen.add(disabled.status);
      expect(Date.now(), 'not disabled in time').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen).toContain('FAILING');
    expect(Date.parse(disabled.disabledAt!) - Date.parse(disabled.failingSince!)).toBeGreaterThanOrEqual(
      DISABLE_AFTER_MS,
    );
    expect(Date.parse(disabled.disabledAt!) - down.received[0]!.at).toBeGreaterThanOrEqual(
      DISABLE_AFTER_MS - ROUND_TRIP_MS,
    );
    expect(logs.filter((line) => line.includes('webhooks: disabled a webhook'))).toHaveLength(1);

    // Its unfinished deliveries are given up, with the reason; those never attempted were never sent.
    const all = await waitUntilFinished(server, webhookId, 5, 15_000);
    expect(all.every((d) => d.status === 'FAILED' && d.recordId === tag)).toBe(true);
    const notSent = all.filter((d) => d.attempts === 0);
    expect(notSent.length).toBeGreaterThanOrEqual(1);
    for (const d of notSent) {
      expect(d.lastError).toMatch(
        /^not sent: the webhook was disabled at .*, every attempt to it having failed since /,
      );
      expect(down.received.some((r) => r.json.id === d.id)).toBe(false);
    }
    expect(all[0]!.lastError).toBe('answered 500');

    // A change made while it is disabled is not queued for it (another webhook gets it).
    await createWebhook(server, healthy.url);
    const meanwhile = await createTag(server);
    await healthy.waitFor(() => healthy.accepted().some((body) => body.record_id === meanwhile.id));
    expect(await deliveries(server, webhookId)).toHaveLength(5);

    // Enabled again: the changes committed from then on are sent, not those made while it was disabled.
    down.answer = () => 204;
    const enabled = await server.gqlOk(
      `mutation ($id: ID!) { enableWebhook(id: $id) { status failingSince disabledAt } }`,
      { id: webhookId },
      ADMIN_AUTHORIZATION,
    );
    expect(enabled.enableWebhook).toEqual({ status: 'ACTIVE', failingSince: null, disabledAt: null });
    const after = await createTag(server);
    await down.waitFor(() => down.accepted().some((body) => body.record_id === after.id));
    expect(down.accepted().map((body) => body.record_id)).toEqual([after.id]);
    const missing = await server.gql(`mutation { enableWebhook(id: 999999) { id } }`, {}, ADMIN_AUTHORIZATION);
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  }, 60_000);
});
