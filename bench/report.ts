/** The benchmark's results: the targets of the performance issue, judged, and the tables of bench/results.md. */
import type { LoadResult } from './load.js';

export interface RunResult extends LoadResult {
  scenario: string;
  title: string;
  api: 'REST' | 'GraphQL';
  concurrency: number;
  /** Throughput over the floor's at the same size and concurrency. */
  ratioToFloor: number | null;
  /** Highest resident memory of the server sampled during the run (warm-up included), MB. */
  peakRssMb: number;
}

export interface SizeResult {
  events: number;
  data: {
    venues: number;
    organizers: number;
    categories: number;
    tags: number;
    media: number;
    generateSeconds: number;
    databaseMb: number;
    filter: string;
  };
  /** SQL statements per request, by scenario (one request, counted in process). */
  queries: Record<string, number>;
  /** Statements the floor sends per list request (fixed by its code). */
  floorQueries: number;
  /** The floor answered the same bytes as the service for these lists. */
  byteCheck: Array<{ path: string; bytes: number; identical: boolean }>;
  /** restarts: times a server was replaced because it was still busy with what a run cut off (see bench/run.ts). */
  /** startupSeconds: spawn to the first 200 from /healthz; startupRssMb: resident memory then, before any other request. */
  server: { startupSeconds: number; startupRssMb: number; peakRssMb: number; restarts: number };
  floor: { peakRssMb: number; runs: RunResult[]; restarts: number };
  runs: RunResult[];
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  autocannon: string;
}

export interface Target {
  id: string;
  description: string;
  measured: string;
  goal: string;
  /** null: not measured in this run (a size left out). */
  pass: boolean | null;
}

export interface Results {
  date: string;
  command: string;
  machine: Machine;
  settings: { durationSeconds: number; warmupSeconds: number; concurrency: number[]; sizes: number[] };
  totalSeconds: number;
  /** What else ran: CPU share other processes used just before the run, and the 1-minute load average around it. */
  background: { cpuBusyBefore: number; loadAverageBefore: number; loadAverageAfter: number };
  sizes: SizeResult[];
  targets: Target[];
}

const find = (size: SizeResult | undefined, scenario: string, concurrency: number) =>
  size?.runs.find((run) => run.scenario === scenario && run.concurrency === concurrency);

const pct = (ratio: number | null | undefined) => (ratio == null || !Number.isFinite(ratio) ? '–' : `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`);
const ms = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '–' : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const rps = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '–' : value >= 100 ? value.toFixed(0) : value.toFixed(1));
const int = (value: number) => value.toLocaleString('en-US');

