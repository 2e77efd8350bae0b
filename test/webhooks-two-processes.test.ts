// Two server processes on one database (a SQLite file, or a PostgreSQL schema): one of them (the holder of the dispatcher lease) sends each change,
// wherever it was made, within a second; when it dies, the other takes over.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, querySql, TEST_ENGINE, type TestDatabase } from './support/database.js';
import { PROCESS_ADMIN_PASSWORD, rest, startInstance, stop, type Instance } from './support/processes.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

const ENV = {
  WEBHOOKS_ALLOW_PRIVATE: '1',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_RETRY_MAX_MS: '200',
  WEBHOOK_LEASE_MS: '1500',
  WEBHOOK_WAKE_MS: '20',
};

let dir: string;
let database: TestDatabase;
let receiver: Receiver;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'calendar-webhooks-'));
  database = await freshDatabase(dir);
  receiver = await startReceiver();
  [a, b] = await Promise.all([startInstance(database.url, ENV), startInstance(database.url, ENV)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([a, b].filter((i) => i && i.child.exitCode === null && i.child.signalCode === null).map(stop));
  await receiver?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** The process holding an unexpired dispatcher lease (its owner is `<pid>-…`). */
async function leaseOwnerPid(): Promise<number | undefined> {
  const rows = await querySql(
    database.url,
    `SELECT "owner", "expiresAt" FROM "Lease" WHERE "name" = 'webhook-dispatcher'`,
  );
  const lease = rows[0];
  if (!lease || instantOf(lease.expiresAt) <= Date.now()) return undefined;
  return Number(String(lease.owner).split('-')[0]);
}

/** A stored DateTime as milliseconds: PostgreSQL gives a Date (UTC wall clock read as local), SQLite its stored text or number. */
function instantOf(value: unknown): number {
  if (value instanceof Date) return value.getTime() - value.getTimezoneOffset() * 60_000;
  return typeof value === 'number' ? value : Date.parse(String(value));
}

const tomorrow = (hour: number) =>
  `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)} ${String(hour).padStart(2, '0')}:00:00`;

async function createWebhook(instance: Instance) {
  const response = await fetch(`${instance.base}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`admin:${PROCESS_ADMIN_PASSWORD}`).toString('base64')}`,
    },
    body: JSON.stringify({
      query: `mutation ($url: String!) { createWebhook(input: { url: $url, types: [EVENT] }) { webhook { id } } }`,
      variables: { url: receiver.url },
    }),
  });
  const body = (await response.json()) as any;
  expect(body.errors).toBeUndefined();
}

describe(`webhooks with two server processes on one ${TEST_ENGINE} database`, () => {
  it('delivers a change made in either process within a second, from exactly one process', async () => {
    await createWebhook(a);
    const pids = [a.child.pid, b.child.pid];
    for (let n = 0; n < 6; n++) {
      const writer = n % 2 ? a : b;
      const created = await rest(writer, 'POST', '/events', {
        title: `Two processes ${n}`,
        start_date: tomorrow(10),
        end_date: tomorrow(11),
        status: 'publish',
      });
      expect(created.status).toBe(201);
      const written = Date.now();
      await receiver.waitFor(() => receiver.accepted().some((body) => body.record_id === created.body.id), 5000);
      expect(Date.now() - written).toBeLessThan(1000);
    }
    const owner = await leaseOwnerPid();
    expect(pids).toContain(owner);
    // Every delivery arrived once: no second process sent it too.
    const ids = receiver.received.map((r) => r.json.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(6);

    // The dispatching process dies: the other takes the lease over once it expires and sends what follows.
    const [dying, surviving] = owner === a.child.pid ? [a, b] : [b, a];
    dying.child.kill('SIGKILL');
    await new Promise((resolve) => dying.child.once('exit', resolve));
    const after = await rest(surviving, 'POST', '/events', {
      title: 'After the owner died',
      start_date: tomorrow(12),
      end_date: tomorrow(13),
      status: 'publish',
    });
    await receiver.waitFor(() => receiver.accepted().some((body) => body.record_id === after.body.id), 10_000);
    expect(await leaseOwnerPid()).toBe(surviving.child.pid);
  }, 60_000);
});
