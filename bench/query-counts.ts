/**
 * SQL statements per request, per scenario: the app runs in this process with query counting on
 * (createApp(config, { countQueries: true })), each of a scenario's first five requests is answered until two answers
 * in a row took as many statements, and the most of the five is reported. Run by the harness as a child process;
 * prints one JSON object `{ scenarioId: statements }`.
 *
 *   DATABASE_URL=file:bench.db SITE_URL=http://calendar.bench npx tsx bench/query-counts.ts <scenarios.json>
 */
import { createApp } from '../src/server.js';
import { answer, inProcessConfig, scenariosOfArgument } from './in-process.js';
import type { Scenario } from './scenarios.js';

const scenarios = scenariosOfArgument();
const app = await createApp(inProcessConfig(), { countQueries: true });
/** Requests of a scenario counted: the first ones of those it rotates over. */
const SAMPLED_REQUESTS = 5;
const counts: Record<string, number> = {};
try {
  for (const scenario of scenarios) {
    const counted = async (request: Scenario['requests'][number]) => {
      const before = app.queries.count;
      await answer(app, scenario, request);
      return app.queries.count - before;
    };
    // Settled: until two requests in a row send as many statements. A process's first requests on PostgreSQL can
    // read the data version once more (its start-up's own writes make the next question read it), later ones not.
    const settled = async (request: Scenario['requests'][number]) => {
      let previous = await counted(request);
      let count = await counted(request);
      for (let tries = 0; count !== previous && tries < 5; tries++) [previous, count] = [count, await counted(request)];
      return count;
    };
    // A scenario rotating over records costs what its records need (an event without an image reads no images):
    // the most of its first SAMPLED_REQUESTS requests.
    let most = 0;
    for (const request of scenario.requests.slice(0, SAMPLED_REQUESTS)) most = Math.max(most, await settled(request));
    counts[scenario.id] = most;
  }
} finally {
  await app.close();
}
process.stdout.write(`${JSON.stringify(counts)}\n`);
