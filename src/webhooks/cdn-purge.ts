import { type ChangeLogReader, type LogPosition, tagsOfChange } from '../cache/tags.js';
import type { CdnPurgeConfig } from '../config.js';
import { comparePositions, decodePosition, encodePosition } from '../db/change-log.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../logging/logger.js';
import { retryDelay } from './dispatcher.js';
import { LeaseHolder } from './lease.js';

const LEASE = 'cdn-purge';
/** The Setting row with the change-log position whose changes were purged. */
const POSITION = 'cdn_purge_position';
/** Change-log entries read per purge request. */
const ENTRIES_PER_PURGE = 500;
/** Tags per purge request at most (Fastly takes 256 keys per request; Varnish's header limit is 8 KB). */
const TAGS_PER_PURGE = 200;
/** The first retry of a failed purge; each later one doubles it, up to CDN_PURGE_RETRY_MAX_MS. */
const RETRY_BASE_MS = 1000;

/** Tags purged once, to be purged again when `at` comes (CDN_PURGE_REPEAT_MS). */
interface Repeat {
  at: number;
  tags: string[];
}

export interface PurgeTiming {
  /** WEBHOOK_LEASE_MS: how long the purging process's lease lasts unless renewed. */
  leaseMs: number;
  /** WEBHOOK_WAKE_MS: how often the purger asks the data version watch whether the data changed. */
  wakeMs: number;
}

/**
 * Purges a shared cache in front (a CDN, Varnish) of what every change of the change log made stale, from one process
 * at a time among all those serving the database (the one holding the `cdn-purge` lease), as the webhook dispatcher
 * follows the log (src/webhooks/dispatcher.ts). It wakes every `wakeMs` and acts when the data version moved: the
 * entries after the position stored in the database (`cdn_purge_position`) become one purge request carrying the tags
 * they made stale (`event:12` and `event`, src/cache/tags.ts), up to TAGS_PER_PURGE, and the position moves
 * past them once it succeeded. A failed request is logged and sent again (with what changed meanwhile) after a delay
 * doubling from 1 s to CDN_PURGE_RETRY_MAX_MS; a process taking over the lease goes on from the stored position.
 * Each purge is sent once more CDN_PURGE_REPEAT_MS after it succeeded (remembered in memory only).
 */
export class CdnPurger {
  private readonly lease: LeaseHolder;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** The data version up to which every change was purged. */
  private purgedVersion: bigint | undefined;
  private failures = 0;
  private retryAt = 0;
  private repeats: Repeat[] = [];
  private readonly stopping = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly log: ChangeLogReader,
    private readonly config: CdnPurgeConfig,
    private readonly timing: PurgeTiming,
    private readonly dataVersion: () => Promise<bigint>,
    private readonly logger: Logger,
  ) {
    this.lease = new LeaseHolder(db, LEASE, timing.leaseMs);
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), this.timing.wakeMs).unref();
    this.wake();
  }

  /** Stops purging (a request in flight is ended and sent again by the next holder) and gives the lease up. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.stopping.abort();
    await this.running;
    await this.lease.release();
  }

  private wake(): void {
    if (this.running || this.closed) return;
    this.running = this.round().finally(() => (this.running = undefined));
  }

  /** Purges what changed (a request at a time, to the log's end) when the data changed or a repeat is due. */
  private async round(): Promise<void> {
    const now = Date.now();
    if (now < this.retryAt) return;
    const version = await this.dataVersion().catch(() => undefined);
    const changed = version === undefined || version !== this.purgedVersion;
    const repeatDue = (this.repeats[0]?.at ?? Number.POSITIVE_INFINITY) <= now;
    if (!changed && !repeatDue && !this.lease.renewalDue) return;
    try {
      // Taken over: another process purged meanwhile (and its repeats are its own).
      if (!(await this.lease.renew(() => (this.purgedVersion = undefined)))) return;
      while (!this.closed && (await this.purgeStep())) {}
      if (!this.closed) this.purgedVersion = version;
      this.failures = 0;
    } catch (error) {
      this.failures++;
      const delay = retryDelay({ retryBaseMs: RETRY_BASE_MS, retryMaxMs: this.config.retryMaxMs }, this.failures);
      this.retryAt = Date.now() + delay;
      if (!this.closed)
        this.logger.warn(
          { err: error instanceof Error ? error.message : String(error), failures: this.failures, retryInMs: delay },
          'cdn purge: purging the shared cache failed; retrying',
        );
    }
  }

  /** Sends one purge request for the next changes and the due repeats; whether more changes are left to purge. */
  private async purgeStep(): Promise<boolean> {
    const position = await this.position();
    const entries = await this.log.after(position, ENTRIES_PER_PURGE);
    const tags = new Set<string>();
    let last: LogPosition | undefined;
    for (const entry of entries) {
      if (tags.size + 2 > TAGS_PER_PURGE) break;
      for (const tag of tagsOfChange(entry.table, entry.id)) tags.add(tag);
      last = { version: entry.version, seq: entry.seq };
    }
    const now = Date.now();
    const due = this.repeats.filter((repeat) => repeat.at <= now);
    const sent = new Set([...tags, ...due.flatMap((repeat) => repeat.tags)]);
    if (sent.size === 0) return false;
    await this.purge([...sent]);
    this.repeats = this.repeats.filter((repeat) => !due.includes(repeat));
    if (last) {
      await this.store(last);
      if (this.config.repeatAfterMs > 0) this.repeats.push({ at: now + this.config.repeatAfterMs, tags: [...tags] });
    }
    return last !== undefined && (entries.length === ENTRIES_PER_PURGE || last !== entries.at(-1));
  }

  /**
   * Where purging goes on from: the stored position, or the log's end the first time (nothing was cached before by
   * this service's headers, or it was purged by no one). When entries after it were pruned unread (purging failed
   * for CHANGES_RETENTION_DAYS), what they made stale has long expired from the shared cache: it goes on from the end.
   */
  private async position(): Promise<LogPosition> {
    const row = await this.db.setting.findUnique({ where: { name: POSITION } });
    const stored = row ? decodePosition(row.value) : undefined;
    const pruned = stored && (await this.log.prunedThrough());
    const gone = stored && pruned && comparePositions(pruned, stored) > 0;
    if (stored && !gone) return stored;
    if (gone) this.logger.warn({}, 'cdn purge: changes were pruned before they were purged; going on from the end');
    const end = await this.log.end();
    await this.store(end);
    return end;
  }

  private async store(position: LogPosition): Promise<void> {
    const value = encodePosition(position);
    await this.db.setting.upsert({ where: { name: POSITION }, create: { name: POSITION, value }, update: { value } });
  }

  /** One purge request; throws when it did not succeed (no answer in time, or not 2xx). */
  private async purge(tags: string[]): Promise<void> {
    const { url, style, header, timeoutMs } = this.config;
    const headers: Record<string, string> = header ? { [header[0]]: header[1] } : {};
    const init: RequestInit =
      style === 'ban'
        ? { method: 'BAN', headers: { ...headers, 'surrogate-key': tags.join(' ') } }
        : {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ tags }),
          };
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(timeoutMs)]);
    const response = await fetch(url, { ...init, redirect: 'manual', signal }).catch((error: unknown) => {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new Error(signal.aborted ? `no answer within ${timeoutMs} ms` : `network error: ${cause ?? error}`);
    });
    await response.arrayBuffer().catch(() => undefined);
    if (!response.ok) throw new Error(`answered ${response.status}`);
  }
}
