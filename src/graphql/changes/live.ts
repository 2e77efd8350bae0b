import { clientKeyOf } from '../../http/request-head.js';
import { GraphQLError } from 'graphql';
import type { ChangeEntry, ChangeRecordType } from '../../db/change-log.js';
import type { ChangeBatch, ChangeNotifier } from '../../db/change-notifier.js';
import type { ChangeStreams, Context, Viewer } from '../builder.js';
import { ErrorCode } from '../errors.js';
import { StreamCredentials, type CredentialVerdict, type StreamViewer } from './credentials.js';
import { encodeCursor, positionOf } from './cursor.js';
import { eachAsSeen, readerViewOf, recordsInView, visibilityClassOf, type ReaderView } from './visibility.js';
import type { SeenChange } from './seen-change.js';

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

/** Seconds a subscriber refused while the process shuts down is asked to wait: another process, or this one restarted, takes it. */
export const SHUTTING_DOWN_RETRY_AFTER_SECONDS = 1;

/** A stream refused because its process is shutting down: 503 with Retry-After, to be asked again (of another process). */
export class ShuttingDownError extends GraphQLError {
  constructor() {
    const retryAfter = SHUTTING_DOWN_RETRY_AFTER_SECONDS;
    super(
      `This server process is shutting down. Subscribe again in ${retryAfter} second${retryAfter === 1 ? '' : 's'} (to another process, or to this service restarted).`,
      {
        extensions: {
          code: ErrorCode.shuttingDown,
          retryAfter,
          http: { status: 503, headers: { 'retry-after': String(retryAfter) } },
        },
      },
    );
  }
}

/** The last change a stream told of was when its credential was revoked (or its user deleted): it ends, for good. */
class CredentialRevokedError extends GraphQLError {
  constructor() {
    super('The credentials this subscription was made with were revoked: sign in again.', {
      extensions: { code: ErrorCode.unauthenticated, reason: 'revoked' },
    });
  }
}

/**
 * Why the server ended a stream. `reconnect`: its client is to subscribe again (to another process, when this one is
 * shutting down) from the cursor of the last change it received; the stream ends without `complete`, so that
 * EventSource and graphql-sse do so by themselves. Otherwise the stream ends for good, with `error` and `complete`.
 */
export type StreamEnd =
  | { reason: 'shutting-down' | 'backlog' | 'role-changed'; reconnect: true }
  | { reason: 'credential-revoked'; reconnect: false; error: GraphQLError };

/** What one request's stream may be opened with: the client's address, the request's abort signal, its Last-Event-ID. */
export interface StreamRequest {
  clientAddress: string;
  signal: AbortSignal;
  /** The `Last-Event-ID` header (EventSource resuming): the cursor to resume after, in place of `after`. */
  lastEventId?: string | null;
}

/**
 * One request's `changed` stream as its Server-Sent Events answer (src/graphql/changes/event-stream.ts) sees it: the
 * cursor of the last change it handed on (the event's `id`), and why the server ended it, if it did.
 */
export class RequestStream implements ChangeStreams {
  lastCursor: string | undefined;
  private ending: StreamEnd | undefined;
  private readonly listeners: ((end: StreamEnd) => void)[] = [];

  constructor(
    private readonly live: LiveChanges,
    readonly request: StreamRequest,
  ) {}

  open(reader: Context, types: readonly ChangeRecordType[], after?: string) {
    return this.live.open(this, reader, types, after);
  }

  /** Why the server ended the stream; undefined while it is open, or when its client ended it. */
  get ended(): StreamEnd | undefined {
    return this.ending;
  }

  /** Calls `listener` once the server ends the stream (at once if it did). */
  onEnd(listener: (end: StreamEnd) => void): void {
    if (this.ending) listener(this.ending);
    else this.listeners.push(listener);
  }

  endedBy(end: StreamEnd): void {
    if (this.ending) return;
    this.ending = end;
    for (const listener of this.listeners.splice(0)) listener(end);
  }
}

/** Open streams per client (clientKeyOf: an IPv6 address by its /64) and in all; a place is taken before a stream opens and given back once. */
class StreamCounts {
  private readonly perClient = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: StreamLimits) {}

  /** Takes a place for a stream of this client, or refuses; answers the function that gives it back. */
  take(clientAddress: string): () => void {
    const client = clientKeyOf(clientAddress);
    const held = this.perClient.get(client) ?? 0;
    if (this.limits.perClient > 0 && held >= this.limits.perClient)
      throw new TooManySubscriptionsError('client', this.limits.perClient);
    if (this.limits.perProcess > 0 && this.total >= this.limits.perProcess)
      throw new TooManySubscriptionsError('process', this.limits.perProcess);
    this.perClient.set(client, held + 1);
    this.total++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.total--;
      const left = this.perClient.get(client)! - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
    };
  }
}

