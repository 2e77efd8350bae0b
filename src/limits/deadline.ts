import { GraphQLError } from 'graphql';
import type { Db } from '../db/client.js';

export const TIMEOUT_CODE = 'REQUEST_TIMEOUT';
const EXPIRED = Symbol('expired');

/**
 * Thrown when a request's work would start a database statement after its deadline. Its HTTP status (GraphQL Yoga
 * answers with it) keeps a late answer out of the response cache, which keeps 200s only.
 */
export class DeadlineExceededError extends GraphQLError {
  constructor(timeoutMs: number) {
    super(`The request took longer than ${timeoutMs} ms and was stopped.`, {
      extensions: { code: TIMEOUT_CODE, http: { status: 503 } },
    });
  }
}

/**
 * The moment a request must be answered by (REQUEST_TIMEOUT_MS after it arrived; never when the limit is 0).
 *
 * Node cannot interrupt a statement a database driver is running (better-sqlite3 runs it on the event loop's own
 * thread), so the deadline acts at two places: the request is answered with the timeout error as soon as the
 * deadline passes, or, if the event loop was busy then, as soon as the work returns; and the request's database
 * client (guardedDb) refuses to start any further statement, so a timed-out request stops at its next query.
 */
export class Deadline {
  private readonly at: number;

  constructor(readonly timeoutMs: number) {
    this.at = timeoutMs > 0 ? Date.now() + timeoutMs : Number.POSITIVE_INFINITY;
  }

  get passed(): boolean {
    return Date.now() > this.at;
  }

  /** `work`'s answer, or `late()` when the deadline passes before it (or passed while it ran). */
  async answer<T>(work: Promise<T>, late: () => T): Promise<T> {
    if (this.at === Number.POSITIVE_INFINITY) return work;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<typeof EXPIRED>((resolve) => {
      timer = setTimeout(() => resolve(EXPIRED), this.at - Date.now());
    });
    // The work goes on after an expiry until its next statement; its outcome is no longer anyone's.
    work.catch(() => undefined);
    try {
      const outcome = await Promise.race([work, expired]);
      return outcome === EXPIRED || this.passed ? late() : outcome;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The database client as one request sees it: every model, raw query and transaction it starts after the deadline
 * throws DeadlineExceededError instead. A transaction already started runs to its end (commit or rollback), so a
 * write is never left half done.
 */
export function guardedDb(db: Db, deadline: Deadline): Db {
  if (deadline.timeoutMs === 0) return db;
  return new Proxy(db, {
    get(target, property) {
      if (deadline.passed) throw new DeadlineExceededError(deadline.timeoutMs);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
