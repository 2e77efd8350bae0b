import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// The whole suite runs once per engine: SQLite (a file per test server) and PostgreSQL (a schema per test server).
// TEST_ENGINES=sqlite runs only SQLite, for a machine without PostgreSQL; nothing is skipped silently: an unreachable
// PostgreSQL fails the run (test/support/postgres-setup.ts).
const engines = (process.env.TEST_ENGINES ?? 'sqlite,postgres').split(',').map((engine) => engine.trim());

/**
 * Files that bound how long a server takes to answer while something loads it (a series removed, a flood, a stalled
 * subscriber) or how late a timed send arrives. They run one at a time after the others: beside another file on CI's
 * 2 cores their bounds measured the neighbour (a write of 390 ms against 250, a repeat 248 ms after its first).
 */
const TIMED = [
  'changes-resume',
  'changes-subscription',
  'concurrent-updates',
  'cdn-purge-json',
  'cdn-varnish',
  'load-shedding',
  'recurring-events',
  'security-audit-2-inputs',
  'security-audit-2-series',
  'security-audit-2-shedding',
  'security-audit-2-sign-in',
  'security-audit-2-subscriptions',
  'security-audit-2-webhooks',
  'series-removal',
  'webhooks-retry-window',
].map((name) => `test/${name}.test.ts`);

export default defineConfig({
  // One copy of graphql: Pothos and Yoga load its CommonJS build, so the tests must not load the ESM one beside it.
  resolve: { alias: { graphql: createRequire(import.meta.url).resolve('graphql') } },
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/build.ts'],
    projects: engines.flatMap((engine) => {
      const shared = {
        // `*.postgres.test.ts` files test what only PostgreSQL deployments do (several processes on one database),
        // `*.sqlite.test.ts` files what only SQLite deployments meet (a database file restored in place), or what does
        // not depend on the engine and is worth running once (the benchmark harness).
        exclude: [`test/**/*.${engine === 'postgres' ? 'sqlite' : 'postgres'}.test.ts`],
        env: { NODE_ENV: 'test', TEST_ENGINE: engine },
        globalSetup: engine === 'postgres' ? ['test/support/postgres-setup.ts'] : [],
      };
      return [
        // Two files at a time (Vitest's default is one fewer worker than cores: one on CI's 2 cores, where the files
        // ran one after another for over an hour, most of the time waiting on servers in other processes).
        {
          extends: true,
          test: {
            ...shared,
            name: engine,
            include: ['test/**/*.test.ts'],
            maxWorkers: 2,
            exclude: [...shared.exclude, ...TIMED],
          },
        },
        { extends: true, test: { ...shared, name: `${engine}-timed`, include: TIMED, maxWorkers: 1 } },
      ];
    }),
  },
});
