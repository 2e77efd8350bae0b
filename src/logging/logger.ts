import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.js';

export type { Logger };

/**
 * Keys whose values never reach a line. Nothing logs headers, bodies or the configuration; this is the second
 * line of defence should a value holding a secret ever be passed to the logger.
 */
const SECRET_KEYS = ['authorization', 'cookie', 'password', 'adminPassword', 'secret', 'token'];
const REDACTED_PATHS = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.headers.${key}`]);

/**
 * Bytes of lines waiting for stdout at most. A reader of stdout slower than a flood of requests (each with its line)
 * would otherwise keep them all in memory; past this, lines are dropped, counted, and the count written once stdout
 * keeps up again (`droppedLines`).
 */
const MAX_WAITING_BYTES = 8 * 1024 * 1024;
const DROP_REPORT_MS = 1000;

/**
 * The service's logger: one JSON object per line, ISO timestamps, level names. Without a destination it writes to
 * stdout through pino's asynchronous destination (flushed when the process exits).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const stdout = destination ? null : pino.destination({ dest: 1, sync: false, maxLength: MAX_WAITING_BYTES });
  const logger = pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? stdout!,
  );
  if (stdout) reportDroppedLines(stdout, logger);
  return logger;
}

function reportDroppedLines(stdout: ReturnType<typeof pino.destination>, logger: Logger): void {
  let dropped = 0;
  stdout.on('drop', () => dropped++);
  setInterval(() => {
    if (dropped === 0) return;
    const droppedLines = dropped;
    dropped = 0;
    logger.warn({ droppedLines }, `${droppedLines} log lines dropped: stdout was not read as fast as they were written`);
  }, DROP_REPORT_MS).unref();
}

/**
 * The logger for request lines of a fixed shape (refused requests, response-cache hits: ID, method, path without its
 * query, status, duration, reason): nothing in them can hold a secret, so they skip the redaction, which costs more
 * than the rest of such a line and would slow the answers to a flood.
 */
export const requestLineLogger = (logger: Logger): Logger => logger.child({}, { redact: [] });
