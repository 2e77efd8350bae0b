import { buildServer } from '../../bench/processes.js';

const BUILT = Symbol.for('calendar-events-service.test-build');

/**
 * Compiles src/ to dist/ once before any test file runs (about a second when it is up to date): the tests that start
 * the server as `npm start` does run the compiled code, and must neither run a stale build nor build it concurrently.
 * Vitest runs a global setup once for the run and once per project, in one process; the build is needed only once.
 */
export default function build(): void {
  const state = globalThis as { [BUILT]?: true };
  if (state[BUILT]) return;
  buildServer();
  state[BUILT] = true;
}
