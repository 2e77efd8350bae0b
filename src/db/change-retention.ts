import type { Logger } from '../logging/logger.js';
import type { Db } from './client.js';
import { pruneChanges } from './change-log.js';

const DAY_MS = 24 * 3600_000;

/**
 * Deletes the change log's entries (deletions included) older than `retentionDays`, at start and every `intervalMs`.
 * Every process does it; they serialise on the data-version lock and the later ones find nothing. Answers a stop.
 */
export function pruneChangesPeriodically(
  db: Db,
  retentionDays: number,
  intervalMs: number,
  logger: Logger,
): () => void {
  const prune = async () => {
    try {
      const count = await pruneChanges(db, new Date(Date.now() - retentionDays * DAY_MS));
      if (count > 0) logger.info({ count, retentionDays }, 'change log: pruned entries past the retention');
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'change log: pruning failed; trying again at the next interval',
      );
    }
  };
  const first = setTimeout(() => void prune(), 0).unref();
  const timer = setInterval(() => void prune(), intervalMs).unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
