import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';

/** A statement that only reads; anything else (INSERT, UPDATE, DELETE, a script…) is taken for a write. */
const READS_ONLY = /^\s*SELECT\b/i;
const writes = (query: SqlQuery) => !READS_ONLY.test(query.sql);

/** Calls `committed` after each commit of a transaction that ran a write. */
function reportingTransaction(transaction: Transaction, committed: () => void): Transaction {
  let wrote = false;
  return {
    provider: transaction.provider,
    adapterName: transaction.adapterName,
    options: transaction.options,
    queryRaw: (query) => ((wrote ||= writes(query)), transaction.queryRaw(query)),
    executeRaw: (query) => ((wrote ||= writes(query)), transaction.executeRaw(query)),
    async commit() {
      await transaction.commit();
      if (wrote) committed();
    },
    rollback: () => transaction.rollback(),
    createSavepoint: transaction.createSavepoint?.bind(transaction),
    rollbackToSavepoint: transaction.rollbackToSavepoint?.bind(transaction),
    releaseSavepoint: transaction.releaseSavepoint?.bind(transaction),
  };
}

function reportingAdapter(adapter: SqlDriverAdapter, committed: () => void): SqlDriverAdapter {
  const afterWrite = async <T>(query: SqlQuery, run: Promise<T>): Promise<T> => {
    try {
      return await run;
    } finally {
      // A failed write committed nothing, but telling costs one read at most and never misses a commit.
      if (writes(query)) committed();
    }
  };
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => afterWrite(query, adapter.queryRaw(query)),
    executeRaw: (query) => afterWrite(query, adapter.executeRaw(query)),
    async executeScript(script) {
      try {
        await adapter.executeScript(script);
      } finally {
        committed();
      }
    },
    startTransaction: async (isolationLevel) =>
      reportingTransaction(await adapter.startTransaction(isolationLevel), committed),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: () => adapter.dispose(),
  };
}

/**
 * Wraps a driver adapter factory so that `committed` is called once each of this process's writes is committed
 * (src/db/data-version.ts: the process then sees its own writes at once, without waiting to be told).
 */
export function reportingCommittedWrites(
  factory: SqlDriverAdapterFactory,
  committed: () => void,
): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => reportingAdapter(await factory.connect(), committed),
  };
}
