import { randomUUID } from 'node:crypto';
import { write, writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.js';
import type { RequestHead } from '../http/request-head.js';

// The service's logger, where its lines go (StdoutLines: stdout, written without stalling the event loop), and each
// request's ID and log line.

export type { Logger };

/**
 * Keys whose values never reach a line. Nothing logs headers, bodies or the configuration; this is the second
 * line of defence should a value holding a secret ever be passed to the logger.
 */
const SECRET_KEYS = ['authorization', 'cookie', 'password', 'adminPassword', 'secret', 'token'];
const REDACTED_PATHS = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.headers.${key}`]);

/**
 * Characters of lines waiting for stdout at most (about 30,000 request lines): past this, lines are dropped, counted,
 * and the count written once stdout keeps up again (`droppedLines`), see StdoutLines below.
 */
const MAX_WAITING_BYTES = 8 * 1024 * 1024;
const DROP_REPORT_MS = 1000;

/** Every logger without a destination writes through this one (a test process makes many): created with the first. */
let stdout: StdoutLines | undefined;

/**
 * The service's logger: one JSON object per line, ISO timestamps, level names. Without a destination it writes to
 * stdout asynchronously (StdoutLines below; what waits is written when the process exits).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const firstOnStdout = !destination && !stdout;
  if (firstOnStdout) stdout = new StdoutLines(1, MAX_WAITING_BYTES);
  const logger = pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? stdout!,
  );
  if (firstOnStdout) reportDroppedLines(stdout!, logger);
  return logger;
}

function reportDroppedLines(lines: StdoutLines, logger: Logger): void {
  setInterval(() => {
    const droppedLines = lines.takeDropped();
    if (droppedLines === 0) return;
    logger.warn(
      { droppedLines },
      `${droppedLines} log lines dropped: stdout was not read as fast as they were written`,
    );
    // Still full, the report was dropped too: it is made again, with the count so far, next time.
    const alsoDropped = lines.takeDropped();
    if (alsoDropped > 0) lines.countDropped(droppedLines + alsoDropped - 1);
  }, DROP_REPORT_MS).unref();
}

/**
 * The logger for request lines of a fixed shape (refused requests, response-cache hits: ID, method, path without its
 * query, status, duration, reason): nothing in them can hold a secret, so they skip the redaction, which costs more
 * than the rest of such a line and would slow the answers to a flood.
 */
export const requestLineLogger = (logger: Logger): Logger => logger.child({}, { redact: [] });

/** One request's line: what the log says of every request, and what the metrics count (src/metrics). */
export interface RequestLine {
  requestId: string;
  method: string;
  /** loggedPath: without the query string. */
  path: string;
  status: number;
  durationMs: number;
  /** GraphQL's `extensions.code`s of the errors answered. */
  errorCodes?: string[];
  reason?: RefusalReason;
}

/** Whoever else is told of each request's line once it is written (the metrics). */
export type RequestObserver = (line: RequestLine) => void;

/**
 * Writes a request's line, at warn for a 5xx answered on purpose and at info otherwise, and tells the observer: for
 * the answers given outside withRequestLog (cache hits and refusals, straight on node:http).
 */
export function requestLineWriter(logger: Logger, observe?: RequestObserver): (line: RequestLine) => void {
  const lines = requestLineLogger(logger);
  return (line) => {
    if (line.status >= 500) lines.warn(line, 'request');
    else lines.info(line, 'request');
    observe?.(line);
  };
}

/**
 * Where the log lines go: stdout, written asynchronously (from the thread pool), so that a slow reader of stdout never
 * stalls the event loop. Lines wait in memory while a write is under way, and the next write takes all of them at
 * once: when a flood of requests (each with its line) keeps the loop busy, one write per turn of the loop carries
 * however many lines the turn made. pino's own asynchronous destination writes at most 16 KB per turn, fewer lines
 * than a turn of a flood of refused requests makes (measured: lines dropped while the flood logged 5,000 a second),
 * and waits 100 ms whenever a non-blocking stdout is full; with its write size raised (`maxWrite`), sonic-boom 4.2.1
 * cut lines in the middle when the pipe's reader was slow (test/log-lines.test.ts caught it).
 *
 * At most `maxWaitingBytes` wait (counted in characters, about bytes for JSON): a reader slower than a flood would
 * otherwise cost memory without end. Past it, lines are dropped and counted (`takeDropped`). `flush` calls back once
 * everything is written (a graceful stop waits for it); at exit, what waits is written synchronously, unless a write
 * is still under way in the thread pool, which the exit may cut short and whose bytes the next would interleave with.
 */
export class StdoutLines {
  #waiting: string[] = [];
  #waitingBytes = 0;
  #writing = false;
  #dropped = 0;
  #closed = false;
  #flushed: (() => void)[] = [];

  constructor(
    private readonly fd: number,
    private readonly maxWaitingBytes: number,
  ) {
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    if (this.#closed) return;
    if (this.#waitingBytes + line.length > this.maxWaitingBytes) {
      this.#dropped++;
      return;
    }
    this.#waiting.push(line);
    this.#waitingBytes += line.length;
    if (!this.#writing) this.#writeWaiting();
  }

  /** Counts lines as dropped again (a report of dropped lines that was dropped itself). */
  countDropped(lines: number): void {
    this.#dropped += lines;
  }

  /** Lines dropped since the last call. */
  takeDropped(): number {
    const dropped = this.#dropped;
    this.#dropped = 0;
    return dropped;
  }

  /** Calls back once every line written so far is written (or stdout is gone). */
  flush(callback: () => void): void {
    if (!this.#writing) callback();
    else this.#flushed.push(callback);
  }

  /** Writes what waits, blocking: at exit, when the event loop will not run the asynchronous writes. */
  flushSync(): void {
    if (this.#closed || this.#writing || this.#waiting.length === 0) return;
    const chunk = this.#take();
    const giveUpAt = Date.now() + EXIT_FLUSH_MS;
    for (let offset = 0; offset < chunk.length; ) {
      try {
        offset += writeSync(this.fd, chunk, offset);
      } catch (error) {
        // A full non-blocking stdout: wait a moment; stdout gone: nothing left to tell it to.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > giveUpAt) return;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_FULL_MS);
      }
    }
  }

  #take(): Buffer {
    const chunk = Buffer.from(this.#waiting.join(''));
    this.#waiting = [];
    this.#waitingBytes = 0;
    return chunk;
  }

  #writeWaiting(): void {
    this.#writing = true;
    this.#writeFrom(this.#take(), 0);
  }

  #writeFrom(chunk: Buffer, offset: number): void {
    write(this.fd, chunk, offset, chunk.length - offset, null, (error, written) => {
      if (error?.code === 'EAGAIN') return void setTimeout(() => this.#writeFrom(chunk, offset), RETRY_FULL_MS);
      if (error) {
        // EPIPE and the like: the reader is gone; the lines have nowhere to go.
        this.#closed = true;
        this.#waiting = [];
      } else if (offset + written < chunk.length) {
        return this.#writeFrom(chunk, offset + written);
      }
      this.#writing = false;
      if (this.#waiting.length > 0) return this.#writeWaiting();
      for (const callback of this.#flushed.splice(0)) callback();
    });
  }
}

/** How long to wait before writing again to a non-blocking stdout that was full. */
const RETRY_FULL_MS = 5;
/** How long the exit may wait for a full stdout to take the last lines. */
const EXIT_FLUSH_MS = 2000;

/** What a handler may tell the request's log line. */
export interface RequestLog {
  readonly id: string;
  /** Keeps an error nobody meant to answer with; the request's line carries it, with its stack and causes. */
  unexpected(error: unknown): void;
  /** Notes the codes of the errors the request was answered with (GraphQL's `extensions.code`), for its line. */
  answeredWith(codes: readonly string[]): void;
  /** Notes why the request was refused without being served (a rate limit), for its line's `reason`. */
  refused(reason: RefusalReason): void;
}

/**
 * Why a request was refused rather than served: the load shedder's reasons (src/limits/admission.ts, logged by
 * src/limits/refusals.ts), too many failed sign-ins, too many wrong passwords of protected records.
 */
export type RefusalReason = 'client_over_share' | 'overloaded' | 'sign_in_failures' | 'password_guesses';

export const REQUEST_ID_HEADER = 'X-Request-ID';

/** An incoming ID is kept when it is short and made of characters a log query can take as they are. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:+=/-]{1,128}$/;

export function requestIdOf(request: RequestHead): string {
  const incoming = request.headers.get(REQUEST_ID_HEADER);
  return incoming !== null && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** The path as logged: never the query string (it can carry a record's password), but WordPress's `rest_route`. */
export function loggedPath(request: Pick<RequestHead, 'url'>): string {
  const url = new URL(request.url);
  const restRoute = url.searchParams.get('rest_route');
  return restRoute === null ? url.pathname : `${url.pathname}?rest_route=${restRoute}`;
}

/** loggedPath of a request target as node:http reads it (`/path?query`). */
export function loggedPathOfTarget(target: string): string {
  try {
    // Appended, not resolved: a target starting with `//` would be read as a host.
    return loggedPath({ url: new URL(target.startsWith('/') ? `http://localhost${target}` : target).href });
  } catch {
    return target.split('?')[0]!; // not a URL node:http would route anywhere: its path as sent
  }
}

