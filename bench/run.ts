/**
 * `npm run bench`: the performance measurement of the service.
 *
 * For each data size: generate a SQLite database (bench/generate.ts), count the SQL statements of one request of each
 * scenario in process, start the real server as a child process as `npm start` does (`node dist/cli.js serve`, built
 * first by `npm run build`; embedded SQLite default), timing its start-up to a healthy /healthz, check every scenario answers 200 and that the floor (bench/floor.ts) answers the same bytes for the events
 * list, then load each scenario with autocannon over loopback at each concurrency (warm-up, then measured), sampling
 * the server's resident memory from /proc; then the floor alone, the same way. Results: bench/results.json and
 * bench/results.md, and the README's Performance section (between its bench markers).
 *
 * Settings (environment):
 *   BENCH_SIZES        event counts, default 1000,100000
 *   BENCH_DURATION     measured seconds per run, default 3
 *   BENCH_WARMUP       warm-up seconds per run (same connections, not counted), default 1
 *   BENCH_DRAIN        seconds a server may take to finish what a run cut off before it is restarted, default 2
 *   BENCH_CONCURRENCY  connections, default 1,32
 *   BENCH_SCENARIOS    only these scenario IDs (comma-separated), default all
 *   BENCH_OUT          folder for results.json/.md, default bench/ (another folder leaves the README alone)
 *   BENCH_KEEP=1       keep the generated databases (their folder is printed)
 *   BENCH_WAIT_QUIET   wait up to this many seconds for other processes to leave the CPUs idle first, default 0
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, release, tmpdir, totalmem, type as osType } from 'node:os';
import { join, resolve } from 'node:path';
import { generateDatabase } from './generate.js';
import { runLoad, type LoadResult } from './load.js';
import { buildServer, PROJECT_ROOT, startFloorProcess, startService, type ChildServer } from './processes.js';
import { judge, machineLine, resultsMarkdown, resultTables, type Machine, type Results, type RunResult, type SizeResult } from './report.js';
import { checkResponse, firstDifference, FLOOR_SCENARIO, REST, scenariosFor, type Scenario } from './scenarios.js';

const SITE_URL = 'http://calendar.bench';
/** Statements the floor sends for one list request: count, page, venues, organizers, terms, term counts. */
const FLOOR_QUERIES = 6;

function numbers(name: string, fallback: string): number[] {
  const raw = process.env[name] ?? fallback;
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.some((value) => !Number.isFinite(value) || value <= 0)) throw new Error(`${name} must be positive numbers separated by commas, got "${raw}"`);
  return values;
}

const sizes = numbers('BENCH_SIZES', '1000,100000').map(Math.round);
const [duration] = numbers('BENCH_DURATION', '3');
const [warmup] = [Number(process.env.BENCH_WARMUP ?? '1')];
const [drainSeconds] = numbers('BENCH_DRAIN', '2');
const concurrency = numbers('BENCH_CONCURRENCY', '1,32').map(Math.round);
const only = process.env.BENCH_SCENARIOS?.split(',').map((id) => id.trim()).filter(Boolean);
const outDir = resolve(process.env.BENCH_OUT ?? join(PROJECT_ROOT, 'bench'));
const defaultOut = outDir === resolve(PROJECT_ROOT, 'bench');
if (!Number.isFinite(warmup) || warmup! < 0) throw new Error('BENCH_WARMUP must be a number of seconds');

const began = performance.now();
const log = (line: string) => console.log(`${String(Math.round((performance.now() - began) / 1000)).padStart(4)}s ${line}`);
const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

/** Share of all CPUs busy over `ms` (from /proc/stat): what other processes do before the benchmark starts. */
async function cpuBusy(ms: number): Promise<number> {
  const read = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3]! + (fields[4] ?? 0);
    return { idle, total: fields.reduce((sum, value) => sum + value, 0) };
  };
  const before = read();
  await new Promise((done) => setTimeout(done, ms));
  const after = read();
  return after.total === before.total ? 0 : 1 - (after.idle - before.idle) / (after.total - before.total);
}

