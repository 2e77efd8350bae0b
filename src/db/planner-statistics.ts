import type Database from 'better-sqlite3';
import type { Logger } from '../logging/logger.js';
import type { Db } from './client.js';

// SQLite chooses an index from statistics that ANALYZE stores in the database file (sqlite_stat1, sqlite_stat4).
// Without them it takes any range on an indexed column for a selective one: the total of a search list over a
// two-year window walked Event_endLocal_idx row by row, 280 ms at 100,000 events, where reading the table takes 52 ms.
// `PRAGMA optimize` analyses the tables that have no statistics or have grown or shrunk many times over since they
// were analysed, and otherwise costs next to nothing. PostgreSQL's autovacuum keeps its own statistics.

/** Every table, not only those this connection used (the migrating connection has used none). */
const OPTIMIZE_EVERY_TABLE = 'optimize = 0x10002';

/** At start, after migrating: the first start over a large database analyses it (0.4 s at 100,000 events). */
export function refreshSqliteStatistics(sqlite: Database.Database): void {
  sqlite.pragma(OPTIMIZE_EVERY_TABLE);
}

/**
 * While the process runs, every `intervalMs`, on the requests' own connection so that its planner reads the new
 * statistics. A site that grows between restarts gets statistics for its new size.
 */
export function refreshSqliteStatisticsPeriodically(db: Db, intervalMs: number, logger: Logger): () => void {
  const timer = setInterval(() => {
    db.$executeRawUnsafe(`PRAGMA ${OPTIMIZE_EVERY_TABLE}`).catch((error: unknown) =>
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'SQLite statistics: PRAGMA optimize failed; trying again at the next interval',
      ),
    );
  }, intervalMs).unref();
  return () => clearInterval(timer);
}
