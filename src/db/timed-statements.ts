import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';
import { inSpan, tracingOn } from '../tracing/tracing.js';

/** Tells how long each statement took, in seconds (for the metrics, src/metrics). */
export type StatementTimer = (seconds: number) => void;

/** What is done around each statement: its span (when tracing), its time (when measured). */
interface Observer {
  timer: StatementTimer | undefined;
  /** `db.system.name`: `sqlite` or `postgresql`. */
  system: string;
}

/** A statement's span name: its first keyword (`SELECT`, `INSERT` …), as OpenTelemetry's database conventions name it. */
const verbOf = (sql: string) => /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';

function timed<T>(observer: Observer, run: () => Promise<T>, query?: SqlQuery): Promise<T> {
  const measured = async () => {
    const started = performance.now();
    try {
      return await run();
    } finally {
      observer.timer?.((performance.now() - started) / 1000);
    }
  };
  // Only metrics on: no span, and no attributes made for one.
  if (!tracingOn()) return measured();
  const attributes = { 'db.system.name': observer.system, ...(query ? { 'db.query.text': query.sql } : {}) };
  return inSpan(query ? verbOf(query.sql) : 'COMMIT', attributes, measured);
}

function timedTransaction(transaction: Transaction, observe: Observer): Transaction {
  return {
    provider: transaction.provider,
    adapterName: transaction.adapterName,
    options: transaction.options,
    queryRaw: (query) => timed(observe, () => transaction.queryRaw(query), query),
    executeRaw: (query) => timed(observe, () => transaction.executeRaw(query), query),
    commit: () => timed(observe, () => transaction.commit()),
    rollback: () => transaction.rollback(),
    createSavepoint: transaction.createSavepoint?.bind(transaction),
    rollbackToSavepoint: transaction.rollbackToSavepoint?.bind(transaction),
    releaseSavepoint: transaction.releaseSavepoint?.bind(transaction),
  };
}

function timedAdapter(adapter: SqlDriverAdapter, observe: Observer): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => timed(observe, () => adapter.queryRaw(query), query),
    executeRaw: (query) => timed(observe, () => adapter.executeRaw(query), query),
    executeScript: (script) => adapter.executeScript(script),
    startTransaction: async (isolationLevel) =>
      timedTransaction(await adapter.startTransaction(isolationLevel), observe),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: () => adapter.dispose(),
  };
}

/**
 * Wraps a driver adapter factory so that every statement is observed (a span when tracing is on, its time when
 * `timer` is given): outermost, so that on SQLite it includes the wait for the connection's turn
 * (src/db/sqlite-adapter.ts), which is part of what a request waits for.
 */
export function observingStatements(
  factory: SqlDriverAdapterFactory,
  timer: StatementTimer | undefined,
): SqlDriverAdapterFactory {
  const observe: Observer = { timer, system: factory.provider === 'postgres' ? 'postgresql' : 'sqlite' };
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => timedAdapter(await factory.connect(), observe),
  };
}
