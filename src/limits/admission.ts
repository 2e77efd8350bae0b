import { performance } from 'node:perf_hooks';
import { ErrorCode } from '../graphql/errors.js';
import type { RefusalReason } from '../logging/logger.js';

// Admission: whether a request is taken or shed (LoadShedder), and when a request taken starts its work (StartPacing on
// SQLite, FairRunningLimit on PostgreSQL), the lightest client's first.

/**
 * Sheds load instead of timing everyone out, and sheds the clients that cause it first. A process given more requests
 * than it can serve makes each of them wait for all the others; instead, a request that arrives while the process is
 * behind is answered at once (which costs next to nothing), so the requests already taken finish in time and the
 * health check (never shed, see server.ts) keeps answering. "Behind" is any of:
 *
 * - the event loop has not come round for MAX_EVENT_LOOP_LAG_MS: requests are waiting in the socket queue. This is
 *   how SQLite falls behind: its statements run on the loop's own thread, so a flood queues outside the process,
 *   where only the loop's lateness shows it;
 * - MAX_IN_FLIGHT requests are being worked on: how PostgreSQL (whose statements run elsewhere) falls behind;
 * - the loop has been busy nearly all the time lately (SATURATED) while more than one client is using it: nothing is
 *   late yet, but each request waits for the others' work, a few long ones (feeds) suffice.
 *
 * Short of that, while the loop is merely BUSY with more than one client about, a client over its share gets one
 * request at a time (429 for the others), so that its long requests never run side by side (on PostgreSQL they
 * would interleave on the loop and make every other request wait for all of them).
 *
 * Whom to refuse: each client (an address, see clientKeyOf in src/http/request-head.ts) has a load, the time its requests took lately (decaying,
 * half of it forgotten every LOAD_HALF_LIFE_MS) plus the time its requests in flight have taken so far, each moment
 * shared out among the requests in flight then (a request slowed down by others' work is not charged for it), and at
 * least MIN_REQUEST_COST_MS a request. The time is measured, so a request costs what it really cost: a response-cache
 * hit or a refusal next to nothing (the floor), a feed rendered for a random password its whole render, whatever its
 * kind. While the process is behind, a client holding at least its share
 * (#overShare) is refused with 429 (its own excess: it alone is asked to slow down); the others' requests are still
 * taken, up to twice MAX_IN_FLIGHT, and answered 503 beyond (the process as a whole is behind). The same load orders
 * the requests waiting to start (StartPacing and FairRunningLimit below): the lightest client's first.
 *
 * Per process: with WORKERS=N each process counts on its own.
 */
export class LoadShedder {
  readonly #clients = new Map<string, ClientLoad>();
  /** All clients together (the evicted ones' decayed cost taken out). */
  readonly #total = new ClientLoad();
  #lastTurn = performance.now();
  #sharedTime = 0;
  #sharedTimeAt = performance.now();
  #utilization = 0;
  #loopUsage = performance.eventLoopUtilization();
  #turns = 0;
  readonly #heartbeat: NodeJS.Timeout;

  /** 0 switches either bound off (MAX_EVENT_LOOP_LAG_MS = 0 switches saturation off too). */
  constructor(
    private readonly maxInFlight: number,
    private readonly maxLagMs: number,
  ) {
    // A timer that the loop runs once per turn at most: how late it is tells how long the loop has been busy.
    this.#heartbeat = setInterval(() => this.#beat(), HEARTBEAT_MS).unref();
  }

