import type { Db } from './client.js';
import { comparePositions, currentChangePosition, readChangesAfter, type ChangeEntry, type ChangePosition } from './change-log.js';

/** Entries read from the log at once while catching up. */
const BATCH = 500;

/**
 * Entries read from the log at once, in commit order. Every subscriber is handed the same batch, frozen: work done
 * per batch can be shared between subscribers by its identity (src/graphql/changes/live.ts).
 */
export type ChangeBatch = readonly ChangeEntry[];

/** One subscriber's entries, from the position it subscribed at: an async iterator that ends when it is returned. */
class Subscription implements AsyncIterableIterator<ChangeBatch> {
  private readonly queue: ChangeBatch[] = [];
  private waiting: ((result: IteratorResult<ChangeBatch>) => void) | undefined;
  private done = false;

  constructor(
    readonly from: ChangePosition,
    private readonly leave: (subscription: Subscription) => void,
  ) {}

  push(batch: ChangeBatch): void {
    const after = (entry: ChangeEntry) => comparePositions(entry, this.from) > 0;
    // Batches come in commit order after the position each subscriber started from: each is handed on as it is.
    const fresh = batch.length > 0 && after(batch[0]!) ? batch : Object.freeze(batch.filter(after));
    if (this.done || fresh.length === 0) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: fresh, done: false });
    } else this.queue.push(fresh);
  }

  next(): Promise<IteratorResult<ChangeBatch>> {
    if (this.queue.length) return Promise.resolve({ value: this.queue.shift()!, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** The subscriber went away (a disconnected client, a finished operation): stop at once, even while waiting. */
  return(): Promise<IteratorResult<ChangeBatch>> {
    if (!this.done) {
      this.done = true;
      this.queue.length = 0;
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
 * anyone subscribes it asks the data version watch (src/db/data-version-watch.ts: PostgreSQL LISTEN/NOTIFY, SQLite's
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
  ) {}

  /** The entries committed from now on, in batches; `return()` on the iterator unsubscribes. */
  async subscribe(): Promise<AsyncIterableIterator<ChangeBatch>> {
    if (this.closed) throw new Error('the change notifier is closed');
    // Nobody listened until now: start from the log's position now, not from where the last subscriber left.
    if (this.subscriptions.size === 0 && !this.reading) this.position = undefined;
    // Caught up first, so that the subscription starts at a position every later batch comes after.
    await this.catchUp();
    const subscription = new Subscription(this.position!, (gone) => this.leave(gone));
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
