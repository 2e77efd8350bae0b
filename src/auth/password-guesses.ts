import type { SignInLimiter } from './sign-in-limits.js';

/**
 * One request's guesses at the passwords of password-protected records (the `password` arguments of reads and
 * feeds). A password compared with a record's and found wrong, with none found right, is a failed guess at a secret,
 * as a wrong sign-in is: it is counted with the failed sign-ins of the client's address (SignInLimiter,
 * SIGNIN_FAILURES_PER_ADDRESS in SIGNIN_WINDOW_MS), and past that limit a request offering a password is refused
 * before anything is read or rendered. A password that no record was compared with (a list without protected
 * records, a feed remembered from an earlier request) guessed nothing and counts for nothing.
 */
export class PasswordGuesses {
  #wrong = false;
  #right = false;
  /** Seconds the request was told to wait, when it was refused; 0 otherwise. */
  refusedFor = 0;

  constructor(
    private readonly limiter: SignInLimiter,
    private readonly address: string,
  ) {}

  /** Before a password is taken: seconds to wait when the address is past its limit, 0 when it may be checked. */
  offer(): number {
    const wait = this.limiter.addressRetryAfter(this.address);
    if (wait > 0) this.refusedFor = wait;
    return wait;
  }

  /** A record's password was compared with the ones offered. */
  compared(matched: boolean): void {
    if (matched) this.#right = true;
    else this.#wrong = true;
  }

  /** Once the request is answered: counts its failure, if it was one. */
  settle(): void {
    if (this.#wrong && !this.#right) this.limiter.recordAddressFailure(this.address);
  }
}