  /** Takes a request of `client` (clientKeyOf), or refuses it; either way `finish()` ends its accounting. */
  admit(client: string): Ticket {
    const now = performance.now();
    const behind = this.#behind(now);
    const load = this.#clients.get(client);
    // Busy or saturated, a client over its share gets one request at a time: its long ones (feeds) never run side by
    // side, and a client waiting for each answer before it asks again is never refused for work that is not its own
    // (the loop saturated by deliveries to subscribers, webhooks, series being extended). Late, nothing more is taken.
    const inFlightAllowed = behind === 'saturated' || (!behind && this.#busy()) ? 1 : behind ? 0 : Infinity;
    if (load && load.inFlight >= inFlightAllowed && this.#overShare(load, now))
      return this.#refused(client, now, TOO_MANY);
    if (behind && this.maxInFlight > 0 && this.#total.inFlight >= this.maxInFlight * HARD_BOUND_FACTOR)
      return this.#refused(client, now, OVERLOADED);
    return this.enter(client, now);
  }

  /** Takes a request without asking (in-process callers of the app, which no one floods). */
  enter(client: string, now = performance.now()): Ticket {
    const load = this.#loadOf(client);
    const started = this.#sharedNow(now);
    load.start(started, now);
    this.#total.start(started, now);
    return new Ticket(
      null,
      () => this.#loadNow(load, performance.now()),
      (end) => {
        const shared = this.#sharedNow(end);
        load.end(started, shared, end);
        this.#total.end(started, shared, end);
      },
    );
  }

  close(): void {
    clearInterval(this.#heartbeat);
  }

  /**
   * The time shared out among the requests in flight so far: each is charged its part of every moment (the moment ÷
   * the requests in flight then), so that a request slowed down by others' work is not charged for it.
   */
  #sharedNow(now: number): number {
    if (now <= this.#sharedTimeAt) return this.#sharedTime;
    if (this.#total.inFlight > 0) this.#sharedTime += (now - this.#sharedTimeAt) / this.#total.inFlight;
    this.#sharedTimeAt = now;
    return this.#sharedTime;
  }

  #loadNow(load: ClientLoad, now: number): number {
    return load.costNow(now, this.#sharedNow(now));
  }

  #refused(client: string, now: number, refusal: Refusal): Ticket {
    const load = this.#loadOf(client);
    load.count(now);
    this.#total.count(now);
    return new Ticket(
      refusal,
      () => 0,
      (end) => {
        const cost = Math.max(end - now, MIN_REQUEST_COST_MS);
        load.charge(cost, end);
        this.#total.charge(cost, end);
      },
    );
  }

  #behind(now: number): Behind | null {
    if (this.maxInFlight > 0 && this.#total.inFlight >= this.maxInFlight) return 'in_flight';
    if (this.maxLagMs === 0) return null;
    if (now - this.#lastTurn > HEARTBEAT_MS + this.maxLagMs) return 'event_loop_lag';
    return this.#utilization >= SATURATED && this.#clients.size > 1 ? 'saturated' : null;
  }

  /** Whether the event loop worked more than half of the last moments, with more than one client about. */
  #busy(): boolean {
    return this.maxLagMs > 0 && this.#utilization >= BUSY && this.#clients.size > 1;
  }

  /**
   * Whether the client holds at least its share of the process: of the requests in flight (MAX_IN_FLIGHT shared
   * among the clients seen lately: a burst of requests that have only just started has next to no load yet), or of
   * both the load and the requests made lately (at least the clients' average of each: a client whose few requests
   * take long only because the loop is busy with another's many is not the one to refuse). A newcomer never does.
   */
  #overShare(load: ClientLoad, now: number): boolean {
    const clients = this.#clients.size;
    if (this.maxInFlight > 0 && load.inFlight > 0 && load.inFlight * clients >= this.maxInFlight) return true;
    const mine = this.#loadNow(load, now);
    if (mine <= 0 || mine * clients < this.#loadNow(this.#total, now)) return false;
    return load.requestsNow(now) * clients >= this.#total.requestsNow(now);
  }

  #loadOf(client: string): ClientLoad {
    const key = this.#clients.has(client) || this.#clients.size < MAX_TRACKED_CLIENTS ? client : UNTRACKED;
    let load = this.#clients.get(key);
    if (!load) this.#clients.set(key, (load = new ClientLoad()));
    return load;
  }

  #beat(): void {
    const now = performance.now();
    const usage = performance.eventLoopUtilization();
    const lately = performance.eventLoopUtilization(usage, this.#loopUsage);
    this.#loopUsage = usage;
    const weight = 1 - Math.exp(-(now - this.#lastTurn) / SATURATION_WINDOW_MS);
    this.#utilization += (lately.utilization - this.#utilization) * weight;
    this.#lastTurn = now;
    if (++this.#turns % FORGET_EVERY_TURNS === 0) this.#forgetIdle(now);
  }

  /** Drops the clients with nothing in flight whose cost has faded: memory stays bounded by the clients of late. */
  #forgetIdle(now: number): void {
    for (const [key, load] of this.#clients) {
      if (load.inFlight > 0) continue;
      const cost = this.#loadNow(load, now);
      if (cost >= FORGET_BELOW_MS) continue;
      this.#clients.delete(key);
      this.#total.charge(-cost, now);
    }
  }
}

/** A request's place in the accounting. */
export class Ticket {
  #finished = false;

  constructor(
    /** Why it is refused, or null when it is taken. */
    readonly refusal: Refusal | null,
    /** Its client's load now: waiting requests start lightest client first. */
    readonly rank: () => number,
    private readonly end: (now: number) => void,
  ) {}

  /** Ends its accounting: its time is charged to its client. Only the first call counts. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.end(performance.now());
  }
}

/** Requests in flight and time spent lately, of one client or of all (shared time: see LoadShedder.#sharedNow). */
class ClientLoad {
  inFlight = 0;
  /** Sum of the shared times the requests in flight started at: their part so far is inFlight × shared − startedSum. */
  #startedSum = 0;
  #cost = 0;
  #costAt = 0;
  /** Requests made lately, admitted or refused (decaying like the cost). */
  #requests = 0;
  #requestsAt = 0;

  start(shared: number, now: number): void {
    this.inFlight++;
    this.#startedSum += shared;
    this.count(now);
  }

  count(now: number): void {
    this.#requests = this.requestsNow(now) + 1;
    this.#requestsAt = now;
  }

  requestsNow(now: number): number {
    return decay(this.#requests, now - this.#requestsAt);
  }

  end(startedShared: number, shared: number, now: number): void {
    this.inFlight--;
    this.#startedSum -= startedShared;
    this.charge(Math.max(shared - startedShared, MIN_REQUEST_COST_MS), now);
  }

  charge(ms: number, now: number): void {
    this.#cost = this.#decayed(now) + ms;
    this.#costAt = now;
  }

  costNow(now: number, shared: number): number {
    return this.#decayed(now) + this.inFlight * shared - this.#startedSum;
  }

  #decayed(now: number): number {
    return decay(this.#cost, now - this.#costAt);
  }
}

function decay(value: number, elapsedMs: number): number {
  return value * 2 ** (-elapsedMs / LOAD_HALF_LIFE_MS);
}

type Behind = 'in_flight' | 'event_loop_lag' | 'saturated';

/** Why a request was refused, as its log line says (`reason`). */
export type ShedReason = Extract<RefusalReason, 'client_over_share' | 'overloaded'>;

export interface Refusal {
  status: 429 | 503;
  reason: ShedReason;
}

const TOO_MANY: Refusal = { status: 429, reason: 'client_over_share' };
const OVERLOADED: Refusal = { status: 503, reason: 'overloaded' };

const HEARTBEAT_MS = 50;
/**
 * What a request counts at least. What is measured is the time from its admission to its answer; reading, parsing
 * and writing it on node:http is not, and for a refusal or a response-cache hit that is most of what it costs: a
 * flood of them fills the event loop while each measures a few hundredths of a millisecond.
 */
const MIN_REQUEST_COST_MS = 1;
/** Half of a client's past load is forgotten after this. */
const LOAD_HALF_LIFE_MS = 1000;
/** The event loop busy this share of the time (averaged over about SATURATION_WINDOW_MS) is saturated. */
const SATURATED = 0.9;
/** The event loop busy this share of the time is busy: a client over its share then gets one request at a time. */
const BUSY = 0.5;
const SATURATION_WINDOW_MS = 500;
/** Below MAX_IN_FLIGHT × this, the requests of clients under their share are still taken while behind. */
const HARD_BOUND_FACTOR = 2;
/** Clients remembered at most (about 200 bytes each); beyond, new clients share one entry and so one share. */
const MAX_TRACKED_CLIENTS = 10_000;
const UNTRACKED = '(untracked clients)';
const FORGET_EVERY_TURNS = 20;
const FORGET_BELOW_MS = 0.5;

/** Seconds a shed client is asked to wait before trying again. */
export const SHED_RETRY_AFTER_SECONDS = 1;

/** Liveness: the process answers. */
export const HEALTH_PATH = '/healthz';
/** Readiness: the database answers, its migrations are this build's, and the process is not stopping. */
export const READY_PATH = '/readyz';

/** Prometheus's scrapes (when metrics are on, docs/operations.md#metrics). */
export const METRICS_PATH = '/metrics';

/**
 * The probes of load balancers and orchestrators, and the metrics scrape: never shed (an overloaded process must
 * still say so), never CORS-decorated.
 */
export const isProbePath = (pathname: string) =>
  pathname === HEALTH_PATH || pathname === READY_PATH || pathname === METRICS_PATH;

/** The REST error for a refusal: `rest_service_overloaded` (503) or `rest_client_over_share` (429). */
export type RestRefusalBody = (status: 429 | 503) => { code: string; message: string; data: { status: number } };

/**
 * The answer to a refused request: 503 (the process is behind) or 429 (the client's own excess), with Retry-After,
 * shaped as the API it was for: GraphQL errors for /graphql (SERVICE_OVERLOADED, RATE_LIMITED), the REST error
 * otherwise.
 */
export function refusalAnswer(pathname: string, status: 429 | 503, restBody: RestRefusalBody) {
  const rest = restBody(status);
  const code = status === 503 ? 'SERVICE_OVERLOADED' : ErrorCode.rateLimited;
  const retryAfter = SHED_RETRY_AFTER_SECONDS;
  const graphql = {
    errors: [{ message: rest.message, extensions: { code, ...(status === 429 ? { retryAfter } : {}) } }],
  };
  return {
    status,
    headers: {
      'content-type': 'application/json; charset=UTF-8',
      'cache-control': 'no-store',
      'retry-after': String(retryAfter),
    },
    body: JSON.stringify(pathname === '/graphql' ? graphql : rest),
  };
}

/**
 * Lets requests start their work one per turn of the event loop. With SQLite every statement runs on the loop's own
 * thread, so requests that arrive together (libuv accepts a connection per turn, a keep-alive client sends the next
 * request at once) would otherwise all start and then interleave statement by statement: each finishes only when
 * nearly all of them do, and the median waits as long as the slowest (p99 8.8× p50 at 32 connections). Started one
 * per turn they finish roughly in arrival order, and the total work is the same.
 *
 * A request that finds no other start in the current turn starts at once: one client at a time never waits. Of the
 * requests waiting, the one of lowest `rank` starts next (its client's load, LoadShedder above: a light
 * client's request does not wait behind a greedy client's queue), in arrival order among equals.
 * PostgreSQL does not need this (its statements run in the database's processes, not on the loop): FairRunningLimit.
 */
export class StartPacing {
  readonly #waiting: { rank: () => number; start: () => void }[] = [];
  #startedThisTurn = false;

  /** Runs `work` now, or once it is the lowest ranked of the requests waiting. */
  run<T>(work: () => Promise<T>, rank: () => number = () => 0): Promise<T> {
    if (!this.#startedThisTurn && this.#waiting.length === 0) {
      this.#markStarted();
      return work();
    }
    return new Promise<void>((start) => this.#waiting.push({ rank, start })).then(work);
  }

  #markStarted(): void {
    this.#startedThisTurn = true;
    setImmediate(this.#nextTurn);
  }

  readonly #nextTurn = (): void => {
    this.#startedThisTurn = false;
    if (this.#waiting.length === 0) return;
    this.#markStarted();
    this.#waiting.splice(lowestRanked(this.#waiting), 1)[0]!.start();
  };
}

/**
 * PostgreSQL's counterpart: at most `maxRunning` requests run at once (as many as the pool has connections), the
 * others wait here rather than in the pool's queue, and when one ends the waiting request of lowest `rank` (its
 * client's load, LoadShedder above) starts: a light client's request does not wait behind every statement of
 * a greedy client's burst. Requests are few enough to start at once while the process keeps up.
 */
export class FairRunningLimit {
  readonly #waiting: { rank: () => number; start: () => void }[] = [];
  #running = 0;

  constructor(private readonly maxRunning: number) {}

  /** Runs `work` now, or once it is the lowest ranked of the requests waiting for a place. */
  async run<T>(work: () => Promise<T>, rank: () => number = () => 0): Promise<T> {
    if (this.#running < this.maxRunning) this.#running++;
    else await new Promise<void>((start) => this.#waiting.push({ rank, start }));
    try {
      return await work();
    } finally {
      this.#ended();
    }
  }

  #ended(): void {
    if (this.#waiting.length === 0) {
      this.#running--;
      return;
    }
    // The place passes to the waiting request of lowest rank: the running count stays.
    this.#waiting.splice(lowestRanked(this.#waiting), 1)[0]!.start();
  }
}

function lowestRanked(waiting: readonly { rank: () => number }[]): number {
  let lowest = 0;
  let lowestRank = waiting[0]!.rank();
  for (let i = 1; i < waiting.length; i++) {
    const rank = waiting[i]!.rank();
    if (rank < lowestRank) [lowest, lowestRank] = [i, rank];
  }
  return lowest;
}
