import { randomUUID } from 'node:crypto';
import type { Db, DbTransaction } from '../db/client.js';
import { Prisma } from '../db/generated/prisma/client.js';
import { deliveryBody, type RenderRecord, snapshotsOf } from './bodies.js';
import {
  comparePositions,
  currentChangePosition,
  decodePosition,
  encodePosition,
  readChangesAfter,
  type ChangeEntry,
  type ChangePosition,
} from '../db/change-log.js';

/**
 * The delivery queues in the database (`WebhookDelivery`), one per webhook, as the dispatcher (src/webhooks/dispatcher.ts)
 * reads and moves them. A record's deliveries to a webhook go in change order: the earliest unfinished one is
 * `pending` (attempted at its `nextAttemptAt`), the later ones `waiting` behind it, until it is delivered or fails and
 * the next is made pending. So a webhook's pending deliveries are all it may send now or later, read earliest due
 * first from an index, whatever waits behind them and whatever other webhooks have queued.
 */

export type DeliveryRow = Awaited<ReturnType<Db['webhookDelivery']['findFirstOrThrow']>>;
export type WebhookRow = Awaited<ReturnType<Db['webhook']['findFirstOrThrow']>>;

const UNFINISHED = ['pending', 'waiting'];
/** The Setting row with the change-log position the dispatcher has turned into deliveries. */
const POSITION = 'webhook_dispatch_position';

/** The `WebhookDelivery` table as raw statements name it (rawTableName in src/db/client.ts). */
export type DeliveriesTable = Prisma.Sql;

export const deliveriesTable = (name: string): DeliveriesTable => Prisma.raw(name);

type RecordKey = Pick<DeliveryRow, 'webhookId' | 'recordType' | 'recordId'>;
const keyOf = (row: RecordKey) => `${row.webhookId} ${row.recordType} ${row.recordId}`;

export interface Queued {
  /** Whether the change log was read to its end. */
  caughtUp: boolean;
  /** The webhooks that got a pending delivery. */
  webhookIds: Set<number>;
}

/**
 * Turns the change-log entries after the stored position into deliveries, at most `maxRows` of them (or one entry's,
 * when it alone has more), each with its body (the record as the change left it: src/webhooks/bodies.ts), and moves
 * the position past them, in one short transaction.
 */
export async function queueChanges(
  db: Db,
  table: DeliveriesTable,
  maxRows: number,
  render: RenderRecord,
): Promise<Queued> {
  const entries = await readChangesAfter(db, await dispatchPosition(db), maxRows);
  if (entries.length === 0) return { caughtUp: true, webhookIds: new Set() };
  // Read after the entries: a webhook created (or enabled) since starts after all of them (its position is taken then).
  const webhooks = await db.webhook.findMany({
    where: { disabledAt: null },
    select: { id: true, types: true, fromVersion: true, fromSeq: true },
  });
  const rows: Array<ReturnType<typeof deliveryRow>> = [];
  const wanted: ChangeEntry[] = [];
  const now = new Date();
  let last = entries[0]!;
  for (const entry of entries) {
    const wanting = webhooks.filter((webhook) => wants(webhook, entry));
    if (rows.length > 0 && rows.length + wanting.length > maxRows) break;
    rows.push(...wanting.map((webhook) => deliveryRow(webhook.id, entry, now)));
    if (wanting.length > 0) wanted.push(entry);
    last = entry;
  }
  const caughtUp = entries.length < maxRows && last === entries.at(-1);
  // Bodies are made now when the log was read to its end: the changes are fresh, and the states they left are still
  // there to read. Behind a backlog (an import, changes made while no server ran) they are made at each delivery's
  // first attempt instead, which tells as much (each change's state is gone already, and the check for a later change
  // is the same) without rendering a whole backlog before the first delivery goes out. A record that could not be
  // rendered now is rendered at that attempt too (which logs why not).
  if (caughtUp) {
    const snapshots = await snapshotsOf(db, wanted, last, render);
    for (const row of rows) {
      const snapshot = snapshots.get(row.entry)!;
      if (!(snapshot instanceof Error)) row.body = deliveryBody(row, snapshot);
    }
  }
  const behindEarlier = await db.$transaction(async (tx) => {
    // A write first: the transaction holds SQLite's write lock from its start, and two processes that both believe
    // they dispatch queue on this row in PostgreSQL (the second then fails on the deliveries' unique key).
    const value = encodePosition(last);
    await tx.setting.upsert({ where: { name: POSITION }, create: { name: POSITION, value }, update: { value } });
    const busy = await recordsWithUnfinished(tx, rows);
    const behind = new Map<string, RecordKey>();
    for (const row of rows) {
      const key = keyOf(row);
      if (busy.has(key)) {
        row.status = 'waiting';
        if (busy.get(key) === 'before') behind.set(key, row);
      } else busy.set(key, 'batch');
    }
    await insertDeliveries(tx, table, rows);
    return [...behind.values()];
  });
  const webhookIds = new Set(rows.filter((row) => row.status === 'pending').map((row) => row.webhookId));
  // Queued behind a delivery that another process may have finished meanwhile, without seeing these yet.
  for (const record of behindEarlier) if (await promoteNext(db, record)) webhookIds.add(record.webhookId);
  return { caughtUp, webhookIds };
}

