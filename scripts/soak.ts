/**
 * npm run soak: holds a mixed read/write load on the real server (a child process, loopback) for a fixed time, then
 * checks that nothing failed, that the server's memory stayed flat, and that every acknowledged write reads back as
 * acknowledged after a restart. On a fresh SQLite file, and also on PostgreSQL when SOAK_DATABASE_URL names a server
 * (a fresh schema there, dropped afterwards). Prints a summary; exits 1 when a check fails.
 *
 *   SOAK_DURATION          seconds of load per engine (default 60)
 *   SOAK_CLIENTS           concurrent clients (default 8)
 *   SOAK_WARMUP            seconds left out of the memory check (default a quarter of the duration)
 *   SOAK_MEMORY_TOLERANCE  allowed growth of mean RSS, last third against first third after warm-up (default 0.15)
 *   SOAK_DATABASE_URL      postgresql://… to soak PostgreSQL too
 */
import { randomBytes } from 'node:crypto';
import type { Api } from './soak/api.js';
import { Ledger, type Mismatch } from './soak/ledger.js';
import { judgeMemory, RssSampler, type MemoryVerdict } from './soak/memory.js';
import { createdId, createRecord, newFields, type Kind, type LinkTargets } from './soak/records.js';
import { buildServer } from '../bench/processes.js';
import {
  errorLines,
  scratchPostgres,
  scratchSqlite,
  startService,
  type ScratchDatabase,
  type ServiceUnderTest,
} from './soak/server.js';
import { runClient, Stats, type Failure } from './soak/workload.js';

interface Settings {
  durationS: number;
  clients: number;
  warmupS: number;
  tolerance: number;
  postgresUrl: string | undefined;
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  const durationS = positiveNumber(env, 'SOAK_DURATION', 60);
  return {
    durationS,
    clients: Math.round(positiveNumber(env, 'SOAK_CLIENTS', 8)),
    warmupS: positiveNumber(env, 'SOAK_WARMUP', durationS / 4),
    tolerance: positiveNumber(env, 'SOAK_MEMORY_TOLERANCE', 0.15),
    postgresUrl: env.SOAK_DATABASE_URL || undefined,
  };
}

interface EngineResult {
  engine: string;
  seconds: number;
  requests: number;
  failures: number;
  failureSamples: Failure[];
  serverErrors: string[];
  memory: MemoryVerdict;
  acknowledgedWrites: number;
  recordsChecked: number;
  mismatches: Mismatch[];
  latencies: Record<string, { count: number; p50: number; p99: number }>;
  ok: boolean;
}

const LINK_COUNTS: Array<[Kind, keyof LinkTargets, number]> = [
  ['venue', 'venues', 4],
  ['organizer', 'organizers', 4],
  ['category', 'categories', 4],
  ['tag', 'tags', 6],
];

