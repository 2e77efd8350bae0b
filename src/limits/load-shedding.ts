/**
 * Sheds load instead of timing everyone out. A process given more requests than it can serve makes each of them wait
 * for all the others; instead, a request that arrives while the process is behind is answered at once with 503 and
 * `Retry-After`, which costs next to nothing, so the requests already taken finish in time and the health check (never
 * shed, see server.ts) keeps answering. "Behind" is either of:
 *
 * - the event loop has not come round for MAX_EVENT_LOOP_LAG_MS: requests are waiting in the socket queue. This is
 *   how SQLite falls behind: its statements run on the loop's own thread, so each request runs to its end within one
 *   turn of the loop and a flood queues outside the process, where only the loop's lateness shows it;
 * - MAX_IN_FLIGHT requests are being worked on: how PostgreSQL (whose statements run elsewhere) falls behind.
 *
 * Per process: with WORKERS=N each process sheds on its own.
 */
export class LoadShedder {
  private inFlight = 0;
  private lastTurn = performance.now();
  private readonly heartbeat: NodeJS.Timeout;

  /** 0 switches either bound off. */
  constructor(
    private readonly maxInFlight: number,
    private readonly maxLagMs: number,
  ) {
    // A timer that the loop runs once per turn at most: how late it is tells how long the loop has been busy.
    this.heartbeat = setInterval(() => (this.lastTurn = performance.now()), HEARTBEAT_MS).unref();
  }

  /** Runs `work` if the process keeps up, or answers `shed()` without running it. */
  async run(work: () => Promise<Response>, shed: () => Response): Promise<Response> {
    if (this.isBehind()) return shed();
    this.inFlight++;
    try {
      return await work();
    } finally {
      this.inFlight--;
    }
  }

  close(): void {
    clearInterval(this.heartbeat);
  }

  /** Whether a request arriving now would be shed (the health check never is). */
  isBehind(): boolean {
    if (this.maxInFlight > 0 && this.inFlight >= this.maxInFlight) return true;
    return this.maxLagMs > 0 && performance.now() - this.lastTurn > HEARTBEAT_MS + this.maxLagMs;
  }
}

const HEARTBEAT_MS = 50;

/** Seconds a shed client is asked to wait before trying again. */
export const SHED_RETRY_AFTER_SECONDS = 1;

export const HEALTH_PATH = '/healthz';

/** The answer to a shed request: 503 with Retry-After, shaped as the API it was for (GraphQL or REST). */
export function overloadedAnswer(pathname: string, restBody: () => unknown) {
  const message = 'The service is busy; try again shortly.';
  const body = pathname === '/graphql' ? { errors: [{ message, extensions: { code: 'SERVICE_OVERLOADED' } }] } : restBody();
  return {
    status: 503,
    headers: { 'content-type': 'application/json; charset=UTF-8', 'retry-after': String(SHED_RETRY_AFTER_SECONDS) },
    body: JSON.stringify(body),
  };
}
