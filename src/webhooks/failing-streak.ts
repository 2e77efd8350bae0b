import type { Db } from '../db/client.js';

/**
 * A webhook's failing streak as the dispatcher records the outcome of each attempt: `failingSince` is the first
 * failure after its last success. A webhook no attempt to which succeeded for WEBHOOK_DISABLE_AFTER_MS is disabled
 * (`disabledAt`), so that the queues of a receiver gone for good stop growing; an administrator enables it again
 * (src/webhooks/webhooks.ts).
 */

/** Ends the webhook's failing streak, if it has one. */
export async function recordSuccess(db: Db, webhookId: number): Promise<void> {
  await db.webhook.updateMany({ where: { id: webhookId, failingSince: { not: null } }, data: { failingSince: null } });
}

/** Starts the webhook's failing streak, or disables it when the streak has lasted `disableAfterMs`; true when it did. */
export async function recordFailure(db: Db, webhookId: number, disableAfterMs: number): Promise<boolean> {
  const now = new Date();
  const started = await db.webhook.updateMany({
    where: { id: webhookId, failingSince: null },
    data: { failingSince: now },
  });
  if (started.count > 0) return false;
  const { count } = await db.webhook.updateMany({
    where: { id: webhookId, disabledAt: null, failingSince: { lte: new Date(now.getTime() - disableAfterMs) } },
    data: { disabledAt: now },
  });
  return count > 0;
}
