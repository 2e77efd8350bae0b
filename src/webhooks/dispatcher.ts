import { randomUUID } from 'node:crypto';
import type { WebhookConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { comparePositions, currentChangePosition, decodePosition, encodePosition, readChangesAfter, type ChangeEntry, type ChangePosition } from '../db/change-log.js';
import type { Logger } from '../logging/logger.js';
import { holdLease, releaseLease } from './lease.js';
import { postOnce, type PostOutcome } from './post.js';
import { DELIVERY_HEADER, SIGNATURE_HEADER, signBody } from './signature.js';

/** The record as REST answers an anonymous reader, or null when it is gone or not public (src/server.ts renders it). */
export type RenderRecord = (recordType: string, recordId: number) => Promise<unknown>;

const LEASE = 'webhook-dispatcher';
/** The Setting row with the change-log position the dispatcher has turned into deliveries. */
const POSITION = 'webhook_dispatch_position';
const BATCH = 500;
/** Pending deliveries looked at per round; attempts made at once. */
const PENDING_WINDOW = 1000;
const PARALLEL = 8;

type DeliveryRow = Awaited<ReturnType<Db['webhookDelivery']['findFirstOrThrow']>>;
type WebhookRow = Awaited<ReturnType<Db['webhook']['findFirstOrThrow']>>;

/** The delay before attempt `attempts + 1`: doubling from the base up to the maximum, each with ±25% jitter. */
export function retryDelay(config: WebhookConfig, attempts: number): number {
  const exponential = Math.min(config.retryMaxMs, config.retryBaseMs * 2 ** Math.min(attempts - 1, 40));
  return Math.round(exponential * (0.75 + Math.random() * 0.5));
}

/** The JSON body of a delivery: the change, and the record as an anonymous REST reader sees it now. */
export function deliveryBody(delivery: DeliveryRow, data: unknown): string {
  const gone = data === null || data === undefined;
  return JSON.stringify({
    id: delivery.id,
    type: delivery.recordType,
    record_id: delivery.recordId,
    action: gone ? 'deleted' : delivery.action,
    modified_utc: delivery.changedAt.toISOString().slice(0, 19).replace('T', ' '),
    data: gone ? null : data,
  });
}

/**
 * Sends every change of the change log to the webhooks subscribed to its record type, from one process at a time
 * among all those serving the database (the one holding the `webhook-dispatcher` lease). It wakes when the data
 * version moves (src/db/data-version-watch.ts) and every `wakeMs` for due retries; it turns new log entries into
 * delivery rows (with its position, in one transaction), then attempts the due ones: per webhook and record, only
 * the oldest pending delivery, so that a record's changes arrive in order. An attempt is counted and its retry
 * scheduled before it is made, so a process killed during it leaves a delivery that the next holder retries.
 */
export class WebhookDispatcher {
  private readonly owner = `${process.pid}-${randomUUID()}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private seenVersion: bigint | undefined;
  private lastRound = 0;
  /** When the earliest pending delivery seen last round is due. */
  private nextDue = Number.POSITIVE_INFINITY;
  private holding = false;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly config: WebhookConfig,
    private readonly dataVersion: () => Promise<bigint>,
    private readonly render: RenderRecord,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.wake(), this.config.wakeMs).unref();
    void this.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
    if (this.holding) await releaseLease(this.db, LEASE, this.owner).catch(() => undefined);
  }

  /** A round when the data changed, when a retry is due, and at least every third of the lease (to renew or take it). */
  private async wake(): Promise<void> {
    if (this.running || this.closed) return;
    const version = await this.dataVersion().catch(() => undefined);
    const now = Date.now();
    const renewal = now - this.lastRound >= Math.min(this.config.leaseMs / 3, 1000);
    if (version === this.seenVersion && now < this.nextDue && !renewal) return;
    this.running = this.round(version).finally(() => (this.running = undefined));
    await this.running;
  }

  private async round(version: bigint | undefined): Promise<void> {
    this.lastRound = Date.now();
    try {
      this.holding = await holdLease(this.db, LEASE, this.owner, this.config.leaseMs);
      if (!this.holding) return;
      await this.enqueue();
      this.seenVersion = version;
      await this.sendDue();
    } catch (error) {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'webhooks: a dispatch round failed; retrying');
    }
  }

  /** Turns the log entries after the stored position into deliveries, a batch per transaction with the position. */
  private async enqueue(): Promise<void> {
    let position = await this.position();
    for (;;) {
      const entries = await readChangesAfter(this.db, position, BATCH);
      if (entries.length === 0) return;
      // Read after the entries: a webhook created since starts after all of them (its position is taken at creation).
      const webhooks = await this.db.webhook.findMany();
      const next = entries.at(-1)!;
      const rows = entries.flatMap((entry) => webhooks.filter((webhook) => wants(webhook, entry)).map((webhook) => deliveryRow(webhook, entry)));
      await this.db.$transaction([
        ...rows.map((data) => this.db.webhookDelivery.create({ data })),
        this.db.setting.upsert({ where: { name: POSITION }, create: { name: POSITION, value: encodePosition(next) }, update: { value: encodePosition(next) } }),
      ]);
      position = next;
      if (entries.length < BATCH || this.closed) return;
    }
  }

  /** Where the log was read to; the first time, the earliest webhook's start (or now, when there is none). */
  private async position(): Promise<ChangePosition> {
    const stored = await this.db.setting.findUnique({ where: { name: POSITION } });
    const decoded = stored ? decodePosition(stored.value) : undefined;
    if (decoded) return decoded;
    const first = await this.db.webhook.findFirst({ orderBy: [{ fromVersion: 'asc' }, { fromSeq: 'asc' }] });
    return first ? { version: first.fromVersion, seq: first.fromSeq } : currentChangePosition(this.db);
  }

  private async sendDue(): Promise<void> {
    const pending = await this.db.webhookDelivery.findMany({
      where: { status: 'pending' },
      orderBy: [{ changeVersion: 'asc' }, { changeSeq: 'asc' }],
      take: PENDING_WINDOW,
      include: { webhook: true },
    });
    // The oldest pending delivery of each (webhook, record) is the only one that may go now.
    const heads = new Map<string, (typeof pending)[number]>();
    for (const delivery of pending) {
      const key = `${delivery.webhookId} ${delivery.recordType} ${delivery.recordId}`;
      if (!heads.has(key)) heads.set(key, delivery);
    }
    const now = Date.now();
    const due = [...heads.values()].filter((delivery) => delivery.nextAttemptAt.getTime() <= now);
    const waiting = [...heads.values()].filter((delivery) => delivery.nextAttemptAt.getTime() > now);
    this.nextDue = Math.min(...waiting.map((delivery) => delivery.nextAttemptAt.getTime()));
    for (let i = 0; i < due.length && !this.closed; i += PARALLEL) {
      // Renewed before each batch (attempts last at most timeoutMs): a holder that lost it stops sending.
      if (i > 0 && !(this.holding = await holdLease(this.db, LEASE, this.owner, this.config.leaseMs))) return;
      await Promise.all(due.slice(i, i + PARALLEL).map((delivery) => this.attempt(delivery, delivery.webhook)));
    }
  }

  private async attempt(delivery: DeliveryRow, webhook: WebhookRow): Promise<void> {
    const attempts = delivery.attempts + 1;
    // Claimed before sending: only if no one attempted it meanwhile, and retried later if this process dies now.
    const { count } = await this.db.webhookDelivery.updateMany({
      where: { id: delivery.id, status: 'pending', attempts: delivery.attempts },
      data: { attempts, nextAttemptAt: new Date(Date.now() + this.config.timeoutMs + retryDelay(this.config, attempts)) },
    });
    if (count === 0) return;
    const outcome = await this.render(delivery.recordType, delivery.recordId).then(
      (data) => {
        const body = deliveryBody(delivery, data);
        const headers = { [SIGNATURE_HEADER]: signBody(body, webhook.secret), [DELIVERY_HEADER]: delivery.id };
        return postOnce(webhook.url, body, headers, this.config.timeoutMs, this.config.allowPrivate);
      },
      (error: unknown): PostOutcome => ({ ok: false, error: `not sent: ${error instanceof Error ? error.message : String(error)}` }),
    );
    if (outcome.ok) {
      await this.db.webhookDelivery.update({ where: { id: delivery.id }, data: { status: 'delivered', deliveredAt: new Date(), lastError: null } });
      this.nextDue = 0; // the record's next delivery, if any, may go now
      return;
    }
    const expired = Date.now() - delivery.createdAt.getTime() >= this.config.retryForMs;
    const nextAttemptAt = Date.now() + retryDelay(this.config, attempts);
    await this.db.webhookDelivery.update({
      where: { id: delivery.id },
      data: { lastError: outcome.error, ...(expired ? { status: 'failed' } : { nextAttemptAt: new Date(nextAttemptAt) }) },
    });
    this.nextDue = Math.min(this.nextDue, expired ? 0 : nextAttemptAt);
    this.logger.info({ webhook: webhook.id, delivery: delivery.id, attempts, error: outcome.error, failed: expired }, 'webhooks: a delivery attempt failed');
  }
}

function wants(webhook: WebhookRow, entry: ChangeEntry): boolean {
  return webhook.types.split(',').includes(entry.recordType) && comparePositions(entry, { version: webhook.fromVersion, seq: webhook.fromSeq }) > 0;
}

function deliveryRow(webhook: WebhookRow, entry: ChangeEntry) {
  return {
    id: randomUUID(),
    webhookId: webhook.id,
    changeVersion: entry.version,
    changeSeq: entry.seq,
    recordType: entry.recordType,
    recordId: entry.recordId,
    action: entry.action,
    changedAt: entry.changedAt,
    nextAttemptAt: new Date(),
  };
}
