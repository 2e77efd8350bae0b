import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // One copy of graphql: Pothos and Yoga load its CommonJS build, so the tests must not load the ESM one beside it.
  resolve: { alias: { graphql: createRequire(import.meta.url).resolve('graphql') } },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test' },
  },
});