/** The issue's targets, judged on this run. Sizes: the smallest run stands for 1,000 events, the largest for 100,000. */
export function judge(sizes: SizeResult[], concurrency: number[]): Target[] {
  const small = sizes.find((size) => size.events === 1000) ?? sizes[0];
  const largest = sizes.reduce<SizeResult | undefined>((top, size) => (!top || size.events > top.events ? size : top), undefined);
  const large = sizes.find((size) => size.events === 100_000) ?? (largest && small && largest.events > small.events ? largest : undefined);
  const high = Math.max(...concurrency);
  const low = Math.min(...concurrency);
  const smallName = small ? `${int(small.events)} events` : '';
  const targets: Target[] = [];

  const list = find(small, 'rest-list-10', high);
  targets.push({
    id: 'list-throughput',
    description: `REST events list, per_page 10, all relations, ${smallName}, concurrency ${high}: throughput vs floor`,
    measured: list ? `${pct(list.ratioToFloor)} (${rps(list.rps)} vs ${rps(list.rps / (list.ratioToFloor ?? Number.NaN))} req/s)` : '–',
    goal: '≥ 25%',
    pass: list?.ratioToFloor == null ? null : list.ratioToFloor >= 0.25,
  });
  targets.push({
    id: 'list-p99',
    description: `REST events list, per_page 10, all relations, ${smallName}, concurrency ${high}: p99`,
    measured: list ? `${ms(list.p99)} ms` : '–',
    goal: '< 25 ms',
    pass: list ? list.p99 < 25 : null,
  });
  const single = find(small, 'rest-event-id', high);
  targets.push({
    id: 'single-throughput',
    description: `REST single event by ID, ${smallName}, concurrency ${high}: throughput vs floor`,
    measured: single ? `${pct(single.ratioToFloor)} (${rps(single.rps)} req/s)` : '–',
    goal: '≥ 35%',
    pass: single?.ratioToFloor == null ? null : single.ratioToFloor >= 0.35,
  });
  const cached = find(small, 'rest-list-10-cached', high);
  targets.push({
    id: 'cached-throughput',
    description: `REST events list, per_page 10, anonymous repeated reads with the response cache, ${smallName}, concurrency ${high}: throughput vs floor`,
    measured: cached ? `${pct(cached.ratioToFloor)} (${rps(cached.rps)} req/s)` : '–',
    goal: '≥ 80%',
    pass: cached?.ratioToFloor == null ? null : cached.ratioToFloor >= 0.8,
  });
  for (const [id, scenario, label] of [
    ['growth-list', 'rest-list-10', 'default list'],
    ['growth-filtered', 'rest-filtered', 'filtered list'],
  ] as const) {
    const before = find(small, scenario, low);
    const after = find(large, scenario, low);
    const growth = before && after ? after.p50 / before.p50 : null;
    targets.push({
      id,
      description: `Growth ${small ? int(small.events) : '?'} → ${large ? int(large.events) : '?'} events, REST ${label}, p50 at concurrency ${low}`,
      measured: growth === null ? '–' : `${growth.toFixed(1)}× (${ms(before!.p50)} → ${ms(after!.p50)} ms)`,
      goal: '≤ 2×',
      pass: growth === null ? null : growth <= 2,
    });
  }
  const pairs: Array<[string, string]> = [
    ['rest-list-10', 'rest-list-50'],
    ['gql-list-10', 'gql-list-50'],
  ];
  const counted = sizes.flatMap((size) => pairs.map(([a, b]) => [size.queries[a], size.queries[b]] as const));
  const independent = counted.length > 0 && counted.every(([a, b]) => a !== undefined && a === b);
  const sameAcrossSizes = sizes.every((size) => Object.entries(size.queries).every(([id, count]) => sizes[0]!.queries[id] === count));
  const maximum = Math.max(...sizes.flatMap((size) => Object.values(size.queries)));
  targets.push({
    id: 'queries',
    description: 'SQL statements per request bounded, independent of page size (10 vs 50) and of data size',
    measured: counted.length
      ? `list 10 / 50: REST ${small?.queries['rest-list-10']} / ${small?.queries['rest-list-50']}, GraphQL ${small?.queries['gql-list-10']} / ${small?.queries['gql-list-50']}; ${sameAcrossSizes ? 'same' : 'different'} at every size; at most ${maximum}`
      : '–',
    goal: 'equal',
    pass: counted.length ? independent && sameAcrossSizes : null,
  });
  targets.push({
    id: 'rss',
    description: `Server peak RSS under load, ${large ? int(large.events) : '100,000'} events`,
    measured: large ? `${large.server.peakRssMb.toFixed(0)} MB` : '–',
    goal: '< 200 MB',
    pass: large ? large.server.peakRssMb < 200 : null,
  });
  const all = sizes.flatMap((size) => [...size.runs, ...size.floor.runs]);
  const failures = all.reduce((sum, run) => sum + run.errors + run.non2xx, 0);
  targets.push({
    id: 'errors',
    description: 'Errors, timeouts and non-2xx responses, every run',
    measured: `${failures}`,
    goal: '0',
    pass: all.length ? failures === 0 : null,
  });
  const identical = sizes.every((size) => size.byteCheck.every((check) => check.identical));
  targets.push({
    id: 'floor-bytes',
    description: 'Floor answers the same bytes as the service (events list, per_page 10 and 50)',
    measured: identical ? 'identical' : 'different',
    goal: 'identical',
    pass: sizes.length ? identical : null,
  });
  return targets;
}

const verdict = (pass: boolean | null) => (pass === null ? 'n/a' : pass ? '**pass**' : '**miss**');

export function machineLine(machine: Machine): string {
  return `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM, ${machine.os}, Node ${machine.node}`;
}

