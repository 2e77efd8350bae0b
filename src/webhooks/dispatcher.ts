import type { WebhookConfig } from '../config.js';
import type { ChangeAction, ChangeRecordType } from '../db/change-log.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../logging/logger.js';
import { deliveryBody, type RenderRecord, snapshotsOf } from './bodies.js';
import { recordFailure, recordSuccess } from './failing-streak.js';
import { LeaseHolder } from './lease.js';
import { postOnce, type PostOutcome } from './post.js';
import {
  claimAttempt,
  deliveriesTable,
  failUnfinished,
  finishDelivery,
  pendingDeliveries,
  queueChanges,
  scheduleRetry,
  storeBody,
  type DeliveriesTable,
  type DeliveryRow,
  type WebhookRow,
} from './queue.js';
import { deliveryHeaders } from './signature.js';

const LEASE = 'webhook-dispatcher';
/**
 * Deliveries queued per round, in one transaction: a long change log is queued a short step at a time (a few
 * milliseconds of SQLite's write lock, and of the event loop, per step).
 */
const QUEUED_PER_ROUND = 200;
/** A disabled webhook's unfinished deliveries marked failed per round. */
const FAILED_PER_ROUND = 500;
/** After a round failed (the database unreachable…), the next one waits this long. */
const AFTER_FAILURE_MS = 1000;

/**
 * A turn of the event loop of its own for each round: better-sqlite3 answers synchronously, so rounds that follow
 * each other (a long change log being queued) would otherwise keep requests waiting for as long as they all last.
 */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** The delay before attempt `attempts + 1`: doubling from the base up to the maximum, each with ±25% jitter. */
export function retryDelay(config: Pick<WebhookConfig, 'retryBaseMs' | 'retryMaxMs'>, attempts: number): number {
  const exponential = Math.min(config.retryMaxMs, config.retryBaseMs * 2 ** Math.min(attempts - 1, 40));
  return Math.round(exponential * (0.75 + Math.random() * 0.5));
}

/** A delivery being attempted: its retry window started at its first attempt. */
type ClaimedDelivery = DeliveryRow & { firstAttemptAt: Date };

/**
 * Sends every change of the change log to the webhooks subscribed to its record type, from one process at a time
 * among all those serving the database (the one holding the `webhook-dispatcher` lease). It wakes when the data
 * version moves (src/db/data-version.ts), when an attempt ends, and every `wakeMs` for due retries. A round
 * queues a bounded step of new log entries as deliveries (src/webhooks/queue.ts), then starts the due deliveries of
 * each webhook that has a free slot, without waiting for them: at most `concurrencyPerWebhook` attempts per webhook
 * (one until an attempt to it succeeds, and again after one fails) and `concurrency` in all, the webhooks served in
 * turn. A receiver that never answers or keeps failing thus holds one slot, for `timeoutMs` per attempt; the others'
 * deliveries go on. A delivery is retried for `retryForMs` from its own first attempt (not from its queuing: one that
 * waited behind a failing delivery of its record gets the whole window too), then marked failed. A webhook no attempt
 * to which succeeded for `disableAfterMs` is disabled (src/webhooks/failing-streak.ts): nothing more is queued for
 * it, and its unfinished deliveries are marked failed, a step per round. An attempt is counted and its retry
 * scheduled before it is made, so a process killed during it leaves a delivery that the next holder retries.
 * Memory: the rows of one round (a slot's worth per webhook) and the bodies of the attempts in flight.
 */
export class WebhookDispatcher {
  private readonly lease: LeaseHolder;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The data version the change log was last queued to its end at. */
  private queuedVersion: bigint | undefined;
  /** When the next round has something to do without being woken (queue more changes, start a due delivery). */
  private nextDue = 0;
  private closed = false;
  private readonly stopping = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly inFlightPerWebhook = new Map<number, number>();
  /** Webhooks whose last attempt succeeded: they get all their slots, the others one attempt at a time. */
  private readonly answering = new Set<number>();
  /** When each webhook's earliest pending delivery is due, as last read; unknown (read it) when missing. */
  private readonly dueAt = new Map<number, number>();
  /** The index, in webhook order, of the webhook served first next round: each has its turn when slots are scarce. */
  private turn = 0;
  private readonly table: DeliveriesTable;

