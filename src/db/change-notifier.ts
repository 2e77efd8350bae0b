import type { Db } from './client.js';
import {
  comparePositions,
  currentChangePosition,
  readChangesAfter,
  type ChangeEntry,
  type ChangePosition,
} from './change-log.js';

/** Entries read from the log at once while catching up. */
const BATCH = 500;

/**
 * Entries read from the log at once, in commit order. Every subscriber is handed the same batch, frozen: work done
 * per batch can be shared between subscribers by its identity (src/graphql/changes/live.ts).
 */
export type ChangeBatch = readonly ChangeEntry[];

/** What a subscriber is handed: the entries committed after where it started, and a way to learn it fell behind. */
export interface SubscribeOptions {
  /** Start after this position (a client resuming from its cursor) rather than now; it must not be after now. */
  after?: ChangePosition;
  /** Told once, when the subscriber fell so far behind that its subscription ended (see ChangeNotifier's backlog). */
  onBacklog?: () => void;
}

/**
 * One subscriber's entries, from the position it subscribed at: an async iterator that ends when it is returned.
 * Entries committed before it subscribed (a resumed subscription) are read from the log as it asks for them, a batch at
 * a time; entries committed later are queued as the notifier reads them, up to `backlogLimit` entries not yet taken:
 * past that the subscription ends and `onBacklog` is told (its client resumes from its cursor: nothing is lost, and a
 * subscriber that never reads holds no more than that).
 */
class Subscription implements AsyncIterableIterator<ChangeBatch> {
  private readonly queue: ChangeBatch[] = [];
  private queued = 0;
  private waiting: ((result: IteratorResult<ChangeBatch>) => void) | undefined;
  private done = false;
  /** The entries still to read from the log: after `after`, up to and with `through` (where live batches start). */
  private history: { after: ChangePosition; through: ChangePosition } | undefined;

  constructor(
    private readonly from: ChangePosition,
    live: ChangePosition,
    private readonly db: Db,
    private readonly backlogLimit: number,
    private readonly options: SubscribeOptions,
    private readonly leave: (subscription: Subscription) => void,
  ) {
    if (comparePositions(from, live) < 0) this.history = { after: from, through: live };
  }

  push(batch: ChangeBatch): void {
    const after = (entry: ChangeEntry) => comparePositions(entry, this.from) > 0;
    // Batches come in commit order after the position each subscriber started from: each is handed on as it is.
    const fresh = batch.length > 0 && after(batch[0]!) ? batch : Object.freeze(batch.filter(after));
    if (this.done || fresh.length === 0) return;
    if (this.waiting && !this.history) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: fresh, done: false });
      return;
    }
    this.queue.push(fresh);
    this.queued += fresh.length;
    if (this.backlogLimit > 0 && this.queued > this.backlogLimit) {
      void this.return();
      this.options.onBacklog?.();
    }
  }

  async next(): Promise<IteratorResult<ChangeBatch>> {
    while (this.history && !this.done) {
      const batch = await this.readHistory(this.history);
      if (batch.length) return { value: batch, done: false };
    }
    if (this.queue.length) {
      const batch = this.queue.shift()!;
      this.queued -= batch.length;
      return { value: batch, done: false };
    }
    if (this.done) return { value: undefined, done: true };
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** The next batch of what was committed before the subscription, oldest first; empty once it is all read. */
  private async readHistory(history: { after: ChangePosition; through: ChangePosition }): Promise<ChangeBatch> {
    const entries = await readChangesAfter(this.db, history.after, BATCH);
    const batch = entries.filter((entry) => comparePositions(entry, history.through) <= 0);
    if (batch.length < BATCH || batch.length < entries.length) this.history = undefined;
    else history.after = batch.at(-1)!;
    return Object.freeze(batch);
  }

  /** The subscriber went away (a disconnected client, a finished operation): stop at once, even while waiting. */
  return(): Promise<IteratorResult<ChangeBatch>> {
    if (!this.done) {
      this.done = true;
      this.queue.length = 0;
      this.queued = 0;
      this.history = undefined;
      this.leave(this);
      this.waiting?.({ value: undefined, done: true });
      this.waiting = undefined;
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/**
 * Tells this process's subscribers of every committed change, in commit order, whichever process made it. While
 * anyone subscribes it asks the data version watch (src/db/data-version.ts: PostgreSQL LISTEN/NOTIFY, SQLite's
 * version row) every `pollMs` whether the version moved, which costs no statement on PostgreSQL and a microsecond
 * read on SQLite, and only then reads the new entries, once for all subscribers.
 */
export class ChangeNotifier {
  private readonly subscriptions = new Set<Subscription>();
  private position: ChangePosition | undefined;
  private seenVersion: bigint | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private closed = false;

  constructor(
    readonly db: Db,
    private readonly dataVersion: () => Promise<bigint>,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
    /** Entries a subscriber may leave untaken before its subscription ends (0: no limit). */
    private readonly backlogLimit = 0,
  ) {}

  /**
   * The entries committed from now on (or after `options.after`), in batches; `return()` on the iterator unsubscribes.
   */
  async subscribe(options: SubscribeOptions = {}): Promise<AsyncIterableIterator<ChangeBatch>> {
    if (this.closed) throw new Error('the change notifier is closed');
    // Nobody listened until now: start from the log's position now, not from where the last subscriber left.
    if (this.subscriptions.size === 0 && !this.reading) this.position = undefined;
    // Caught up first, so that the subscription starts at a position every later batch comes after; what came before
    // it (after `options.after`) the subscription reads from the log itself.
    await this.catchUp();
    if (this.closed) throw new Error('the change notifier is closed');
    const live = this.position!;
    const from = options.after ?? live;
    const subscription = new Subscription(from, live, this.db, this.backlogLimit, options, (gone) => this.leave(gone));
    this.subscriptions.add(subscription);
    this.timer ??= setInterval(() => void this.tick(), this.pollMs).unref();
    return subscription;
  }

  get subscriberCount(): number {
    return this.subscriptions.size;
  }

  /** Ends every subscription (shutdown: open streams must not keep the server from closing). */
  close(): void {
    this.closed = true;
    for (const subscription of [...this.subscriptions]) void subscription.return();
  }

  private leave(subscription: Subscription) {
    this.subscriptions.delete(subscription);
    if (this.subscriptions.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private async tick() {
    try {
      const version = await this.dataVersion();
      if (version !== this.seenVersion) await this.catchUp();
    } catch (error) {
      this.onError(error);
    }
  }

  /** Reads what was committed since the last read and hands it to the subscribers; one read at a time. */
  private catchUp(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read() {
    if (!this.position) {
      this.seenVersion = await this.dataVersion();
      this.position = await currentChangePosition(this.db);
      return;
    }
    this.seenVersion = await this.dataVersion();
    let position = this.position;
    for (;;) {
      const entries: ChangeBatch = Object.freeze(await readChangesAfter(this.db, position, BATCH));
      if (entries.length === 0) return;
      position = this.position = entries.at(-1)!;
      for (const subscription of this.subscriptions) subscription.push(entries);
      if (entries.length < BATCH) return;
    }
  }
}
