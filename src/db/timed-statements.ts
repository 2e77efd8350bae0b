import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';

/** Tells `observe` how long each statement took, in seconds (for the metrics, src/metrics). */
export type StatementTimer = (seconds: number) => void;

async function timed<T>(observe: StatementTimer, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    observe((performance.now() - started) / 1000);
  }
}

function timedTransaction(transaction: Transaction, observe: StatementTimer): Transaction {
  return {
    provider: transaction.provider,
    adapterName: transaction.adapterName,
    options: transaction.options,
    queryRaw: (query) => timed(observe, () => transaction.queryRaw(query)),
    executeRaw: (query) => timed(observe, () => transaction.executeRaw(query)),
    commit: () => timed(observe, () => transaction.commit()),
    rollback: () => transaction.rollback(),
    createSavepoint: transaction.createSavepoint?.bind(transaction),
    rollbackToSavepoint: transaction.rollbackToSavepoint?.bind(transaction),
    releaseSavepoint: transaction.releaseSavepoint?.bind(transaction),
  };
}

function timedAdapter(adapter: SqlDriverAdapter, observe: StatementTimer): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => timed(observe, () => adapter.queryRaw(query)),
    executeRaw: (query) => timed(observe, () => adapter.executeRaw(query)),
    executeScript: (script) => adapter.executeScript(script),
    startTransaction: async (isolationLevel) =>
      timedTransaction(await adapter.startTransaction(isolationLevel), observe),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: () => adapter.dispose(),
  };
}

/**
 * Wraps a driver adapter factory so that every statement's time is observed: outermost, so that on SQLite it includes
 * the wait for the connection's turn (src/db/sqlite-adapter.ts), which is part of what a request waits for.
 */
export function timingStatements(factory: SqlDriverAdapterFactory, observe: StatementTimer): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => timedAdapter(await factory.connect(), observe),
  };
}
