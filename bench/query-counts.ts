/**
 * SQL statements per request, per scenario: the app runs in this process with query counting on
 * (createApp(config, { countQueries: true })), each of a scenario's first five requests is answered until two answers
 * in a row took as many statements, and the most of the five is reported. Run by the harness as a child process; prints one JSON object `{ scenarioId: statements }`.
 *
 *   DATABASE_URL=file:bench.db SITE_URL=http://calendar.bench npx tsx bench/query-counts.ts <scenarios.json>
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { createApp } from '../src/server.js';
import type { Scenario } from './scenarios.js';

const scenarios = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Scenario[];
// Request lines stay out of stdout, whose last line is the answer.
// Without the response cache: the statements a request really needs (a cached answer costs none).
const config = loadConfig({
  DATABASE_URL: process.env.DATABASE_URL,
  SITE_URL: process.env.SITE_URL,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  RESPONSE_CACHE_MB: '0',
  // One request at a time, in this process: a slow first request (a cold 100,000-event database) must not read as
  // a process falling behind.
  MAX_EVENT_LOOP_LAG_MS: '0',
});
const app = await createApp(config, { countQueries: true });
/** Requests of a scenario counted: the first ones of those it rotates over. */
const SAMPLED_REQUESTS = 5;
const counts: Record<string, number> = {};
try {
  for (const scenario of scenarios) {
    const send = async (request: Scenario['requests'][number]) => {
      const response = await app.fetch(
        new Request(`http://127.0.0.1${request.path}`, {
          method: request.method ?? 'GET',
          headers: request.headers,
          body: request.body,
        }),
      );
      const text = await response.text();
      if (response.status !== (scenario.expectStatus ?? 200) || /^\{"errors"/.test(text))
        throw new Error(`${scenario.id}: ${response.status} ${text.slice(0, 300)}`);
    };
    const counted = async (request: Scenario['requests'][number]) => {
      const before = app.queries.count;
      await send(request);
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
