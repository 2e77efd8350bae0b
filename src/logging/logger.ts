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
 * The service's logger: one JSON object per line, ISO timestamps, level names. Without a destination it writes to
 * stdout through pino's asynchronous destination (flushed when the process exits).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
