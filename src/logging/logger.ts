import { write, writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.js';

// The service's logger, and where its lines go (StdoutLines: stdout, written without stalling the event loop).

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
