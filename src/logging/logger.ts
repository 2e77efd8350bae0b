import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.js';
import { StdoutLines } from './stdout-lines.js';

export type { Logger };

/**
 * Keys whose values never reach a line. Nothing logs headers, bodies or the configuration; this is the second
 * line of defence should a value holding a secret ever be passed to the logger.
 */
const SECRET_KEYS = ['authorization', 'cookie', 'password', 'adminPassword', 'secret', 'token'];
const REDACTED_PATHS = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.headers.${key}`]);

/**
 * Characters of lines waiting for stdout at most (about 30,000 request lines): past this, lines are dropped, counted,
 * and the count written once stdout keeps up again (`droppedLines`), see src/logging/stdout-lines.ts.
 */
const MAX_WAITING_BYTES = 8 * 1024 * 1024;
const DROP_REPORT_MS = 1000;

/** Every logger without a destination writes through this one (a test process makes many): created with the first. */
let stdout: StdoutLines | undefined;

/**
 * The service's logger: one JSON object per line, ISO timestamps, level names. Without a destination it writes to
 * stdout asynchronously (src/logging/stdout-lines.ts; what waits is written when the process exits).
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
