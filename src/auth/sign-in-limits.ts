import type { SignInLimits } from '../config.js';
import { clientKeyOf } from '../http/request-head.js';

/**
 * Limits on the slow check of a sign-in (scrypt, or a failure's decoys), which only what the fast check (one HMAC)
 * did not prove ever reaches, so a right issued secret is never refused (docs/authentication.md).
 * Failures are counted in fixed windows per client address, per address and login, and per login; a login with too
 * many failures from everywhere is "under attack", and an address that has failed for it even once gets no further
 * check for it until its own window ends.
 * Kept in this process's memory (each server process counts on its own), in at most MAX_TRACKED windows: the least
 * recently failing are forgotten first.
 */

/** Who is trying: the client's address and the login a Basic header names (null for a bearer token or a malformed header). */
export interface SignInAttempt {
  address: string;
  login: string | null;
}

/** A slow check the limits did not allow (whether the secret was right or not): try again in `retryAfter` seconds. */
export interface Throttled {
  kind: 'throttled';
  retryAfter: number;
}

interface Window {
  failures: number;
  endsAt: number;
}

/** About 100 bytes each: a few MB at most, however many addresses and logins an attacker tries. */
const MAX_TRACKED = 20_000;

const addressKey = (attempt: SignInAttempt) => `address ${attempt.address}`;
const pairKey = (attempt: SignInAttempt) => `pair ${JSON.stringify([attempt.address, attempt.login])}`;
const loginKey = (attempt: SignInAttempt) => `login ${attempt.login}`;

export class SignInLimiter {
  private readonly windows = new Map<string, Window>();
  /** The slow check in progress for each address and login: the next one waits for it. */
  private readonly inProgress = new Map<string, Promise<unknown>>();

  constructor(
    private readonly limits: SignInLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Runs `check` (a slow check) unless the attempt's limits refuse it, one at a time per address and login. While it
   * runs it counts as a failure, so that a burst of parallel guesses cannot all pass the limits before the first
   * fails; it stays one when `failed` says so, and is forgiven otherwise (a success, or an error of the service's).
   */
  async check<T>(
    attempt: SignInAttempt,
    check: () => Promise<T>,
    failed: (result: T) => boolean,
  ): Promise<T | Throttled> {
    const counted = { address: clientKeyOf(attempt.address), login: attempt.login };
    return this.oneAtATime(pairKey(counted), async () => {
      const retryAfter = this.retryAfterSeconds(counted);
      if (retryAfter > 0) return { kind: 'throttled' as const, retryAfter };
      const reserved = this.recordFailure(counted);
      let counts = false;
      try {
        const result = await check();
        counts = failed(result);
        return result;
      } finally {
        if (!counts) this.forgive(reserved);
      }
    });
  }

  /** Seconds before anything `address` offers as a secret may be checked (a protected record's password); 0: now. */
  addressRetryAfter(address: string): number {
    return this.retryAfterSeconds({ address: clientKeyOf(address), login: null });
  }

  /** A wrong secret that is not a sign-in (a protected record's password), counted for its address. */
  recordAddressFailure(address: string): void {
    this.recordFailure({ address: clientKeyOf(address), login: null });
  }

  /** Seconds until this attempt may be checked again; 0 when it may be now. */
  private retryAfterSeconds(attempt: SignInAttempt): number {
    let waitMs = 0;
    for (const [key, limit] of this.counted(attempt)) {
      const window = this.live(key);
      if (window && window.failures >= limit) waitMs = Math.max(waitMs, window.endsAt - this.now());
    }
    return waitMs > 0 ? Math.ceil(waitMs / 1000) : 0;
  }

  /** Counts a failure in each window the attempt falls in; answers those windows and their keys. */
  private recordFailure(attempt: SignInAttempt): Array<[string, Window]> {
    const counted = this.keys(attempt).map((key): [string, Window] => {
      const window = this.live(key) ?? { failures: 0, endsAt: this.now() + this.limits.windowMs };
      window.failures += 1;
      this.windows.delete(key); // re-inserted last: the Map's order is least recently failing first
      this.windows.set(key, window);
      return [key, window];
    });
    for (const oldest of this.windows.keys()) {
      if (this.windows.size <= MAX_TRACKED) break;
      this.windows.delete(oldest);
    }
    return counted;
  }

  private forgive(counted: Array<[string, Window]>): void {
    for (const [key, window] of counted) {
      window.failures -= 1;
      if (window.failures <= 0 && this.windows.get(key) === window) this.windows.delete(key);
    }
  }

  /** [key, limit] of each limit that applies to the attempt: a login under attack allows each address one failure. */
  private counted(attempt: SignInAttempt): Array<[string, number]> {
    const limits: Array<[string, number]> = [[addressKey(attempt), this.limits.failuresPerAddress]];
    if (attempt.login !== null) {
      const loginFailures = this.live(loginKey(attempt))?.failures ?? 0;
      const underAttack = this.limits.failuresPerLogin > 0 && loginFailures >= this.limits.failuresPerLogin;
      limits.push([pairKey(attempt), underAttack ? 1 : this.limits.failuresPerAddressAndLogin]);
    }
    return limits.filter(([, limit]) => limit > 0);
  }

  /** The windows an attempt's failures are counted in: its address, its address and login, its login. */
  private keys(attempt: SignInAttempt): string[] {
    return attempt.login === null ? [addressKey(attempt)] : [addressKey(attempt), pairKey(attempt), loginKey(attempt)];
  }

  private live(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.endsAt <= this.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private oneAtATime<T>(key: string, task: () => Promise<T>): Promise<T> {
    const run = (this.inProgress.get(key) ?? Promise.resolve()).then(task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.inProgress.set(key, settled);
    void settled.then(() => {
      if (this.inProgress.get(key) === settled) this.inProgress.delete(key);
    });
    return run;
  }
}
