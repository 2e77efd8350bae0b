/**
 * Where the time of one uncached request goes, per scenario: the app runs in this process from its sources (so each
 * sample names its package), each scenario's requests are answered for a while to warm up, then for PROFILE_SECONDS
 * under V8's sampling profiler (node:inspector), and the samples' self time is summed by where the code lives. Run
 * by the harness as a child process, as bench/query-counts.ts is; prints one JSON object `{ scenarioId: Profile }`.
 *
 *   DATABASE_URL=file:bench.db SITE_URL=http://calendar.bench NODE_ENV=production npx tsx bench/profile.ts <scenarios.json>
 */
import { Session } from 'node:inspector/promises';
import { createApp } from '../src/server.js';
import { answer, inProcessConfig, scenariosOfArgument } from './in-process.js';

export interface ScenarioProfile {
  /** Requests answered while profiling, and the mean time of one. */
  requests: number;
  msPerRequest: number;
  /** Share of the profiled time by where the code lives (see `placeOf`), largest first; the rest as `other`. */
  shares: Array<{ place: string; share: number }>;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

const PROFILE_SECONDS = Number(process.env.PROFILE_SECONDS ?? 2);
const WARMUP_SECONDS = 1;
/** Places below this share are summed into `other`. */
const SHOWN_SHARE = 0.02;

export const SQLITE_PLACE = 'SQLite (better-sqlite3 via src/db/sqlite-adapter.ts)';

/**
 * Where a sampled function lives: V8's own work (garbage collection, promise jobs), an npm package, a folder of src/
 * (SQLite's statements count in src/db/sqlite-adapter.ts, which runs them), or Node's internals. `null` for a builtin
 * without a script (JSON.stringify, better-sqlite3's native `all`): it counts where it was called from.
 */
export function placeOf(frame: ProfileNode['callFrame']): string | null {
  if (frame.functionName === '(garbage collector)') return 'garbage collection';
  if (frame.functionName === '(program)' || frame.functionName === '(idle)') return 'V8 and waiting';
  if (frame.functionName === 'runMicrotasks') return 'promise jobs';
  if (!frame.url) return null;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(frame.url);
  if (pkg) return pkg[1] === 'better-sqlite3' ? SQLITE_PLACE : pkg[1]!;
  if (frame.url.endsWith('src/db/sqlite-adapter.ts')) return SQLITE_PLACE;
  const source = /\/src\/([^/]+)(\/|\.ts$)/.exec(frame.url);
  if (source) return `src/${source[1]}${source[2] === '/' ? '/' : '.ts'}`;
  return 'Node.js (HTTP objects, streams, buffers)';
}

/** Each node's place: its own, or its caller's for a builtin. */
function placesOf(nodes: ProfileNode[]): Map<number, string> {
  const parents = new Map<number, number>();
  for (const node of nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const places = new Map<number, string>();
  const place = (id: number): string => {
    const known = places.get(id);
    if (known) return known;
    const node = byId.get(id)!;
    const parent = parents.get(id);
    const found = placeOf(node.callFrame) ?? (parent === undefined ? 'V8 and waiting' : place(parent));
    places.set(id, found);
    return found;
  };
  for (const node of nodes) place(node.id);
  return places;
}

function summarise(profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }) {
  const places = placesOf(profile.nodes);
  const time = new Map<string, number>();
  let total = 0;
  (profile.samples ?? []).forEach((id, index) => {
    // The first sample's delta is the time from Profiler.start, the session's own work.
    const delta = index === 0 ? 0 : (profile.timeDeltas?.[index] ?? 0);
    const place = places.get(id)!;
    time.set(place, (time.get(place) ?? 0) + delta);
    total += delta;
  });
  const sorted = [...time]
    .map(([place, micros]) => ({ place, share: micros / total }))
    .sort((a, b) => b.share - a.share);
  const shown = sorted.filter((entry) => entry.share >= SHOWN_SHARE);
  const other = sorted.filter((entry) => entry.share < SHOWN_SHARE).reduce((sum, entry) => sum + entry.share, 0);
  return other > 0 ? [...shown, { place: 'other', share: other }] : shown;
}

async function main() {
  const scenarios = scenariosOfArgument();
  const app = await createApp(inProcessConfig());
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // 100 µs between samples (V8's default is 1 ms): a few thousand samples per scenario.
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const profiles: Record<string, ScenarioProfile> = {};
  try {
    for (const scenario of scenarios) {
      let turn = 0;
      const answerNext = () => answer(app, scenario, scenario.requests[turn++ % scenario.requests.length]!);
      const answerFor = async (seconds: number) => {
        const until = performance.now() + seconds * 1000;
        let count = 0;
        for (; performance.now() < until; count++) await answerNext();
        return count;
      };
      await answerFor(WARMUP_SECONDS);
      await session.post('Profiler.start');
      const started = performance.now();
      const requests = await answerFor(PROFILE_SECONDS);
      const elapsed = performance.now() - started;
      const { profile } = await session.post('Profiler.stop');
      profiles[scenario.id] = { requests, msPerRequest: elapsed / requests, shares: summarise(profile) };
    }
  } finally {
    session.disconnect();
    await app.close();
  }
  process.stdout.write(`${JSON.stringify(profiles)}\n`);
}

if (process.argv[1]?.endsWith('profile.ts')) await main();
