import type { Database, Statement } from 'better-sqlite3';
import { LRUCache } from 'lru-cache';

/**
 * The better-sqlite3 adapter (7.10) calls `db.prepare(sql)` for every query, so SQLite parses and plans the same few
 * dozen statements again on every request (a few percent of a list request's CPU). Prisma's SQL is parameterised and
 * its texts repeat, so the prepared statements are kept, most recently used first, up to STATEMENTS_KEPT.
 *
 * A better-sqlite3 statement is stateful: `bind()` binds it once for good and `raw()` switches its mode for good. The
 * adapter calls `prepare(sql).bind(args)` and then `columns()`, `raw().all()` or `run()`; the statement handed back
 * here keeps the arguments beside the shared statement instead and passes them to each call, and sets raw mode on
 * every use. better-sqlite3 is synchronous and the adapter never iterates, so no statement is busy when reused.
 */
export const STATEMENTS_KEPT = 500;

/** The part of a better-sqlite3 Database the adapter uses. */
export type StatementSource = Pick<Database, 'prepare' | 'exec' | 'close'>;

/** What the adapter does with `prepare(sql).bind(args)`. */
interface BoundStatement {
  readonly reader: boolean;
  columns(): ReturnType<Statement['columns']>;
  raw(): { all(): unknown[] };
  run(): ReturnType<Statement['run']>;
}

function bound(statement: Statement, args: unknown[]): BoundStatement {
  return {
    reader: statement.reader,
    columns: () => statement.columns(),
    raw: () => ({ all: () => statement.raw(true).all(args) }),
    run: () => statement.run(args),
  };
}

/** A stand-in for the adapter's Database whose `prepare` reuses statements. */
export function reusingStatements(database: StatementSource, capacity = STATEMENTS_KEPT): StatementSource {
  const kept = new LRUCache<string, Statement>({ max: capacity });
  const prepare = (sql: string) => {
    let statement = kept.get(sql);
    if (!statement) {
      statement = database.prepare(sql);
      kept.set(sql, statement);
    }
    const shared = statement;
    // The adapter also runs a statement without binding it (`prepare('BEGIN').run()`).
    return { ...bound(shared, []), bind: (args: unknown[]) => bound(shared, args) };
  };
  return {
    prepare: prepare as unknown as Database['prepare'],
    exec: (source: string) => database.exec(source) as Database,
    close: () => {
      kept.clear();
      return database.close();
    },
  };
}

/** The adapter keeps its Database in a public `client` field (an implementation detail of 7.10, checked here). */
export function reusePreparedStatements(adapter: object, capacity = STATEMENTS_KEPT): void {
  const holder = adapter as { client?: StatementSource };
  if (typeof holder.client?.prepare !== 'function')
    throw new Error(
      'The better-sqlite3 adapter no longer exposes its Database as `client`; update src/db/statement-cache.ts',
    );
  holder.client = reusingStatements(holder.client, capacity);
}
