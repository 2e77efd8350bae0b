// A second client, in a process of its own so that the test's own work (hundreds of open streams) does not slow it:
// makes `writes` organizers one after another as `authorization`, while it reads a list (one the response cache has
// not seen, so each read reaches the database) and asks /healthz, each every 50 ms; then prints as JSON the IDs
// written and the slowest answer of each kind, in milliseconds. Any answer other than 200 (201 for a write) fails it.
// The reader and the writer are two clients (X-Forwarded-For, for a server that trusts it), as two people would be.
//
//   node test/support/latency-probe.mjs <base URL> <writes> <authorization>

const [base, writes, authorization] = process.argv.slice(2);
const API = '/wp-json/calendar/events/v1';
const slowest = { write: 0, health: 0, read: 0 };
const idle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function timed(kind, url, init, expected) {
  const started = performance.now();
  const response = await fetch(url, init);
  const body = await response.text();
  slowest[kind] = Math.max(slowest[kind], performance.now() - started);
  if (response.status !== expected)
    throw new Error(`${init?.method ?? 'GET'} ${url} answered ${response.status}: ${body.slice(0, 300)}`);
  return body;
}

let running = true;
async function poll(kind, path) {
  for (let n = 0; running; n++) {
    await timed(kind, `${base}${path(n)}`, { headers: { 'x-forwarded-for': '203.0.113.7' } }, 200);
    await idle(50);
  }
}

const pollers = [
  poll('health', () => '/healthz'),
  poll('read', (n) => `${API}/organizers?per_page=20&search=probe-${Date.now()}-${n}`),
];
const ids = [];
try {
  for (let i = 0; i < Number(writes); i++) {
    const init = {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization, 'x-forwarded-for': '203.0.113.8' },
      body: JSON.stringify({ organizer: `Probe ${Date.now()}-${i}` }),
    };
    ids.push(JSON.parse(await timed('write', `${base}${API}/organizers`, init, 201)).id);
  }
} finally {
  running = false;
  await Promise.all(pollers);
}
process.stdout.write(JSON.stringify({ ids, slowest }));