/** The tables (targets, then one per data size), without a title: results.md and README quote this. */
export function resultTables(results: Results): string {
  const lines: string[] = [];
  const { settings } = results;
  lines.push(
    `Run ${results.date} on ${machineLine(results.machine)}; load from autocannon ${results.machine.autocannon} on the same machine. ` +
      `Each run: ${settings.warmupSeconds} s warm-up, then ${settings.durationSeconds} s measured, at concurrency ${settings.concurrency.join(' and ')}; ` +
      `whole benchmark ${Math.round(results.totalSeconds)} s. Other processes kept the CPUs ${Math.round(results.background.cpuBusyBefore * 100)}% busy just before ` +
      `the run (1-minute load average ${results.background.loadAverageBefore.toFixed(2)} before, ${results.background.loadAverageAfter.toFixed(2)} after, the benchmark's own processes included).`,
    '',
    '| target | measured | goal | result |',
    '|---|---|---|---|',
    ...results.targets.map((target) => `| ${target.description} | ${target.measured} | ${target.goal} | ${verdict(target.pass)} |`),
  );
  const small = results.sizes[0];
  const high = Math.max(...settings.concurrency);
  const floorHigh = small?.floor.runs.find((run) => run.concurrency === high);
  if (floorHigh && high > 1) {
    lines.push(
      '',
      `With ${high} connections kept busy, the mean latency is about ${high} ÷ throughput (Little's law): a p99 under 25 ms needs ` +
        `more than ${int(Math.ceil(high / 0.025))} responses per second; the floor answers ${rps(floorHigh.rps)} on this machine ` +
        `(${int(small.events)} events).`,
    );
  }
  for (const size of results.sizes) {
    const [low, high] = [Math.min(...settings.concurrency), Math.max(...settings.concurrency)];
    const both = settings.concurrency.length > 1;
    lines.push(
      '',
      `**${int(size.events)} events** (${int(size.data.venues)} venues, ${int(size.data.organizers)} organizers, ${size.data.categories} categories, ` +
        `${size.data.tags} tags, ${int(size.data.media)} images; ${size.data.databaseMb.toFixed(1)} MB, generated in ${size.data.generateSeconds.toFixed(1)} s). ` +
        `Server (compiled, as \`npm start\` runs it) started in ${size.server.startupSeconds.toFixed(2)} s to a healthy \`/healthz\`, RSS ${(size.server.startupRssMb ?? Number.NaN).toFixed(0)} MB then; ` +
        `peak RSS ${size.server.peakRssMb.toFixed(0)} MB under load, floor ${size.floor.peakRssMb.toFixed(0)} MB` +
        `${size.server.restarts + size.floor.restarts ? ` (restarted ${size.server.restarts + size.floor.restarts}× to drop requests a run cut off)` : ''}. Filter: \`${size.data.filter}\`.`,
      '',
    );
    const head = (c: number) => [`c${c} req/s`, `c${c} p50 ms`, `c${c} p99 ms`, `c${c} vs floor`];
    lines.push(
      `| scenario | SQL/req | ${[...head(low), ...(both ? head(high) : [])].join(' | ')} | errors |`,
      `|---|--:|${[...head(low), ...(both ? head(high) : [])].map(() => '--:').join('|')}|--:|`,
    );
    let censored = false;
    const row = (title: string, queries: number | undefined, runs: RunResult[]) => {
      const cells = (c: number) => {
        const run = runs.find((r) => r.concurrency === c);
        if (!run) return ['–', '–', '–', '–'];
        // Fewer responses than two per connection: only the requests that finished in the window have a latency.
        const few = run.requests < 2 * run.concurrency && run.concurrency > 1;
        censored ||= few;
        return [rps(run.rps), `${ms(run.p50)}${few ? '*' : ''}`, `${ms(run.p99)}${few ? '*' : ''}`, pct(run.ratioToFloor)];
      };
      const errors = runs.reduce((sum, run) => sum + run.errors + run.non2xx, 0);
      return `| ${title} | ${queries ?? '–'} | ${[...cells(low), ...(both ? cells(high) : [])].join(' | ')} | ${errors} |`;
    };
    lines.push(row('Floor: events list, per_page 10', size.floorQueries, size.floor.runs));
    const ids = [...new Set(size.runs.map((run) => run.scenario))];
    for (const id of ids) {
      const runs = size.runs.filter((run) => run.scenario === id);
      lines.push(row(runs[0]!.title, size.queries[id], runs));
    }
    if (censored) {
      lines.push(
        '',
        '\\* Fewer responses than two per connection in the measured window: the percentiles cover only the requests that ' +
          'finished in it and understate the latency a client sees (by Little\'s law the mean is about connections ÷ throughput).',
      );
    }
  }
  return lines.join('\n');
}

export function resultsMarkdown(results: Results): string {
  return [
    '# Benchmark results',
    '',
    `Written by \`${results.command}\` (bench/run.ts); numbers in bench/results.json. Throughput is responses per second; ` +
      '"vs floor" divides it by the floor\'s (a minimal node:http server with hand-written SQL answering the same events-list bytes, bench/floor.ts) ' +
      'at the same data size and concurrency. SQL/req: statements the database received for one request, counted in process.',
    '',
    resultTables(results),
    '',
  ].join('\n');
}