/** The records soak events link to, created once and never deleted. */
async function createLinkTargets(admin: Api, token: string): Promise<LinkTargets> {
  const targets: LinkTargets = { venues: [], organizers: [], categories: [], tags: [] };
  for (const [kind, list, count] of LINK_COUNTS) {
    for (let n = 0; n < count; n++) {
      const reply = await createRecord(admin, kind, newFields(kind, `${token}-link-${n}`, targets), 'rest');
      if (reply.status !== 201)
        throw new Error(`creating a ${kind} to link answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      targets[list].push(createdId(reply));
    }
  }
  return targets;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

function latencySummary(stats: Stats): EngineResult['latencies'] {
  const summary: EngineResult['latencies'] = {};
  for (const [operation, list] of [...stats.latencies].sort(([a], [b]) => a.localeCompare(b))) {
    const sorted = [...list].sort((a, b) => a - b);
    summary[operation] = { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  }
  return summary;
}

async function runLoad(
  service: ServiceUnderTest,
  settings: Settings,
  ledger: Ledger,
  stats: Stats,
): Promise<MemoryVerdict> {
  const token = randomBytes(3).toString('hex');
  const links = await createLinkTargets(service.admin, token);
  const sampler = new RssSampler();
  sampler.start(service.child.pid);
  const deadline = performance.now() + settings.durationS * 1000;
  const stop = () => performance.now() >= deadline;
  await Promise.all(
    Array.from({ length: settings.clients }, (_, worker) =>
      runClient({ worker, reader: service.anonymous, writer: service.admin, ledger, links, stats, token }, stop),
    ),
  );
  sampler.stop();
  return judgeMemory(sampler.samples, settings.warmupS, settings.tolerance);
}

async function soak(database: ScratchDatabase, settings: Settings): Promise<EngineResult> {
  const password = randomBytes(12).toString('hex');
  const ledger = new Ledger();
  const stats = new Stats();
  let service = await startService(database.url, password);
  try {
    const started = performance.now();
    const memory = await runLoad(service, settings, ledger, stats);
    const seconds = (performance.now() - started) / 1000;
    const serverErrors = errorLines(service.child);
    // Acknowledged writes must survive a restart too: stop (SIGTERM), start again on the same database, read back.
    await service.child.stop();
    service = await startService(database.url, password);
    const { checked, mismatches } = await ledger.verify(service.admin);
    return {
      engine: database.engine,
      seconds,
      requests: stats.requests,
      failures: stats.failureCount,
      failureSamples: stats.failures,
      serverErrors,
      memory,
      acknowledgedWrites: ledger.acknowledged,
      recordsChecked: checked,
      mismatches,
      latencies: latencySummary(stats),
      ok: stats.failureCount === 0 && memory.ok && mismatches.length === 0 && ledger.acknowledged > 0,
    };
  } finally {
    await service.child.stop();
    await database.drop();
  }
}

const mb = (value: number) => `${value.toFixed(0)} MB`;

function printResult(result: EngineResult, settings: Settings): void {
  const rate = result.requests / result.seconds;
  console.log(
    `\nSoak on ${result.engine}: ${result.seconds.toFixed(0)} s, ${settings.clients} clients, ${result.requests} requests (${rate.toFixed(0)}/s), ${result.failures} failures`,
  );
  for (const failure of result.failureSamples)
    console.log(`  failure: ${failure.operation} answered ${failure.status}: ${failure.detail}`);
  for (const line of result.serverErrors) console.log(`  server error: ${line}`);
  const { memory } = result;
  const growth = `${(memory.growth * 100).toFixed(1)}%`;
  console.log(
    memory.judged
      ? `  memory: mean RSS ${mb(memory.firstThirdMb)} → ${mb(memory.lastThirdMb)} (${growth}; at most ${(settings.tolerance * 100).toFixed(0)}%), peak ${mb(memory.peakMb)}: ${memory.ok ? 'flat' : 'GROWING'}`
      : `  memory: not judged (too few samples after the ${settings.warmupS.toFixed(0)} s warm-up), peak ${mb(memory.peakMb)}`,
  );
  console.log(`  RSS by tenth of the run (MB): ${memory.timeline.join(' ')}`);
  console.log(
    `  writes: ${result.acknowledgedWrites} acknowledged on ${result.recordsChecked} records; after a restart ${result.mismatches.length} records differ from what clients were told`,
  );
  for (const mismatch of result.mismatches.slice(0, 10))
    console.log(
      `  mismatch: ${mismatch.kind} ${mismatch.id} is ${JSON.stringify(mismatch.found)}, expected one of ${JSON.stringify(mismatch.allowed)}`,
    );
  for (const [operation, { count, p50, p99 }] of Object.entries(result.latencies)) {
    console.log(
      `    ${operation.padEnd(28)} ${String(count).padStart(6)}  p50 ${p50.toFixed(1).padStart(7)} ms  p99 ${p99.toFixed(1).padStart(7)} ms`,
    );
  }
  console.log(`  ${result.ok ? 'PASS' : 'FAIL'}`);
}

/** The figures of a run without the details printed above: the one machine-readable line, for scripts and tests. */
function resultFigures({
  latencies: _l,
  failureSamples: _f,
  serverErrors: _e,
  memory: { timeline: _t, ...memory },
  mismatches,
  ...figures
}: EngineResult) {
  return { ...figures, memory, mismatches: mismatches.length };
}

async function main(): Promise<void> {
  const settings = readSettings(process.env);
  buildServer();
  const databases = [scratchSqlite(), ...(settings.postgresUrl ? [scratchPostgres(settings.postgresUrl)] : [])];
  const results: EngineResult[] = [];
  for (const database of databases) {
    const result = await soak(database, settings);
    printResult(result, settings);
    results.push(result);
  }
  const ok = results.every((result) => result.ok);
  console.log(`SOAK RESULT ${JSON.stringify({ ok, results: results.map(resultFigures) })}`);
  process.exitCode = ok ? 0 : 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
