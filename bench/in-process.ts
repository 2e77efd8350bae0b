/**
 * The app as the harness's in-process scripts run it (bench/query-counts.ts, bench/profile.ts): from its sources,
 * without the response cache (what a request really costs: a cached answer costs nothing), over the scenarios of
 * the file the harness names as the first argument.
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import type { App } from '../src/server.js';
import type { Scenario } from './scenarios.js';

/** The scenarios of the file named by the first argument. */
export const scenariosOfArgument = () => JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Scenario[];

/** Request lines stay out of stdout, whose last line is the answer. */
export const inProcessConfig = () =>
  loadConfig({
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

/** Answers one request of a scenario; throws when the status is not the scenario's or the answer is GraphQL errors. */
export async function answer(app: App, scenario: Scenario, request: Scenario['requests'][number]): Promise<void> {
  const response = await app.fetch(
    new Request(`http://127.0.0.1${request.path}`, {
      method: request.method ?? 'GET',
      headers: request.headers,
      body: request.body,
    }),
  );
  const text = await response.text();
  if (response.status !== (scenario.expectStatus ?? 200) || /^\{"errors"/.test(text))
    throw new Error(`${scenario.id}: ${request.path} answered ${response.status} ${text.slice(0, 300)}`);
}
