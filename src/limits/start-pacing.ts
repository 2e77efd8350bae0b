/**
 * Lets requests start their work one per turn of the event loop. With SQLite every statement runs on the loop's own
 * thread, so requests that arrive together (libuv accepts a connection per turn, a keep-alive client sends the next
 * request at once) would otherwise all start and then interleave statement by statement: each finishes only when
 * nearly all of them do, and the median waits as long as the slowest (p99 8.8× p50 at 32 connections). Started one
 * per turn they finish roughly in arrival order, and the total work is the same.
 *
 * A request that finds no other start in the current turn starts at once: one client at a time never waits.
 * PostgreSQL does not need this: its statements run in the database's processes, not on the loop.
 */
export class StartPacing {
  readonly #waiting: (() => void)[] = [];
  #startedThisTurn = false;

  /** Runs `work` now, or once the requests that arrived before it have started. */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (!this.#startedThisTurn && this.#waiting.length === 0) {
      this.#markStarted();
      return work();
    }
    return new Promise<void>((start) => this.#waiting.push(start)).then(work);
  }

  #markStarted(): void {
    this.#startedThisTurn = true;
    setImmediate(this.#nextTurn);
  }

  readonly #nextTurn = (): void => {
    this.#startedThisTurn = false;
    const next = this.#waiting.shift();
    if (next) {
      this.#markStarted();
      next();
    }
  };
}