/**
 * One INSERT of many rows: a fifth of the time of as many `create`s, and without `createMany`'s query plans, which
 * Prisma compiles anew for each batch (and, in a batch transaction, keeps: a backlog of 66,000 changes once filled
 * the heap with them). Both drivers write Dates and BigInts as Prisma's own statements do.
 */
async function insertDeliveries(
  tx: DbTransaction,
  table: DeliveriesTable,
  rows: Array<ReturnType<typeof deliveryRow>>,
): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map(
    (row) =>
      Prisma.sql`(${row.id}, ${row.webhookId}, ${row.changeVersion}, ${row.changeSeq}, ${row.recordType}, ${row.recordId}, ${row.action}, ${row.changedAt}, ${row.status}, ${row.nextAttemptAt}, ${row.createdAt}, ${row.body})`,
  );
  await tx.$executeRaw`INSERT INTO ${table} ("id", "webhookId", "changeVersion", "changeSeq", "recordType", "recordId", "action", "changedAt", "status", "nextAttemptAt", "createdAt", "body") VALUES ${Prisma.join(values)}`;
}

/** Which of these rows' records already have an unfinished delivery to the row's webhook (marked `before`). */
async function recordsWithUnfinished(tx: DbTransaction, rows: RecordKey[]): Promise<Map<string, 'before' | 'batch'>> {
  if (rows.length === 0) return new Map();
  const groups = await tx.webhookDelivery.groupBy({
    by: ['webhookId', 'recordType', 'recordId'],
    where: {
      // Each column of the index's prefix constrained, so that it is read by lookups, not by a scan of the webhook's rows.
      webhookId: { in: [...new Set(rows.map((row) => row.webhookId))] },
      recordType: { in: [...new Set(rows.map((row) => row.recordType))] },
      recordId: { in: [...new Set(rows.map((row) => row.recordId))] },
      status: { in: UNFINISHED },
    },
  });
  return new Map(groups.map((group) => [keyOf(group), 'before' as const]));
}

/** Where the log was read to; the first time, the earliest webhook's start (or now, when there is none). */
async function dispatchPosition(db: Db): Promise<ChangePosition> {
  const stored = await db.setting.findUnique({ where: { name: POSITION } });
  const decoded = stored ? decodePosition(stored.value) : undefined;
  if (decoded) return decoded;
  const first = await db.webhook.findFirst({ orderBy: [{ fromVersion: 'asc' }, { fromSeq: 'asc' }] });
  return first ? { version: first.fromVersion, seq: first.fromSeq } : currentChangePosition(db);
}

/** A webhook's pending deliveries, the earliest due first (some may not be due yet). */
export function pendingDeliveries(db: Db, webhookId: number, limit: number): Promise<DeliveryRow[]> {
  return db.webhookDelivery.findMany({
    where: { webhookId, status: 'pending' },
    orderBy: { nextAttemptAt: 'asc' },
    take: limit,
  });
}

/**
 * Counts the attempt about to be made, notes when the first one was (`firstAttemptAt`, kept from an earlier attempt)
 * and plans its retry, unless someone attempted it meanwhile (false then), so that an attempt cut short by the death
 * of its process is retried by the next dispatcher.
 */