/** Waits (up to BENCH_WAIT_QUIET seconds) until the machine is idle; answers how busy it was at the start. */
async function quietMachine(): Promise<number> {
  const until = Date.now() + Number(process.env.BENCH_WAIT_QUIET ?? 0) * 1000;
  let busy = await cpuBusy(2000);
  while (busy > 0.1 && Date.now() < until) {
    log(`  other processes keep the CPUs ${Math.round(busy * 100)}% busy; waiting for a quiet machine`);
    busy = await cpuBusy(5000);
  }
  if (busy > 0.1) log(`  warning: other processes keep the CPUs ${Math.round(busy * 100)}% busy; the numbers will be low and noisy`);
  return busy;
}

function machine(): Machine {
  const autocannon = JSON.parse(readFileSync(join(PROJECT_ROOT, 'node_modules/autocannon/package.json'), 'utf8')) as { version: string };
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown CPU',
    cores: cpus().length,
    memoryGiB: totalmem() / 2 ** 30,
    os: `${osType()} ${release()} ${arch()}`,
    node: process.version,
    autocannon: autocannon.version,
  };
}

/** Runs bench/query-counts.ts in a child process over the database and reads its JSON line. */
function countQueries(databaseUrl: string, scenarios: Scenario[], dir: string): Promise<Record<string, number>> {
  const file = join(dir, 'scenarios.json');
  writeFileSync(file, JSON.stringify(scenarios));
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/query-counts.ts', file], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, SITE_URL, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    child.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('{')) done(JSON.parse(line) as Record<string, number>);
      else fail(new Error(`query counting failed (exit ${code}):\n${out}\n${err}`));
    });
  });
}

