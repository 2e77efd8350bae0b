/**
 * Lets requests start their work one per turn of the event loop. With SQLite every statement runs on the loop's own
 * thread, so requests that arrive together (libuv accepts a connection per turn, a keep-alive client sends the next
 * request at once) would otherwise all start and then interleave statement by statement: each finishes only when
 * nearly all of them do, and the median waits as long as the slowest (p99 8.8× p50 at 32 connections). Started one
 * per turn they finish roughly in arrival order, and the total work is the same.
 *
 * A request that finds no other start in the current turn starts at once: one client at a time never waits. Of the
 * requests waiting, the one of lowest `rank` starts next (its client's load, src/limits/load-shedding.ts: a light
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
 * client's load, src/limits/load-shedding.ts) starts: a light client's request does not wait behind every statement of
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
