import cluster from 'node:cluster';
import type { Config } from './config.js';
import { bootstrapAdmin } from './auth/credentials.js';
import { createDb } from './db/client.js';
import { migrate } from './db/migrate.js';
import type { Logger } from './logging/logger.js';

/**
 * Runs `config.workers` server processes sharing one port (node:cluster). The primary migrates the database and
 * bootstraps the administrator once, then forks; workers serve. Stateless workers need nothing from each other: all
 * state is in the database. A worker that dies is replaced; SIGTERM/SIGINT stops them all gracefully.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  await migrate(config, { logger });
  if (config.adminPassword) {
    const db = createDb(config);
    try {
      await bootstrapAdmin(db, config.adminPassword, logger);
    } finally {
      await db.$disconnect();
    }
  }
  let stopping = false;
  const fork = () => cluster.fork({ CALENDAR_WORKER: '1' });
  for (let n = 0; n < config.workers; n++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error(
      { workerPid: worker.process.pid, exit: signal ?? code },
      `worker ${worker.process.pid} exited (${signal ?? code}); starting another`,
    );
    fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${signal} received: stopping ${config.workers} workers`);
    const workers = Object.values(cluster.workers ?? {});
    let running = workers.length;
    if (running === 0) process.exit(0);
    for (const worker of workers) {
      worker?.once('exit', () => {
        running -= 1;
        if (running === 0) process.exit(0);
      });
      worker?.process.kill('SIGTERM');
    }
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

export const isClusterWorker = () => cluster.isWorker;
