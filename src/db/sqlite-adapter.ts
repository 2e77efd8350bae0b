import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  Transaction,
} from '@prisma/driver-adapter-utils';
import { reusePreparedStatements } from './statement-cache.js';

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

/**
 * Wraps the better-sqlite3 adapter factory: durable commits, no statement slipping into another's transaction, and
 * prepared statements reused (src/db/statement-cache.ts).
 */
export function serializedSqlite(factory: SqlDriverAdapterFactory): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      const adapter = await factory.connect();
      reusePreparedStatements(adapter);
      await adapter.executeScript(CONNECTION_SETUP);
      return takingTurns(adapter);
    },
  };
}
