import type { Db } from '../db/client.js';
import type { Logger } from '../logging/logger.js';

const DAY_MS = 24 * 3600_000;
/** Deliveries deleted per statement: each delete is a short write, whatever the number past the retention. */
const BATCH = 500;
const FINISHED = ['delivered', 'failed'];

/**
 * Deletes the deliveries delivered or failed that were queued before `before`, a batch per statement (each its own
 * short transaction, with a turn for other work between them) while `keepGoing()`; answers how many went. Pending
 * ones stay, however old.
 */
export async function pruneDeliveries(db: Db, before: Date, keepGoing = () => true): Promise<number> {
  let count = 0;
  for (const status of FINISHED) {
    // One status at a time, oldest first: the order of the (status, createdAt) index, so no batch sorts the rest.
    const where = { status, createdAt: { lt: before } };
    for (;;) {
      const batch = await db.webhookDelivery.findMany({
        where,
        orderBy: { createdAt: 'asc' },
        select: { id: true },
        take: BATCH,
      });
      if (batch.length > 0)
        count += (await db.webhookDelivery.deleteMany({ where: { ...where, id: { in: batch.map((row) => row.id) } } }))
          .count;
      if (!keepGoing()) return count;
      if (batch.length < BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return count;
}

/**
 * Deletes finished deliveries older than `retentionDays`, at start and every `intervalMs` (the change log's
 * CHANGES_PRUNE_INTERVAL_MS). Every process does it; the later ones find nothing. Answers a stop, which resolves
 * once the batch being deleted is.
 */
export function pruneDeliveriesPeriodically(
  db: Db,
  retentionDays: number,
  intervalMs: number,
  logger: Logger,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  let stopped = false;
  const prune = async () => {
    try {
      const count = await pruneDeliveries(db, new Date(Date.now() - retentionDays * DAY_MS), () => !stopped);
      if (count > 0) logger.info({ count, retentionDays }, 'webhooks: pruned deliveries past the retention');
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'webhooks: pruning deliveries failed; trying again at the next interval',
      );
    }
  };
  const start = () => void (running ??= prune().finally(() => (running = undefined)));
  const first = setTimeout(start, 0).unref();
  const timer = setInterval(start, intervalMs).unref();
  return async () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