function withRequestId(response: Response, id: string): Response {
  try {
    response.headers.set(REQUEST_ID_HEADER, id);
    return response;
  } catch {
    // Immutable headers (a Response.error() or a fetched response): answer a copy.
    const copy = new Response(response.body, response);
    copy.headers.set(REQUEST_ID_HEADER, id);
    return copy;
  }
}

const internalError = () =>
  new Response(
    JSON.stringify({ code: 'internal_error', message: 'The request could not be completed.', data: { status: 500 } }),
    {
      status: 500,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    },
  );

/**
 * Wraps the fetch handler: gives each request an ID (the client's sane `X-Request-ID`, or a new UUID), answers it
 * in `X-Request-ID`, and writes one line per request. A request that failed unexpectedly (an error thrown out of the
 * handler, or one a handler reported) is logged once, on that line, at level error with the error; a 5xx answered on
 * purpose (a timeout, a retryable refusal) at warn; others at info.
 */
export function withRequestLog<Rest extends unknown[]>(
  logger: Logger,
  handle: (request: Request, log: RequestLog, ...rest: Rest) => Promise<Response>,
  observe?: RequestObserver,
) {
  return async (request: Request, ...rest: Rest): Promise<Response> => {
    const started = performance.now();
    const errors: unknown[] = [];
    const errorCodes = new Set<string>();
    let reason: RefusalReason | undefined;
    const log: RequestLog = {
      id: requestIdOf(request),
      unexpected: (error) => void errors.push(error),
      answeredWith: (codes) => codes.forEach((code) => errorCodes.add(code)),
      refused: (why) => void (reason = why),
    };
    let response: Response;
    try {
      response = await handle(request, log, ...rest);
    } catch (error) {
      errors.push(error);
      response = internalError();
    }
    const line: RequestLine = {
      requestId: log.id,
      method: request.method,
      path: loggedPath(request),
      status: response.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      ...(errorCodes.size > 0 ? { errorCodes: [...errorCodes] } : {}),
      ...(reason ? { reason } : {}),
    };
    if (errors.length > 0) {
      const [err, ...otherErrors] = errors;
      logger.error(
        { ...line, err, ...(otherErrors.length ? { otherErrors: otherErrors.map(serializeError) } : {}) },
        'request failed',
      );
    } else if (response.status >= 500) {
      // Answered so on purpose (a timeout, occurrences still being added, a process shutting down): worth a look.
      logger.warn(line, 'request');
    } else {
      logger.info(line, 'request');
    }
    observe?.(line);
    return withRequestId(response, log.id);
  };
}

const serializeError = (error: unknown) => (error instanceof Error ? pino.stdSerializers.err(error) : error);