async function fetchBody(base: string, request: Scenario['requests'][number]) {
  const response = await fetch(base + request.path, { method: request.method ?? 'GET', headers: request.headers, body: request.body });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

/**
 * Every scenario answers 200 with something in it, so the load runs measure real work, not errors. Scenarios that
 * rotate over many records are checked on 20 of them, spread over the list (the rest are of the same kind).
 */
async function checkScenarios(server: { url: string }, scenarios: Scenario[]) {
  for (const scenario of scenarios) {
    const step = Math.max(1, Math.floor(scenario.requests.length / 20));
    for (const request of scenario.requests.filter((_, index) => index % step === 0)) {
      const { status, body } = await fetchBody(server.url, request);
      const problem = checkResponse(scenario, status, body.toString('utf8'));
      if (problem) throw new Error(`${scenario.id} ${request.method ?? 'GET'} ${request.path}: ${problem}`);
    }
  }
}

/**
 * A server under test that can be replaced: when a run ends, the requests it cut off are still being answered, and
 * the next run must not share the CPU with them. A server that is not idle again within BENCH_DRAIN seconds
 * (default 2; a slow list at concurrency 32 leaves 32 requests of work behind) is killed and started afresh, which
 * is quicker; the next run's warm-up warms the new process. Peak memory is the highest of all its processes.
 */
class ManagedServer {
  private current!: ChildServer;
  private peaks: number[] = [];
  restarts = 0;

  constructor(private readonly start: () => Promise<ChildServer>) {}

  async begin() {
    this.current = await this.start();
    return this;
  }

  get url() {
    return this.current.url;
  }

  /** The current process's start-up: spawn to a healthy /healthz, and its resident memory then. */
  startup() {
    return { seconds: this.current.startupMs / 1000, rssMb: this.current.startupRssMb };
  }

  async measure(scenario: Scenario, connections: number): Promise<LoadResult & { peakRssMb: number }> {
    await this.current.waitIdle(5_000);
    this.current.resetWindow();
    const result = await runLoad({ url: this.current.url, connections, duration: duration!, warmup, requests: scenario.requests });
    const peakRssMb = this.current.windowPeakMb();
    if (!(await this.current.waitIdle(drainSeconds * 1000))) {
      this.peaks.push(this.current.peakMb());
      await this.current.kill();
      this.current = await this.start();
      this.restarts += 1;
    }
    return { ...result, peakRssMb };
  }

  peakMb() {
    return Math.max(...this.peaks, this.current.peakMb());
  }

  async stop() {
    await this.current.stop();
  }
}

function report(size: number, scenario: Scenario, result: LoadResult & { peakRssMb: number }, ratio: number | null) {
  const failures = result.errors + result.non2xx;
  log(
    `  ${String(size).padStart(6)} events  ${scenario.id.padEnd(16)} c${String(result.connections).padEnd(3)} ` +
      `${fmt(result.rps).padStart(8)} req/s  p50 ${fmt(result.p50, 2).padStart(7)} ms  p99 ${fmt(result.p99, 2).padStart(7)} ms  ` +
      `${ratio === null ? '' : `${fmt(ratio * 100, 0).padStart(4)}% of floor  `}rss ${fmt(result.peakRssMb, 0)} MB${failures ? `  FAILURES ${failures}` : ''}`,
  );
}

async function benchSize(events: number, dir: string): Promise<SizeResult> {
  const path = join(dir, `events-${events}.db`);
  const databaseUrl = `file:${path}`;
  const data = await generateDatabase(path, events);
  log(`${events} events: ${data.venues} venues, ${data.organizers} organizers, ${data.media} images generated in ${fmt(data.seconds)} s`);
  const scenarios = scenariosFor(data).filter((scenario) => !only || only.includes(scenario.id));
  const queries = await countQueries(databaseUrl, scenarios.filter((scenario) => !scenario.cached && !scenario.workers), dir);
  log(`  SQL statements per request: ${Object.entries(queries).map(([id, count]) => `${id} ${count}`).join(', ')}`);

  // The service and the floor side by side once: same bytes for the events list, and every scenario answers.
  const server = await new ManagedServer(() => startService(databaseUrl, SITE_URL, { responseCache: false, workers: 1 })).begin();
  const startup = server.startup();
  log(`  server started in ${fmt(startup.seconds, 2)} s (spawn to a healthy /healthz), RSS ${fmt(startup.rssMb, 0)} MB`);
  const floorCheck = await startFloorProcess(databaseUrl, SITE_URL);
  const byteCheck: SizeResult['byteCheck'] = [];
  try {
    for (const path of [`${REST}/events`, `${REST}/events?per_page=50`]) {
      const [ours, floor] = await Promise.all([fetchBody(server.url, { path }), fetchBody(floorCheck.url, { path })]);
      const difference = ours.status !== 200 || floor.status !== 200 ? `statuses ${ours.status} and ${floor.status}` : firstDifference(ours.body, floor.body);
      if (difference) throw new Error(`The floor does not answer ${path} with the service's bytes (fix bench/floor.ts): ${difference}`);
      byteCheck.push({ path, bytes: ours.body.length, identical: true });
    }
    log(`  floor answers the same bytes: ${byteCheck.map((check) => `${check.path.slice(REST.length)} (${check.bytes} bytes)`).join(', ')}`);
    await checkScenarios(server, scenarios);
  } finally {
    await floorCheck.stop();
  }

  const measured: Array<{ scenario: Scenario; result: LoadResult & { peakRssMb: number } }> = [];
  const measureAll = async (on: ManagedServer, selected: Scenario[]) => {
    try {
      for (const scenario of selected) {
        for (const connections of concurrency) {
          const result = await on.measure(scenario, connections);
          measured.push({ scenario, result });
          report(events, scenario, result, null);
        }
      }
    } finally {
      await on.stop();
    }
  };
  // The one-process server without cache first: its peak memory is the one the target speaks of.
  const plain = (scenario: Scenario) => !scenario.cached && !scenario.workers;
  await measureAll(server, scenarios.filter(plain));
  const serverPeak = server.peakMb();
  for (const setting of [{ responseCache: false, workers: 2 }, { responseCache: true, workers: 1 }]) {
    const selected = scenarios.filter((scenario) => !plain(scenario) && !!scenario.cached === setting.responseCache && (scenario.workers ?? 1) === setting.workers);
    if (selected.length) await measureAll(await new ManagedServer(() => startService(databaseUrl, SITE_URL, setting)).begin(), selected);
  }

  const floor = await new ManagedServer(() => startFloorProcess(databaseUrl, SITE_URL)).begin();
  const floorRuns: RunResult[] = [];
  try {
    for (const connections of concurrency) {
      const result = await floor.measure(FLOOR_SCENARIO, connections);
      report(events, FLOOR_SCENARIO, result, null);
      floorRuns.push({ ...result, scenario: FLOOR_SCENARIO.id, title: FLOOR_SCENARIO.title, api: 'REST', concurrency: connections, ratioToFloor: 1 });
    }
  } finally {
    await floor.stop();
  }

  const runs: RunResult[] = measured.map(({ scenario, result }) => {
    const base = floorRuns.find((run) => run.concurrency === result.connections);
    return {
      ...result,
      scenario: scenario.id,
      title: scenario.title,
      api: scenario.api,
      concurrency: result.connections,
      ratioToFloor: base && base.rps > 0 ? result.rps / base.rps : null,
    };
  });
  return {
    events,
    data: {
      venues: data.venues,
      organizers: data.organizers,
      categories: data.categories,
      tags: data.tags,
      media: data.media,
      generateSeconds: data.seconds,
      databaseMb: statSync(path).size / 2 ** 20,
      filter: `categories=${data.filterCategory}&search=${data.filterSearch}&start_date=<today>&end_date=<today + 180 days>`,
    },
    queries,
    floorQueries: FLOOR_QUERIES,
    byteCheck,
    server: { startupSeconds: startup.seconds, startupRssMb: startup.rssMb, peakRssMb: serverPeak, restarts: server.restarts },
    floor: { peakRssMb: floor.peakMb(), runs: floorRuns, restarts: floor.restarts },
    runs,
  };
}

/**
 * The hand-written "History" section of results.md (what each optimisation changed, with its numbers), which a run
 * keeps below the tables it rewrites.
 */
function keptHistory(file: string): string {
  let previous = '';
  try {
    previous = readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  const at = previous.indexOf('\n## History');
  return at < 0 ? '' : previous.slice(at);
}

/** Replaces the README's text between its bench markers with the latest tables (when it has the markers). */
function updateReadme(results: Results) {
  const file = join(PROJECT_ROOT, 'README.md');
  const readme = readFileSync(file, 'utf8');
  const start = '<!-- bench results: written by npm run bench (bench/run.ts) -->';
  const end = '<!-- end of bench results -->';
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) return false;
  writeFileSync(file, `${readme.slice(0, from + start.length)}\n${resultTables(results)}\n${readme.slice(to)}`);
  return true;
}

async function main() {
  const info = machine();
  log(`Benchmark on ${machineLine(info)}`);
  log('npm run build (the server runs compiled, as npm start runs it)');
  buildServer();
  const busyBefore = await quietMachine();
  const loadBefore = loadavg()[0]!;
  const startedAt = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'calendar-bench-'));
  log(`sizes ${sizes.join(', ')}; ${warmup} s warm-up + ${duration} s per run; concurrency ${concurrency.join(', ')}; databases in ${dir}`);
  const results: SizeResult[] = [];
  try {
    for (const events of sizes) results.push(await benchSize(events, dir));
  } finally {
    if (process.env.BENCH_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
  }
  const targets = judge(results, concurrency);
  const all: Results = {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    command: 'npm run bench',
    machine: info,
    settings: { durationSeconds: duration!, warmupSeconds: warmup!, concurrency, sizes },
    totalSeconds: (performance.now() - startedAt) / 1000,
    background: { cpuBusyBefore: busyBefore, loadAverageBefore: loadBefore, loadAverageAfter: loadavg()[0]! },
    sizes: results,
    targets,
  };
  log('');
  for (const target of targets) {
    log(`${target.pass === null ? 'n/a ' : target.pass ? 'pass' : 'miss'}  ${target.description}: ${target.measured} (goal ${target.goal})`);
  }
  writeFileSync(join(outDir, 'results.json'), `${JSON.stringify(all, null, 2)}\n`);
  writeFileSync(join(outDir, 'results.md'), resultsMarkdown(all) + keptHistory(join(outDir, 'results.md')));
  const readme = defaultOut && updateReadme(all);
  log(`\nWrote ${join(outDir, 'results.md')} and results.json${readme ? ', and the README tables' : ''} (${Math.round(all.totalSeconds)} s).`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
