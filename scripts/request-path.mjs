// The project files one REST list request runs through, measured rather than read: V8's precise coverage of the
// server's sources (through tsx: the bundle in dist/ has no file per module) over one anonymous GET of the events
// list that misses the response cache. Prints one src/ path a line on stderr (stdout has the server's log lines, which
// are on the path); docs/request-path.md lists them in the order the request meets them.
//   node --import tsx scripts/request-path.mjs 2>&1 >/dev/null
import { mkdtempSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const sources = fileURLToPath(new URL('../src/', import.meta.url));
const { loadConfig } = await import(join(sources, 'config.ts'));
const { createApp, listen, shutdown } = await import(join(sources, 'server.ts'));

const adminPassword = 'request-path-admin-secret';
const config = loadConfig({
  DATABASE_URL: `file:${join(mkdtempSync(join(tmpdir(), 'request-path-')), 'calendar.db')}`,
  PORT: '0',
  HOST: '127.0.0.1',
  CALENDAR_ADMIN_PASSWORD: adminPassword,
  LOG_LEVEL: 'info',
});
const app = await createApp(config);
const server = await listen(app);
const api = `http://127.0.0.1:${server.address().port}/wp-json/calendar/events/v1`;
const nextYear = new Date().getUTCFullYear() + 1;

// Two events with a venue and a category, so that the list's serializers run.
for (const day of [5, 6]) {
  const response = await fetch(`${api}/events`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`admin:${adminPassword}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      title: `Concert ${day}`,
      start_date: `${nextYear}-01-0${day} 10:00:00`,
      end_date: `${nextYear}-01-0${day} 12:00:00`,
      venue: { venue: 'Hall' },
      categories: ['music'],
    }),
  });
  if (response.status !== 201) throw new Error(`creating an event answered ${response.status}`);
}
const list = (day) => `${api}/events?start_date=${nextYear}-01-0${day}&per_page=1&page=2`;
// Warm: what runs once per process (schema, statements) is not the request's path.
for (const day of [1, 2]) await (await fetch(list(day))).text();

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await session.post('Profiler.takePreciseCoverage'); // resets the counts
const response = await fetch(list(3)); // another start date: a cache miss
await response.text();
const { result } = await session.post('Profiler.takePreciseCoverage');
await shutdown(server, app);

// Timers of the process (webhook deliveries) may run meanwhile; they are not the request's.
const background = /^webhooks\//;
const files = result
  .filter(({ url }) => url.startsWith(`file://${sources}`))
  .filter(({ functions }) => functions.some((fn) => fn.ranges[0].count > 0))
  .map(({ url }) => relative(sources, fileURLToPath(url)))
  .filter((file) => !background.test(file))
  .sort();
console.error(`${response.status} ${files.length} files`);
for (const file of files) console.error(`src/${file}`);
process.exit(0);
