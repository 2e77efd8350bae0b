import type { PrivateAddresses } from '../config.js';
import { newSecret, secretProblem } from './signature.js';
import type { Db } from '../db/client.js';
import { CHANGE_RECORD_TYPES, currentChangePosition, type ChangeRecordType } from '../db/change-log.js';
import { checkWebhookUrl } from './addresses.js';

/**
 * Webhooks as the CLI and the GraphQL API manage them (both call these; permissions are the callers'). A webhook
 * receives the changes committed after it was created.
 */
export interface WebhookView {
  id: number;
  url: string;
  types: ChangeRecordType[];
  status: WebhookStatus;
  /** Since when every attempt to it failed (src/webhooks/failing-streak.ts); null after a success. */
  failingSince: Date | null;
  /** When it was disabled, no attempt to it having succeeded for WEBHOOK_DISABLE_AFTER_MS; null while enabled. */
  disabledAt: Date | null;
  createdAt: Date;
}

export type WebhookStatus = 'active' | 'failing' | 'disabled';

/** Active, failing (its last attempt failed: see its deliveries) or disabled (nothing is queued or sent to it). */
export const webhookStatus = (webhook: { failingSince: Date | null; disabledAt: Date | null }): WebhookStatus =>
  webhook.disabledAt ? 'disabled' : webhook.failingSince ? 'failing' : 'active';

export interface CreatedWebhook extends WebhookView {
  /** Shown once, at creation. */
  secret: string;
}

export interface DeliveryView {
  id: string;
  recordType: string;
  recordId: number;
  action: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A delivery's status as shown: one waiting behind an earlier delivery of its record (src/webhooks/queue.ts) is pending. */
export const shownStatus = (status: string) => (status === 'waiting' ? 'pending' : status) as DeliveryStatus;

/** When a delivery is attempted next: null once it is done, and while it waits for an earlier one of its record. */
export const shownNextAttempt = (delivery: { status: string; nextAttemptAt: Date }) =>
  delivery.status === 'pending' ? delivery.nextAttemptAt : null;

/** A value the caller sent that cannot be used: the message completes "<what> …". */
export class WebhookInputError extends Error {
  constructor(
    readonly field: 'url' | 'types' | 'secret',
    message: string,
  ) {
    super(message);
  }
}

/** `event,venue` (or a list) → the record types, each known and once; all types when none are given. */
export function parseTypes(types: string | readonly string[] | undefined | null): ChangeRecordType[] {
  if (types == null) return [...CHANGE_RECORD_TYPES];
  const names = (typeof types === 'string' ? types.split(',') : types)
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((name) => !(CHANGE_RECORD_TYPES as readonly string[]).includes(name));
  if (unknown.length)
    throw new WebhookInputError(
      'types',
      `has unknown types ${unknown.join(', ')} (known: ${CHANGE_RECORD_TYPES.join(', ')})`,
    );
  if (names.length === 0)
    throw new WebhookInputError('types', `must name at least one of ${CHANGE_RECORD_TYPES.join(', ')}`);
  return CHANGE_RECORD_TYPES.filter((type) => names.includes(type));
}

const view = (row: {
  id: number;
  url: string;
  types: string;
  failingSince: Date | null;
  disabledAt: Date | null;
  createdAt: Date;
}): WebhookView => ({
  id: row.id,
  url: row.url,
  types: row.types.split(',') as ChangeRecordType[],
  status: webhookStatus(row),
  failingSince: row.failingSince,
  disabledAt: row.disabledAt,
  createdAt: row.createdAt,
});

export async function createWebhook(
  db: Db,
  input: { url: string; types?: string | readonly string[] | null; secret?: string | null },
  allowPrivate: PrivateAddresses,
): Promise<CreatedWebhook> {
  const types = parseTypes(input.types);
  const problem = input.secret == null ? null : secretProblem(input.secret);
  if (problem) throw new WebhookInputError('secret', problem);
  const url = await checkWebhookUrl(input.url, allowPrivate).catch((error: Error) => {
    throw new WebhookInputError('url', error.message);
  });
  const secret = input.secret ?? newSecret();
  const from = await currentChangePosition(db);
  const row = await db.webhook.create({
    data: { url: url.href, types: types.join(','), secret, fromVersion: from.version, fromSeq: from.seq },
  });
  return { ...view(row), secret };
}

export async function listWebhooks(db: Db): Promise<WebhookView[]> {
  return (await db.webhook.findMany({ orderBy: { id: 'asc' } })).map(view);
}

export async function findWebhook(db: Db, id: number): Promise<WebhookView | undefined> {
  const row = await db.webhook.findUnique({ where: { id } });
  return row ? view(row) : undefined;
}

/**
 * Enables a disabled webhook again: the changes committed from now on are sent to it (not those made while it was
 * disabled). Nothing changes for an enabled one. Answers it, or undefined when there is none.
 */
export async function enableWebhook(db: Db, id: number): Promise<WebhookView | undefined> {
  const from = await currentChangePosition(db);
  await db.webhook.updateMany({
    where: { id, disabledAt: { not: null } },
    data: { disabledAt: null, failingSince: null, fromVersion: from.version, fromSeq: from.seq },
  });
  return findWebhook(db, id);
}

/** Deletes the webhook and its deliveries (nothing more is sent); false when there was none. */
export async function deleteWebhook(db: Db, id: number): Promise<boolean> {
  const { count } = await db.webhook.deleteMany({ where: { id } });
  return count > 0;
}

/** A webhook's deliveries, newest first (finished ones for WEBHOOK_DELIVERY_RETENTION_DAYS: src/webhooks/delivery-retention.ts). */
export async function listDeliveries(db: Db, webhookId: number, limit = 100, offset = 0): Promise<DeliveryView[]> {
  const rows = await db.webhookDelivery.findMany({
    where: { webhookId },
    orderBy: [{ changeVersion: 'desc' }, { changeSeq: 'desc' }],
    skip: offset,
    take: limit,
  });
  return rows.map((row) => ({
    id: row.id,
    recordType: row.recordType,
    recordId: row.recordId,
    action: row.action,
    status: shownStatus(row.status),
    attempts: row.attempts,
    lastError: row.lastError,
    nextAttemptAt: shownNextAttempt(row),
    deliveredAt: row.deliveredAt,
    createdAt: row.createdAt,
  }));
}

export const countDeliveries = (db: Db, webhookId: number) => db.webhookDelivery.count({ where: { webhookId } });
