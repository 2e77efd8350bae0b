/**
 * Runs the import sources that are due, inside the server, looking for them in one process at a time across all of
 * them (the `import-sources` lease, as webhook delivery has its own): every FEED_CHECK_MS it looks for sources whose
 * `nextRunAt` has come (their schedule, or a run asked for over GraphQL) and runs them one after another (./run.ts
 * sets the next run: the schedule's, with backoff after failures, or none for a source run on demand). Each run holds
 * its source's claim too: a run that outlasts the lease, and `sources run` on the command line, are never doubled.
 */
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../logging/logger.js';
import { LeaseHolder } from '../../webhooks/lease.js';
import { runSource, SourceBusy, SourceFailure } from './run.js';

const LEASE = 'import-sources';
/** Sources run per look; the others wait for the next. */
const RUNS_PER_ROUND = 10;

export class SourceScheduler {
  private readonly lease: LeaseHolder;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private closed = false;
  /** Stops a site's run between records at shutdown (it is due again at once, for the next process). */
  private readonly stopping = new AbortController();

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
    this.stopping.abort();
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
      const { kind, report, incomplete } = await runSource(this.db, this.config, source.id, this.stopping.signal);
      const { problems, ...counts } = report;
      this.logger.info(
        { source: source.id, kind, ...counts, problems: problems.length, ...(incomplete ? { err: incomplete } : {}) },
        'import sources: ran',
      );
    } catch (error) {
      if (error instanceof SourceBusy) return;
      if (!(error instanceof SourceFailure)) throw error;
      this.logger.warn({ source: source.id, url: source.url, err: error.message }, 'import sources: the run failed');
    }
  }
}
