import { GraphQLError } from 'graphql';
import type { ChangeRecordType } from '../../db/change-log.js';
import type { ChangeBatch, ChangeNotifier } from '../../db/change-notifier.js';
import type { Context } from '../context.js';
import { ErrorCode } from '../errors.js';
import { eachAsSeen, readerViewOf, recordsInView, visibilityClassOf, type ReaderView, type SeenChange } from './visibility.js';

/** The most `changed` streams a process holds, per client address and in all (0: no limit). */
export interface StreamLimits {
  perClient: number;
  perProcess: number;
}

/** Seconds a refused subscriber is asked to wait: a place frees when a stream ends, which nothing here foresees. */
export const SUBSCRIPTION_RETRY_AFTER_SECONDS = 10;

/**
 * A stream refused past a limit: 429 when the client holds as many as one client may (its own doing), 503 when the
 * process holds as many as it takes (another process may have room), each with Retry-After.
 */
export class TooManySubscriptionsError extends GraphQLError {
  constructor(scope: 'client' | 'process', limit: number) {
    const retryAfter = SUBSCRIPTION_RETRY_AFTER_SECONDS;
    const message =
      scope === 'client'
        ? `This client already holds ${limit} open subscriptions, the most one client address may (SUBSCRIPTIONS_PER_CLIENT): close one first.`
        : `This server process holds ${limit} open subscriptions, the most it takes (SUBSCRIPTIONS_PER_PROCESS). Try again in ${retryAfter} seconds.`;
    const http = { status: scope === 'client' ? 429 : 503, headers: { 'retry-after': String(retryAfter) } };
    super(message, { extensions: { code: ErrorCode.tooManySubscriptions, scope, limit, retryAfter, http } });
  }
}

/** What one request may open: streams counted against its client's address, ended when the request is aborted. */
export interface ChangeStreams {
  /** The changes of these kinds (every kind when empty) committed from now on, as `reader` sees them. */
  open(reader: Context, types: readonly ChangeRecordType[]): Promise<AsyncIterableIterator<SeenChange>>;
}

/** Open streams per client address and in all; a place is taken before a stream opens and given back once. */
class StreamCounts {
  private readonly perClient = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: StreamLimits) {}

  /** Takes a place for a stream of this client, or refuses; answers the function that gives it back. */
  take(clientAddress: string): () => void {
    const held = this.perClient.get(clientAddress) ?? 0;
    if (this.limits.perClient > 0 && held >= this.limits.perClient) throw new TooManySubscriptionsError('client', this.limits.perClient);
    if (this.limits.perProcess > 0 && this.total >= this.limits.perProcess) throw new TooManySubscriptionsError('process', this.limits.perProcess);
    this.perClient.set(clientAddress, held + 1);
    this.total++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.total--;
      const left = this.perClient.get(clientAddress)! - 1;
      if (left > 0) this.perClient.set(clientAddress, left);
      else this.perClient.delete(clientAddress);
    };
  }
}

/** The records in view, per visibility class and kind of record, of one batch. */
type Checks = Map<string, Promise<Set<string>>>;

/**
 * This process's `changed` streams. Each is counted against its client's address and the process's total and refused
 * past either limit, and gives its place back the moment it ends (hang-up, aborted request, error, shutdown). The
 * notifier reads each batch of changes once for all; its visibility is then checked once per visibility class
 * (readers with equal views, src/graphql/changes/visibility.ts) and kind of record, by whichever subscriber of the
 * class comes to the batch first, so that the statements per change do not grow with the subscribers of a class.
 */
export class LiveChanges {
  private readonly counts: StreamCounts;
  /** Per batch, while a subscriber still holds it. */
  private readonly checked = new WeakMap<ChangeBatch, Checks>();

  constructor(
    private readonly notifier: ChangeNotifier,
    limits: StreamLimits,
  ) {
    this.counts = new StreamCounts(limits);
  }

  /** Streams that started (registered with the notifier). */
  get subscriberCount(): number {
    return this.notifier.subscriberCount;
  }

  /** The streams a request may open: counted against `clientAddress`, ended when `signal` aborts. */
  forRequest(clientAddress: string, signal: AbortSignal): ChangeStreams {
    return { open: (reader, types) => this.open(reader, types, clientAddress, signal) };
  }

  /** Ends every stream (shutdown). */
  close(): void {
    this.notifier.close();
  }

  private async open(reader: Context, types: readonly ChangeRecordType[], clientAddress: string, signal: AbortSignal) {
    const giveBack = this.counts.take(clientAddress);
    let stream: AsyncIterableIterator<SeenChange> | undefined;
    // Ended when its request is aborted: the HTTP layer never ends a stream whose client went while it was being made.
    const abort = () => void stream?.return?.();
    const ended = () => {
      giveBack();
      signal.removeEventListener('abort', abort);
    };
    try {
      stream = this.stream(readerViewOf(reader), await this.notifier.subscribe(), types, ended);
    } catch (error) {
      ended();
      throw error;
    }
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    return stream;
  }

  private stream(view: ReaderView, batches: AsyncIterableIterator<ChangeBatch>, types: readonly ChangeRecordType[], ended: () => void) {
    const visibilityClass = visibilityClassOf(view);
    const ready: SeenChange[] = [];
    let done = false;
    const end = async (): Promise<IteratorResult<SeenChange>> => {
      done = true;
      ready.length = 0;
      ended();
      await batches.return?.();
      return { value: undefined, done: true };
    };
    const iterator: AsyncIterableIterator<SeenChange> = {
      next: async () => {
        try {
          while (!done && ready.length === 0) {
            const batch = await batches.next();
            if (batch.done) break;
            const wanted = types.length ? batch.value.filter((entry) => types.includes(entry.recordType)) : batch.value;
            if (wanted.length) ready.push(...eachAsSeen(wanted, await this.inView(batch.value, view, visibilityClass, wanted)));
          }
          return done || ready.length === 0 ? await end() : { value: ready.shift()!, done: false };
        } catch (error) {
          await end();
          throw error;
        }
      },
      // Not an async generator: a client that goes away must unsubscribe at once, not at the next change.
      return: end,
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** The records of `wanted` (entries of `batch`) in the view: each kind checked once per class for the whole batch. */
  private async inView(batch: ChangeBatch, view: ReaderView, visibilityClass: string, wanted: ChangeBatch): Promise<Set<string>> {
    let checks = this.checked.get(batch);
    if (!checks) this.checked.set(batch, (checks = new Map()));
    const kinds = new Set(wanted.map((entry) => entry.recordType));
    const found = await Promise.all(
      [...kinds].map((kind) => {
        const key = `${kind} ${visibilityClass}`;
        let check = checks.get(key);
        if (!check) checks.set(key, (check = recordsInView(this.notifier.db, view, batch.filter((entry) => entry.recordType === kind))));
        return check;
      }),
    );
    return new Set(found.flatMap((records) => [...records]));
  }
}