  constructor(
    private readonly db: Db,
    private readonly config: WebhookConfig,
    private readonly dataVersion: () => Promise<bigint>,
    private readonly render: RenderRecord,
    private readonly logger: Logger,
    /** The `WebhookDelivery` table as raw statements name it (rawTableName in src/db/client.ts). */
    deliveriesTableName: string,
  ) {
    this.lease = new LeaseHolder(db, LEASE, config.leaseMs);
    this.table = deliveriesTable(deliveriesTableName);
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), this.config.wakeMs).unref();
    this.wake();
  }

  /** Stops starting attempts, ends those in flight (each is retried later), and gives the lease up. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
    this.stopping.abort();
    await Promise.all(this.inFlight);
    await this.lease.release();
  }

  /** Starts a round unless one is running; when it ends with work already due, the next follows at once. */
  private wake(): void {
    if (this.running || this.closed) return;
    this.running = this.roundIfNeeded().finally(() => {
      this.running = undefined;
      if (!this.closed && this.nextDue <= Date.now()) setTimeout(() => this.wake(), 0);
    });
  }

  /** A round when the data changed, when something is due, and every third of the lease (to renew or take it). */
  private async roundIfNeeded(): Promise<void> {
    await nextTurn();
    const version = await this.dataVersion().catch(() => undefined);
    const now = Date.now();
    const changed = version === undefined || version !== this.queuedVersion;
    if (!changed && now < this.nextDue && !this.lease.renewalDue) return;
    try {
      this.nextDue = Number.POSITIVE_INFINITY;
      // Taken over: another process moved the queues meanwhile, so each is read again.
      if (!(await this.lease.renew(() => this.dueAt.clear()))) return;
      if (changed) await this.queue(version);
      await this.startDue();
    } catch (error) {
      this.nextDue = Date.now() + AFTER_FAILURE_MS;
      this.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'webhooks: a dispatch round failed; retrying',
      );
    }
  }

  /** Queues a step of the change log; the next round follows at once until it is all queued. */
  private async queue(version: bigint | undefined): Promise<void> {
    const queued = await queueChanges(this.db, this.table, QUEUED_PER_ROUND, this.render);
    for (const webhookId of queued.webhookIds) this.dueAt.delete(webhookId);
    if (queued.caughtUp) this.queuedVersion = version;
    else this.nextDue = 0;
  }

  /** Starts the due deliveries of each webhook with a free slot, in turn from where the last round stopped. */
  private async startDue(): Promise<void> {
    const all = await this.db.webhook.findMany({ orderBy: { id: 'asc' } });
    const ids = new Set(all.map((webhook) => webhook.id));
    for (const id of this.dueAt.keys()) if (!ids.has(id)) this.dueAt.delete(id);
    for (const id of this.answering) if (!ids.has(id)) this.answering.delete(id);
    const now = Date.now();
    for (const webhook of all) if (webhook.disabledAt) await this.failQueueOf(webhook, webhook.disabledAt, now);
    const webhooks = all.filter((webhook) => !webhook.disabledAt);
    let lastServed: number | undefined;
    for (let k = 0; k < webhooks.length && !this.closed && this.inFlight.size < this.config.concurrency; k++) {
      const index = (this.turn + k) % webhooks.length;
      const webhook = webhooks[index]!;
      const slots = this.answering.has(webhook.id) ? this.config.concurrencyPerWebhook : 1;
      const free = Math.min(
        slots - (this.inFlightPerWebhook.get(webhook.id) ?? 0),
        this.config.concurrency - this.inFlight.size,
      );
      if (free <= 0) continue; // woken again when one of its attempts ends
      const dueAt = this.dueAt.get(webhook.id) ?? now;
      if (dueAt > now) {
        this.nextDue = Math.min(this.nextDue, dueAt);
        continue;
      }
      const { started, nextDueAt } = await this.startDueOf(webhook, free, now);
      this.dueAt.set(webhook.id, nextDueAt);
      if (started < free) this.nextDue = Math.min(this.nextDue, nextDueAt);
      if (started > 0) lastServed = index;
    }
    if (lastServed !== undefined) this.turn = lastServed + 1;
  }

  /** Marks a step of a disabled webhook's unfinished deliveries failed; the next round goes on while any are left. */
  private async failQueueOf(webhook: WebhookRow, disabledAt: Date, now: number): Promise<void> {
    if ((this.dueAt.get(webhook.id) ?? now) > now) return;
    const since = webhook.failingSince
      ? `, every attempt to it having failed since ${webhook.failingSince.toISOString()}`
      : '';
    const found = await failUnfinished(
      this.db,
      webhook.id,
      `not sent: the webhook was disabled at ${disabledAt.toISOString()}${since}`,
      FAILED_PER_ROUND,
    );
    if (found === FAILED_PER_ROUND) this.nextDue = 0;
    else this.dueAt.set(webhook.id, Number.POSITIVE_INFINITY);
  }

  /** Starts up to `free` of the webhook's due deliveries; when its next pending one is due. */
  private async startDueOf(
    webhook: WebhookRow,
    free: number,
    now: number,
  ): Promise<{ started: number; nextDueAt: number }> {
    // One more than the slots: when the next one is due.
    const pending = await pendingDeliveries(this.db, webhook.id, free + 1);
    let started = 0;
    for (const delivery of pending) {
      const dueAt = delivery.nextAttemptAt.getTime();
      if (started === free || dueAt > now) return { started, nextDueAt: dueAt };
      if (await this.startAttempt(delivery, webhook)) started++;
    }
    // Read to the end; or some were claimed by another process meanwhile: read again shortly, not at once.
    return { started, nextDueAt: pending.length <= free ? Number.POSITIVE_INFINITY : now + this.config.wakeMs };
  }

  /** Claims the delivery and starts its attempt without waiting for it; false when it was claimed elsewhere. */
  private async startAttempt(delivery: DeliveryRow, webhook: WebhookRow): Promise<boolean> {
    const attempts = delivery.attempts + 1;
    const retryAt = new Date(Date.now() + this.config.timeoutMs + retryDelay(this.config, attempts));
    const firstAttemptAt = delivery.firstAttemptAt ?? new Date();
    if (!(await claimAttempt(this.db, delivery, firstAttemptAt, retryAt))) return false;
    this.inFlightPerWebhook.set(webhook.id, (this.inFlightPerWebhook.get(webhook.id) ?? 0) + 1);
    const attempt = this.attempt({ ...delivery, firstAttemptAt }, webhook).finally(() => {
      this.inFlight.delete(attempt);
      const left = this.inFlightPerWebhook.get(webhook.id)! - 1;
      if (left > 0) this.inFlightPerWebhook.set(webhook.id, left);
      else this.inFlightPerWebhook.delete(webhook.id);
      // A slot is free, and the record's next delivery may be pending now.
      this.dueAt.delete(webhook.id);
      this.nextDue = 0;
      this.wake();
    });
    this.inFlight.add(attempt);
    return true;
  }

  /**
   * The delivery's body, made when it was queued, or at its first attempt when it was queued behind a backlog or its
   * record could not be rendered then (src/webhooks/queue.ts). Kept with it, so that every retry sends the same bytes under the same `webhook-id` (a receiver
   * that saw one attempt and not its answer gets the same message again).
   */
  private async bodyOf(delivery: ClaimedDelivery): Promise<string> {
    if (delivery.body !== null) return delivery.body;
    const entry = {
      version: delivery.changeVersion,
      seq: delivery.changeSeq,
      recordType: delivery.recordType as ChangeRecordType,
      recordId: delivery.recordId,
      action: delivery.action as ChangeAction,
      columns: null,
      changedAt: delivery.changedAt,
    };
    const snapshot = (await snapshotsOf(this.db, [entry], entry, this.render)).get(entry)!;
    if (snapshot instanceof Error) throw snapshot;
    const body = deliveryBody(delivery, snapshot);
    await storeBody(this.db, delivery, body);
    return body;
  }

  /** Renders (the first time), signs and POSTs the delivery, and records how it went. Never rejects. */
  /** Attempts this process made since start: answered with a 2xx, failed (to be retried), given up on. */
  readonly attempts = { delivered: 0, failed: 0, gaveUp: 0 };

  private async attempt(delivery: ClaimedDelivery, webhook: WebhookRow): Promise<void> {
    let posted = false;
    const outcome = await this.bodyOf(delivery).then(
      (body) => {
        posted = true;
        return postOnce(
          webhook.url,
          body,
          deliveryHeaders(delivery.id, body, webhook.secret),
          this.config.timeoutMs,
          this.config.allowPrivate,
          this.stopping.signal,
        );
      },
      (error: unknown): PostOutcome => ({
        ok: false,
        error: `not sent: ${error instanceof Error ? error.message : String(error)}`,
      }),
    );
    const wasAnswering = this.answering.has(webhook.id);
    if (outcome.ok) this.answering.add(webhook.id);
    else this.answering.delete(webhook.id);
    try {
      if (outcome.ok) {
        this.attempts.delivered++;
        await finishDelivery(this.db, delivery, 'delivered', null);
        // Written only when there may be a failing streak (the row read says so, or this process saw no success of
        // the webhook since it last saw a failure or started), not at every success.
        if (webhook.failingSince || !wasAnswering) await recordSuccess(this.db, webhook.id);
        return;
      }
      const expired = Date.now() - delivery.firstAttemptAt.getTime() >= this.config.retryForMs;
      if (expired) {
        this.attempts.gaveUp++;
        await finishDelivery(this.db, delivery, 'failed', outcome.error);
      } else {
        this.attempts.failed++;
        await scheduleRetry(
          this.db,
          delivery,
          outcome.error,
          new Date(Date.now() + retryDelay(this.config, delivery.attempts + 1)),
        );
      }
      const attempts = delivery.attempts + 1;
      this.logger.info(
        { webhook: webhook.id, delivery: delivery.id, attempts, error: outcome.error, failed: expired },
        'webhooks: a delivery attempt failed',
      );
      // The receiver's failures only: not a record that could not be rendered, nor an attempt ended by a stop.
      const receiverFailed = posted && !this.stopping.signal.aborted;
      if (receiverFailed && (await recordFailure(this.db, webhook.id, this.config.disableAfterMs))) {
        this.logger.warn(
          { webhook: webhook.id, url: webhook.url, disableAfterMs: this.config.disableAfterMs },
          'webhooks: disabled a webhook no attempt to which succeeded for WEBHOOK_DISABLE_AFTER_MS',
        );
      }
    } catch (error) {
      // The claim already planned a retry.
      this.logger.warn(
        { webhook: webhook.id, delivery: delivery.id, err: error instanceof Error ? error.message : String(error) },
        'webhooks: recording an attempt failed',
      );
    }
  }
}