/** The records in view, per visibility class and kind of record, of one batch. */
type Checks = Map<string, Promise<Set<string>>>;

/** What a stream is told of a batch: its changes as it sees them, or why it ends instead. */
type Told = { changes: SeenChange[] } | { end: StreamEnd };

const endOf = (verdict: Exclude<CredentialVerdict, 'valid'>): StreamEnd =>
  verdict === 'revoked'
    ? { reason: 'credential-revoked', reconnect: false, error: new CredentialRevokedError() }
    : { reason: 'role-changed', reconnect: true };

const streamViewerOf = (viewer: Viewer): StreamViewer | undefined =>
  viewer.user && viewer.credentialId !== undefined
    ? { credentialId: viewer.credentialId, role: viewer.user.role }
    : undefined;

/**
 * This process's `changed` streams. Each is counted against its client's address and the process's total and refused
 * past either limit, and gives its place back the moment it ends (hang-up, aborted request, error, shutdown). The
 * notifier reads each batch of changes once for all; its visibility is then checked once per visibility class
 * (readers with equal views, src/graphql/changes/visibility.ts) and kind of record, by whichever subscriber of the
 * class comes to the batch first, so that the statements per change do not grow with the subscribers of a class; so
 * are its cursors made, and the credentials of the signed-in streams checked (src/graphql/changes/credentials.ts).
 * The server ends a stream when its process shuts down (`drain`), when its subscriber fell too far behind (the
 * notifier's backlog), and when its credential was revoked or its user's role changed.
 */
export class LiveChanges {
  private readonly counts: StreamCounts;
  private readonly streams = new Set<LiveStream>();

  /** The subscription streams open now. */
  get openStreams(): number {
    return this.streams.size;
  }
  private readonly credentials: StreamCredentials<LiveStream>;
  /** Per batch, while a subscriber still holds it. */
  private readonly checked = new WeakMap<ChangeBatch, Checks>();
  private readonly cursors = new WeakMap<ChangeBatch, Promise<Map<ChangeEntry, string>>>();
  private draining = false;

  constructor(
    private readonly notifier: ChangeNotifier,
    limits: StreamLimits,
    onError: (error: unknown) => void = () => undefined,
  ) {
    this.counts = new StreamCounts(limits);
    this.credentials = new StreamCredentials(notifier.db, (stream, verdict) => stream.end(endOf(verdict)), onError);
  }

  /** Streams that started (registered with the notifier). */
  get subscriberCount(): number {
    return this.notifier.subscriberCount;
  }

  /** The stream a request may open: counted against its client's address, ended when its signal aborts. */
  forRequest(request: StreamRequest): RequestStream {
    return new RequestStream(this, request);
  }

  /**
   * Shutting down: every stream is ended so that its client subscribes again, elsewhere, from its last cursor, and
   * new subscriptions are refused (503, Retry-After: SHUTTING_DOWN_RETRY_AFTER_SECONDS).
   */
  drain(): void {
    this.draining = true;
    for (const stream of [...this.streams]) stream.end({ reason: 'shutting-down', reconnect: true });
  }

  /** Ends every stream and stops telling of changes (shutdown, after `drain`). */
  close(): void {
    this.drain();
    this.notifier.close();
  }

  async open(
    request: RequestStream,
    reader: Context,
    types: readonly ChangeRecordType[],
    after?: string,
  ): Promise<AsyncIterableIterator<SeenChange>> {
    if (this.draining) throw new ShuttingDownError();
    const giveBack = this.counts.take(request.request.clientAddress);
    const { signal } = request.request;
    const view = readerViewOf(reader);
    // Ended when its request is aborted: the HTTP layer never ends a stream whose client went while it was being made.
    const abort = () => void stream.return();
    const stream: LiveStream = new LiveStream(this, request, view, visibilityClassOf(view), types, () => {
      giveBack();
      signal.removeEventListener('abort', abort);
      this.streams.delete(stream);
      this.credentials.release(stream);
    });
    try {
      const cursor = request.request.lastEventId || after;
      const from = cursor ? await positionOf(reader, cursor) : undefined;
      // Held before it subscribes: the credential check of every batch it is handed includes it.
      const viewer = streamViewerOf(reader.viewer);
      if (viewer) this.credentials.hold(stream, viewer);
      this.streams.add(stream);
      stream.started(
        await this.notifier.subscribe({
          after: from,
          onBacklog: () => stream.end({ reason: 'backlog', reconnect: true }),
        }),
      );
      if (this.draining) throw new ShuttingDownError();
    } catch (error) {
      await stream.return();
      throw error;
    }
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    return stream;
  }

