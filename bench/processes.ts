/**
 * Servers under test run as child processes of the harness (so the load generator does not share their event loop
 * or heap): started, watched through /proc (resident memory, CPU time) and stopped with SIGTERM.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Resident memory in MB from /proc/<pid>/status: now (VmRSS) and the process's peak so far (VmHWM). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/** CPU time (user + system) the process has used, in clock ticks. */
function cpuTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

export interface ChildServer {
  pid: number;
  url: string;
  /** From spawn to the first 200 from /healthz (to the ready line for a process without it), ms. */
  startupMs: number;
  /** Resident memory once started, before any other request (MB). */
  startupRssMb: number;
  /** Highest VmRSS sampled since the last `resetWindow` (MB). */
  windowPeakMb(): number;
  resetWindow(): void;
  /** The process's peak resident memory since it started (VmHWM, MB). */
  peakMb(): number;
  /**
   * Waits until the process is (nearly) idle: requests a finished run abandoned no longer burn CPU. Resolves false
   * when it is still busy after `maxMs`.
   */
  waitIdle(maxMs?: number): Promise<boolean>;
  output(): string;
  /** SIGTERM: the server finishes in-flight requests and exits. */
  stop(): Promise<void>;
  /** SIGKILL: gone at once, whatever it was doing. */
  kill(): Promise<void>;
}

export interface StartOptions {
  /** The script and its arguments: a `.ts` script runs through tsx (`node --import tsx`), a `.js` one as it is. */
  args: string[];
  env: Record<string, string>;
  /** The line that tells the server listens, with its base URL as the first group. */
  ready: RegExp;
  /** The process serves /healthz: it has started when that answers 200, not at the ready line. */
  healthz?: boolean;
  timeoutMs?: number;
  /** V8 flags before the script, e.g. the heap settings `npm start` uses. */
  nodeFlags?: string[];
}

/** What `npm start` gives the server from package.json `config`: V8 flags and glibc's malloc arena limit. */
function startScriptSettings(): { nodeFlags: string[]; env: Record<string, string> } {
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    config?: { node_flags?: string; malloc_arena_max?: string };
  };
  // BENCH_NODE_FLAGS adds flags for a measurement (`--cpu-prof --cpu-prof-dir=/tmp/prof` profiles the service).
  const flags = `${manifest.config?.node_flags ?? ''} ${process.env.BENCH_NODE_FLAGS ?? ''}`;
  const nodeFlags = flags.split(/\s+/).filter(Boolean);
  return {
    nodeFlags,
    env: manifest.config?.malloc_arena_max ? { MALLOC_ARENA_MAX: manifest.config.malloc_arena_max } : {},
  };
}

/** The compiled server `npm start` runs; built (or found up to date) by `npm run build` before a harness starts it. */
export const COMPILED_CLI = 'dist/cli.js';

/** `npm run build`: type-checks src/ and bundles it into dist/ (about 4 s when nothing changed). */
export function buildServer(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: PROJECT_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Polls `url`/healthz until it answers 200. */
async function untilHealthy(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const healthy = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return;
    if (Date.now() >= until) throw new Error(`${url}/healthz did not answer 200 within ${timeoutMs} ms`);
    await sleep(10);
  }
}

const OUTPUT_KEPT = 64 * 1024;

/** Starts `node <args>` in the project folder (through tsx for a `.ts` script) and resolves once it has started. */
export async function startChild(options: StartOptions): Promise<ChildServer> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && key !== 'CALENDAR_ADMIN_PASSWORD') env[key] = value;
  const loader = options.args[0]?.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const spawnedAt = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeFlags ?? []), ...loader, ...options.args], {
    cwd: PROJECT_ROOT,
    env: { ...env, NODE_ENV: 'production', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The tail of what the process printed (request log lines would otherwise pile up for the whole run).
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
  };
  let windowPeak = 0;
  let peak = 0;
  const sample = () => {
    const memory = child.pid ? memoryOf(child.pid) : null;
    if (!memory) return;
    windowPeak = Math.max(windowPeak, memory.rssMb);
    peak = Math.max(peak, memory.peakMb, memory.rssMb);
  };
  const sampler = setInterval(sample, 100);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.args.join(' ')} did not start within ${options.timeoutMs ?? 60_000} ms:\n${output}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      keep(chunk);
      const match = options.ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', keep);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${options.args.join(' ')} exited with ${code} before it was ready:\n${output}`));
    });
  });

  if (options.healthz) await untilHealthy(url, options.timeoutMs ?? 60_000);
  const startupMs = performance.now() - spawnedAt;
  const pid = child.pid!;
  const startupRssMb = memoryOf(pid)?.rssMb ?? Number.NaN;
  return {
    pid,
    url,
    startupMs,
    startupRssMb,
    windowPeakMb: () => (sample(), windowPeak),
    resetWindow: () => {
      windowPeak = 0;
      sample();
    },
    peakMb: () => (sample(), peak),
    async waitIdle(maxMs = 60_000) {
      const until = Date.now() + maxMs;
      let before = cpuTicks(pid);
      while (before !== null) {
        await sleep(250);
        const after = cpuTicks(pid);
        if (after === null || after - before <= 2) return true;
        if (Date.now() >= until) return false;
        before = after;
      }
      return true;
    },
    output: () => output,
    async stop() {
      sample();
      clearInterval(sampler);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
      }
    },
    async kill() {
      sample();
      clearInterval(sampler);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/**
 * The service as `npm start` runs it (`node <config.node_flags> dist/cli.js serve` with MALLOC_ARENA_MAX, request log
 * lines included), with the response cache on or off. Needs `buildServer()` first.
 */
export function startService(
  databaseUrl: string,
  siteUrl: string,
  setting: { responseCache: boolean; workers: number },
): Promise<ChildServer> {
  const { nodeFlags, env } = startScriptSettings();
  return startChild({
    args: [COMPILED_CLI, 'serve'],
    nodeFlags,
    env: {
      ...env,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      SITE_URL: siteUrl,
      WORKERS: String(setting.workers),
      RESPONSE_CACHE_MB: setting.responseCache ? (process.env.BENCH_RESPONSE_CACHE_MB ?? '32') : '0',
    },
    ready: /REST: (http:\/\/[^/\s]+)\//,
    healthz: true,
  });
}

export function startFloorProcess(databaseUrl: string, siteUrl: string): Promise<ChildServer> {
  return startChild({
    args: ['bench/floor.ts'],
    env: { DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', SITE_URL: siteUrl },
    ready: /Floor server on (http:\/\/\S+)/,
  });
}

/** The static floor (bench/static-floor.ts) answering every GET with the bytes of `bodyFile`. */
export function startStaticFloorProcess(bodyFile: string): Promise<ChildServer> {
  return startChild({
    args: ['bench/static-floor.ts'],
    env: { STATIC_BODY_FILE: bodyFile, PORT: '0', HOST: '127.0.0.1' },
    ready: /Static floor server on (http:\/\/\S+)/,
  });
}
