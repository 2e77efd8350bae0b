import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  Transaction,
} from '@prisma/driver-adapter-utils';
import type { Database, Statement } from 'better-sqlite3';
import { LRUCache } from 'lru-cache';

/**
 * The better-sqlite3 adapter gives Prisma one connection. Its transactions take turns, but a query outside a
 * transaction runs at once on that connection, even while another request's transaction is open there: it then
 * becomes part of that transaction. A write acknowledged that way is undone when the other transaction rolls back
 * (a slug clash, a failed check) or the process dies before it commits, and a read sees uncommitted rows.
 * Here every statement outside a transaction waits until no transaction holds the connection.
 *
 * The connection also gets `synchronous = FULL`: in WAL mode better-sqlite3 defaults to NORMAL, where a commit
 * survives a crash of the process but not of the machine (power loss); FULL syncs the WAL at every commit, so a write
 * acknowledged to a client is on disk.
 */
const CONNECTION_SETUP = 'PRAGMA synchronous = FULL;';

/** One holder at a time, in arrival order. */
class Turns {
  #last: Promise<void> = Promise.resolve();

  /** Resolves when it is the caller's turn, with the function that ends it. */
  take(): Promise<() => void> {
    let end!: () => void;
    const turn = new Promise<void>((resolve) => (end = resolve));
    const ready = this.#last.then(() => end);
    this.#last = this.#last.then(() => turn);
    return ready;
  }
}

/** Ends the turn once, when the transaction commits or rolls back. */
function endingTurn(transaction: Transaction, endTurn: () => void): Transaction {
  let ended = false;
  const finish = async (action: () => Promise<void>) => {
    try {
      await action();
    } finally {
      if (!ended) endTurn();
      ended = true;
    }
  };
  return {
    provider: transaction.provider,
    adapterName: transaction.adapterName,
    options: transaction.options,
    queryRaw: (query) => transaction.queryRaw(query),
    executeRaw: (query) => transaction.executeRaw(query),
    commit: () => finish(() => transaction.commit()),
    rollback: () => finish(() => transaction.rollback()),
    createSavepoint: transaction.createSavepoint?.bind(transaction),
    rollbackToSavepoint: transaction.rollbackToSavepoint?.bind(transaction),
    releaseSavepoint: transaction.releaseSavepoint?.bind(transaction),
  };
}

function takingTurns(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const turns = new Turns();
  const inTurn = async <T>(work: () => Promise<T>): Promise<T> => {
    const endTurn = await turns.take();
    try {
      return await work();
    } finally {
      endTurn();
    }
  };
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => inTurn(() => adapter.queryRaw(query)),
    executeRaw: (query) => inTurn(() => adapter.executeRaw(query)),
    executeScript: (script) => inTurn(() => adapter.executeScript(script)),
    async startTransaction(isolationLevel?: IsolationLevel) {
      const endTurn = await turns.take();
      try {
        return endingTurn(await adapter.startTransaction(isolationLevel), endTurn);
      } catch (error) {
        endTurn();
        throw error;
      }
    },
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: () => adapter.dispose(),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Prepared statements reused

/**
 * The better-sqlite3 adapter (7.10) calls `db.prepare(sql)` for every query, so SQLite parses and plans the same few
 * dozen statements again on every request (a few percent of a list request's CPU). Prisma's SQL is parameterised and
 * its texts repeat, so the prepared statements are kept, most recently used first, up to STATEMENTS_KEPT.
 *
 * A better-sqlite3 statement is stateful: `bind()` binds it once for good and `raw()` switches its mode for good. The
 * adapter calls `prepare(sql).bind(args)` and then `columns()`, `raw().all()` or `run()`; the statement handed back
 * here keeps the arguments beside the shared statement instead and passes them to each call. A reading statement is
 * only ever read in raw mode, set when it is prepared. better-sqlite3 is synchronous and the adapter never iterates,
 * so no statement is busy when reused.
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

/**
 * A statement kept with its raw mode, set once, and its result columns: better-sqlite3 builds a new array of column
 * descriptions on every `columns()`, and the adapter asks on every read.
 */
interface KeptStatement {
  statement: Statement;
  columns: ReturnType<Statement['columns']> | undefined;
}

function keep(statement: Statement): KeptStatement {
  if (statement.reader) statement.raw(true);
  return { statement, columns: undefined };
}

/**
 * A `*` among the result columns (`SELECT *`, `t.*`, not `count(*)`): after another connection adds a column, SQLite
 * prepares such a statement anew when it runs, but its `columns()` before that still names the old ones. Only
 * statements that name their columns are kept (all of Prisma's and the service's own).
 */
const COLUMN_WILDCARD = /(?:^|[\s,.])\*(?=\s|,|$)/;

function columnsOf(kept: KeptStatement): ReturnType<Statement['columns']> {
  kept.columns ??= kept.statement.columns();
  return kept.columns;
}

function bound(kept: KeptStatement, args: unknown[]): BoundStatement {
  const { statement } = kept;
  return {
    reader: statement.reader,
    columns: () => columnsOf(kept),
    raw: () => ({ all: () => statement.all(args) }),
    run: () => statement.run(args),
  };
}

/**
 * How a transaction begins: taking SQLite's writer at once, waiting for it (up to the busy timeout) while another
 * process holds it. A deferred `BEGIN`, the adapter's own, takes it at the first write instead; when another process
 * committed since the transaction's first read, that write fails at once (SQLITE_BUSY_SNAPSHOT: the transaction's
 * snapshot is out of date, and waiting cannot help), so a command writing beside a busy server failed
 * (test/cli-beside-server.sqlite.test.ts). One connection per process takes turns anyway (takingTurns above), so
 * within a process nothing waits longer.
 */
const BEGIN_WRITING = 'BEGIN IMMEDIATE';

/** A stand-in for the adapter's Database whose `prepare` reuses statements (and begins transactions as writers). */
export function reusingStatements(database: StatementSource, capacity = STATEMENTS_KEPT): StatementSource {
  const kept = new LRUCache<string, KeptStatement>({ max: capacity });
  const prepare = (text: string) => {
    const sql = text === 'BEGIN' ? BEGIN_WRITING : text;
    let statement = kept.get(sql);
    if (!statement) {
      statement = keep(database.prepare(sql));
      if (!COLUMN_WILDCARD.test(sql)) kept.set(sql, statement);
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
      'The better-sqlite3 adapter no longer exposes its Database as `client`; update src/db/sqlite-adapter.ts',
    );
  holder.client = reusingStatements(holder.client, capacity);
}

// ---------------------------------------------------------------------------------------------------------------
// The adapter

/**
 * Wraps the better-sqlite3 adapter factory: durable commits, no statement slipping into another's transaction, and
 * prepared statements reused (above).
 */
export function serializedSqlite(factory: SqlDriverAdapterFactory, cacheKiB?: number): SqlDriverAdapterFactory {
  const setup = CONNECTION_SETUP + (cacheKiB === undefined ? '' : ` PRAGMA cache_size = -${cacheKiB};`);
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      const adapter = await factory.connect();
      reusePreparedStatements(adapter);
      await adapter.executeScript(setup);
      return takingTurns(adapter);
    },
  };
}
