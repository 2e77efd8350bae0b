/**
 * Failed sign-ins counted per client address and per login (or bearer token ID) in fixed windows: after the limit,
 * further attempts from that address or for that login are refused without checking until the window ends.
 * Kept in this process's memory (each server process counts on its own), in at most MAX_TRACKED windows: the least
 * recently failing are forgotten first.
 */

/** SIGNIN_FAILURES_PER_ADDRESS, SIGNIN_FAILURES_PER_LOGIN (0: no limit) and SIGNIN_WINDOW_MS. */
export interface SignInLimits {
  failuresPerAddress: number;
  failuresPerLogin: number;
  windowMs: number;
}

/** Who is trying: the client's address and the login (`token:<id>` for a bearer token) the header names, if any. */
export interface SignInAttempt {
  address: string;
  login: string | null;
}

interface Window {
  failures: number;
  endsAt: number;
}

/** About 100 bytes each: a few MB at most, however many addresses and logins an attacker tries. */
const MAX_TRACKED = 20_000;

export class SignInLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limits: SignInLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until this attempt may be checked again; 0 when it may be now. */
  retryAfterSeconds(attempt: SignInAttempt): number {
    let waitMs = 0;
    for (const [key, limit] of this.counted(attempt)) {
      const window = this.live(key);
      if (window && window.failures >= limit) waitMs = Math.max(waitMs, window.endsAt - this.now());
    }
    return waitMs > 0 ? Math.ceil(waitMs / 1000) : 0;
  }

  recordFailure(attempt: SignInAttempt): void {
    for (const [key] of this.counted(attempt)) {
      const window = this.live(key) ?? { failures: 0, endsAt: this.now() + this.limits.windowMs };
      window.failures += 1;
      this.windows.delete(key); // re-inserted last: the Map's order is least recently failing first
      this.windows.set(key, window);
    }
    for (const oldest of this.windows.keys()) {
      if (this.windows.size <= MAX_TRACKED) break;
      this.windows.delete(oldest);
    }
  }

  /** [key, limit] of each limit that applies to the attempt. */
  private counted(attempt: SignInAttempt): Array<[string, number]> {
    const keys: Array<[string, number]> = [[`address ${attempt.address}`, this.limits.failuresPerAddress]];
    if (attempt.login !== null) keys.push([`login ${attempt.login}`, this.limits.failuresPerLogin]);
    return keys.filter(([, limit]) => limit > 0);
  }

  private live(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.endsAt <= this.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }
}