export async function claimAttempt(
  db: Db,
  delivery: DeliveryRow,
  firstAttemptAt: Date,
  retryAt: Date,
): Promise<boolean> {
  const { count } = await db.webhookDelivery.updateMany({
    where: { id: delivery.id, status: 'pending', attempts: delivery.attempts },
    data: { attempts: delivery.attempts + 1, nextAttemptAt: retryAt, firstAttemptAt },
  });
  return count > 0;
}

/** Ends a claimed attempt with the delivery delivered or failed for good; the record's next delivery becomes pending. */
export async function finishDelivery(
  db: Db,
  delivery: DeliveryRow,
  status: 'delivered' | 'failed',
  lastError: string | null,
): Promise<void> {
  await db.$transaction(async (tx) => {
    const { count } = await tx.webhookDelivery.updateMany({
      where: { id: delivery.id, status: 'pending', attempts: delivery.attempts + 1 },
      data: { status, lastError, ...(status === 'delivered' ? { deliveredAt: new Date() } : {}) },
    });
    if (count > 0) await promoteNext(tx, delivery);
  });
}

/** Keeps the body of a claimed delivery's first attempt, for its retries. */
export async function storeBody(db: Db, delivery: DeliveryRow, body: string): Promise<void> {
  await db.webhookDelivery.updateMany({ where: { id: delivery.id, body: null }, data: { body } });
}

/** Ends a claimed attempt that failed, to be retried at `retryAt`. */
export async function scheduleRetry(db: Db, delivery: DeliveryRow, lastError: string, retryAt: Date): Promise<void> {
  await db.webhookDelivery.updateMany({
    where: { id: delivery.id, status: 'pending', attempts: delivery.attempts + 1 },
    data: { lastError, nextAttemptAt: retryAt },
  });
}

/**
 * Marks up to `limit` of the webhook's unfinished deliveries failed with `reason` (a disabled webhook's: nothing is
 * sent to it any more); answers how many it found (fewer than `limit`: none is left).
 */
export async function failUnfinished(db: Db, webhookId: number, reason: string, limit: number): Promise<number> {
  const where = { webhookId, status: { in: UNFINISHED } };
  const batch = await db.webhookDelivery.findMany({ where, select: { id: true }, take: limit });
  if (batch.length === 0) return 0;
  await db.webhookDelivery.updateMany({
    where: { ...where, id: { in: batch.map((row) => row.id) } },
    data: { status: 'failed', lastError: reason },
  });
  return batch.length;
}

/** Makes the record's earliest waiting delivery pending, when it has none pending; true when it did. */
async function promoteNext(db: DbTransaction, record: RecordKey): Promise<boolean> {
  const where = { webhookId: record.webhookId, recordType: record.recordType, recordId: record.recordId };
  if (await db.webhookDelivery.findFirst({ where: { ...where, status: 'pending' }, select: { id: true } }))
    return false;
  const next = await db.webhookDelivery.findFirst({
    where: { ...where, status: 'waiting' },
    orderBy: [{ changeVersion: 'asc' }, { changeSeq: 'asc' }],
    select: { id: true },
  });
  if (!next) return false;
  const { count } = await db.webhookDelivery.updateMany({
    where: { id: next.id, status: 'waiting' },
    data: { status: 'pending', nextAttemptAt: new Date() },
  });
  return count > 0;
}

function wants(webhook: Pick<WebhookRow, 'types' | 'fromVersion' | 'fromSeq'>, entry: ChangeEntry): boolean {
  return (
    webhook.types.split(',').includes(entry.recordType) &&
    comparePositions(entry, { version: webhook.fromVersion, seq: webhook.fromSeq }) > 0
  );
}

function deliveryRow(webhookId: number, entry: ChangeEntry, now: Date) {
  return {
    id: randomUUID(),
    webhookId,
    changeVersion: entry.version,
    changeSeq: entry.seq,
    recordType: entry.recordType as string,
    recordId: entry.recordId,
    action: entry.action as string,
    changedAt: entry.changedAt,
    status: 'pending',
    nextAttemptAt: now,
    createdAt: now,
    body: null as string | null,
    /** The entry it was made of (not a column). */
    entry,
  };
}
