import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// The whole suite runs once per engine: SQLite (a file per test server) and PostgreSQL (a schema per test server).
// TEST_ENGINES=sqlite runs only SQLite, for a machine without PostgreSQL; nothing is skipped silently: an unreachable
// PostgreSQL fails the run (test/support/postgres-setup.ts).
const engines = (process.env.TEST_ENGINES ?? 'sqlite,postgres').split(',').map((engine) => engine.trim());

export default defineConfig({
  // One copy of graphql: Pothos and Yoga load its CommonJS build, so the tests must not load the ESM one beside it.
  resolve: { alias: { graphql: createRequire(import.meta.url).resolve('graphql') } },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two files at a time. Vitest's default is one fewer worker than cores: one on CI's 2 cores, where the files ran
    // one after another for over an hour, most of them waiting on servers in other processes (docs/development.md,
    // Tests).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/build.ts'],
    projects: engines.map((engine) => ({
      extends: true,
      test: {
        name: engine,
        // `*.postgres.test.ts` files test what only PostgreSQL deployments do (several processes on one database),
        // `*.sqlite.test.ts` files what only SQLite deployments meet (a database file restored in place), or what does
        // not depend on the engine and is worth running once (the benchmark harness).
        exclude: [`test/**/*.${engine === 'postgres' ? 'sqlite' : 'postgres'}.test.ts`],
        env: { NODE_ENV: 'test', TEST_ENGINE: engine },
        globalSetup: engine === 'postgres' ? ['test/support/postgres-setup.ts'] : [],
      },
    })),
  },
});