  /** What `stream` is told of `batch`: the changes it asked for as it sees them, unless its credential no longer holds. */
  async told(batch: ChangeBatch, stream: LiveStream): Promise<Told> {
    const verdict = await this.credentials.verdictAfter(batch, stream);
    if (verdict !== 'valid') return { end: endOf(verdict) };
    const wanted = stream.types.length ? batch.filter((entry) => stream.types.includes(entry.recordType)) : batch;
    if (!wanted.length) return { changes: [] };
    const [inView, cursors] = await Promise.all([
      this.inView(batch, stream.view, stream.visibilityClass, wanted),
      this.cursorsOf(batch),
    ]);
    return { changes: eachAsSeen(wanted, inView, (entry) => cursors.get(entry)!) };
  }

  /** The cursor of each entry of a batch, made once for every subscriber (with the process's client: no deadline). */
  private cursorsOf(batch: ChangeBatch): Promise<Map<ChangeEntry, string>> {
    let cursors = this.cursors.get(batch);
    if (!cursors) {
      const db = { db: this.notifier.db };
      cursors = Promise.all(batch.map(async (entry) => [entry, await encodeCursor(db, entry)] as const)).then(
        (pairs) => new Map(pairs),
      );
      this.cursors.set(batch, cursors);
    }
    return cursors;
  }

  /** The records of `wanted` (entries of `batch`) in the view: each kind checked once per class for the whole batch. */
  private async inView(
    batch: ChangeBatch,
    view: ReaderView,
    visibilityClass: string,
    wanted: ChangeBatch,
  ): Promise<Set<string>> {
    let checks = this.checked.get(batch);
    if (!checks) this.checked.set(batch, (checks = new Map()));
    const kinds = new Set(wanted.map((entry) => entry.recordType));
    const found = await Promise.all(
      [...kinds].map((kind) => {
        const key = `${kind} ${visibilityClass}`;
        let check = checks.get(key);
        if (!check)
          checks.set(
            key,
            (check = recordsInView(
              this.notifier.db,
              view,
              batch.filter((entry) => entry.recordType === kind),
            )),
          );
        return check;
      }),
    );
    return new Set(found.flatMap((records) => [...records]));
  }
}

/**
 * One open `changed` stream: the changes of the batches its notifier subscription hands it, one by one, as its reader
 * sees them. Not an async generator: a client that goes away must unsubscribe at once, not at the next change, and
 * the server must be able to end it while its client reads nothing.
 */
class LiveStream implements AsyncIterableIterator<SeenChange> {
  private readonly ready: SeenChange[] = [];
  private batches: AsyncIterableIterator<ChangeBatch> | undefined;
  private done = false;

  constructor(
    private readonly live: LiveChanges,
    private readonly request: RequestStream,
    readonly view: ReaderView,
    readonly visibilityClass: string,
    readonly types: readonly ChangeRecordType[],
    private readonly ended: () => void,
  ) {}

  started(batches: AsyncIterableIterator<ChangeBatch>): void {
    this.batches = batches;
    if (this.done) void batches.return?.();
  }

  async next(): Promise<IteratorResult<SeenChange>> {
    try {
      while (!this.done && this.ready.length === 0) {
        const batch = await this.batches!.next();
        if (batch.done || this.done) break;
        const told = await this.live.told(batch.value, this);
        if (this.done) break;
        if ('end' in told) {
          this.end(told.end);
          break;
        }
        this.ready.push(...told.changes);
      }
      if (this.done || this.ready.length === 0) return await this.return();
      const change = this.ready.shift()!;
      this.request.lastCursor = change.cursor;
      return { value: change, done: false };
    } catch (error) {
      await this.return();
      throw error;
    }
  }

  /** The server ends the stream, for `why` (its answer learns why from its RequestStream). */
  end(why: StreamEnd): void {
    if (this.done) return;
    this.request.endedBy(why);
    void this.return();
  }

  async return(): Promise<IteratorResult<SeenChange>> {
    if (!this.done) {
      this.done = true;
      this.ready.length = 0;
      this.ended();
      await this.batches?.return?.();
    }
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}
