/**
 * Runs the import sources that are due, inside the server, in one process at a time across all of them (the
 * `import-sources` lease, as webhook delivery has its own): every FEED_CHECK_MS it looks for sources whose `nextRunAt`
 * has come (their schedule, or a run asked for over GraphQL) and runs them one after another (src/import/ical/run.ts
 * sets the next run: the schedule's, with backoff after failures, or none for a source run on demand).
 */
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { FeedUnreadable } from '../../ical/read-feed.js';
import type { Logger } from '../../logging/logger.js';
import { LeaseHolder } from '../../webhooks/lease.js';
import { FeedFailure, runSource } from './run.js';

const LEASE = 'import-sources';
/** Sources run per look; the others wait for the next. */
const RUNS_PER_ROUND = 10;

export class SourceScheduler {
  private readonly lease: LeaseHolder;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {
    this.lease = new LeaseHolder(db, LEASE, config.webhooks.leaseMs);
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), this.config.feeds.checkEveryMs).unref();
    this.wake();
  }

  /** Stops looking, lets a run under way finish, and gives the lease up. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
    await this.lease.release();
  }

  private wake(): void {
    if (this.running || this.closed) return;
    this.running = this.round()
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'import sources: a look failed',
        ),
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  private async round(): Promise<void> {
    if (!(await this.lease.renew(() => {}))) return;
    const due = await this.db.importSource.findMany({
      where: { nextRunAt: { lte: new Date() } },
      orderBy: { nextRunAt: 'asc' },
      take: RUNS_PER_ROUND,
      select: { id: true, url: true },
    });
    for (const source of due) {
      if (this.closed || !(await this.lease.renew(() => {}))) return;
      await this.runOne(source);
    }
  }

  private async runOne(source: { id: number; url: string }): Promise<void> {
    try {
      const { problems, ...counts } = await runSource(this.db, this.config, source.id);
      this.logger.info({ source: source.id, ...counts, problems: problems.length }, 'import sources: ran');
    } catch (error) {
      if (!(error instanceof FeedFailure || error instanceof FeedUnreadable)) throw error;
      this.logger.warn({ source: source.id, url: source.url, err: error.message }, 'import sources: the feed failed');
    }
  }
}
