/** The benchmark's results: the targets of the performance issue, judged, and the tables of bench/results.md. */
import type { LoadResult } from './load.js';
import type { ScenarioProfile } from './profile.js';

export interface RunResult extends LoadResult {
  scenario: string;
  title: string;
  api: 'REST' | 'GraphQL';
  concurrency: number;
  /** Throughput over the floor's (bench/floor.ts) at the same size and concurrency. */
  ratioToFloor: number | null;
  /** Throughput over the static floor's (bench/static-floor.ts) at the same size and concurrency. */
  ratioToStatic: number | null;
  /** Highest resident memory of the server sampled during the run (warm-up included), MB. */
  peakRssMb: number;
}

export interface FloorResult {
  peakRssMb: number;
  runs: RunResult[];
  restarts: number;
}

/** POSTGRES_SCENARIOS (bench/run.ts) on a PostgreSQL copy of a data set (bench/postgres.ts). */
export interface PostgresResult {
  /** Seconds to copy the SQLite data set into PostgreSQL. */
  copySeconds: number;
  /** SQL statements per request, by scenario, on PostgreSQL. */
  queries: Record<string, number>;
  peakRssMb: number;
  restarts: number;
  /** sqliteRps: the same scenario on SQLite in the run just before; ratioToSqlite: the throughput over that. */
  runs: Array<RunResult & { sqliteRps: number; ratioToSqlite: number | null }>;
}

export interface SizeResult {
  events: number;
  /** `seed`: the `npm run seed` demo calendar; `generated`: bench/generate.ts; `series`: generated with recurring series. */
  source: 'seed' | 'generated' | 'series';
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
  /** SQL statements per request, by scenario (the most of its first five requests, counted in process). */
  queries: Record<string, number>;
  /** Where one uncached request's time goes, by scenario (bench/profile.ts); empty when not profiled. */
  profiles: Record<string, ScenarioProfile>;
  /** Statements the floor sends per list request (fixed by its code). */
  floorQueries: number;
  /** The floor answered the service's content for these lists: the same bytes (identical) or the same JSON. */
  byteCheck: Array<{ path: string; bytes: number; identical: boolean }>;
  /** restarts: times a server was replaced because it was still busy with what a run cut off (see bench/run.ts). */
  /** startupSeconds: spawn to the first 200 from /healthz; startupRssMb: resident memory then, before any other request. */
  /** peakRssMb: the highest of one server process over the runs (with or without its cache); null when none ran. */
  server: { startupSeconds: number; startupRssMb: number; peakRssMb: number | null; restarts: number };
  floor: FloorResult;
  staticFloor: FloorResult;
  runs: RunResult[];
  /** Null when the run measured SQLite only (BENCH_ENGINES). */
  postgres: PostgresResult | null;
  /** Scenarios that could not run (no ETag for a conditional one) or got an unexpected status. */
  failed: Array<{ scenario: string; title: string; reason: string }>;
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
  settings: {
    durationSeconds: number;
    warmupSeconds: number;
    concurrency: number[];
    sizes: Array<number | 'seed' | 'series'>;
  };
  totalSeconds: number;
  /** What else ran: CPU share other processes used just before the run, and the 1-minute load average around it. */
  background: { cpuBusyBefore: number; loadAverageBefore: number; loadAverageAfter: number };
  sizes: SizeResult[];
  targets: Target[];
}

const find = (size: SizeResult | undefined, scenario: string, concurrency: number) =>
  size?.runs.find((run) => run.scenario === scenario && run.concurrency === concurrency);

const pct = (ratio: number | null | undefined) =>
  ratio == null || !Number.isFinite(ratio) ? '–' : `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`;
const ms = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value)
    ? '–'
    : value >= 100
      ? value.toFixed(0)
      : value >= 10
        ? value.toFixed(1)
        : value.toFixed(2);
const rps = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value) ? '–' : value >= 100 ? value.toFixed(0) : value.toFixed(1);
const int = (value: number) => value.toLocaleString('en-US');

/** The uncached REST list before issue 13 (2-core machine, 1,000 events): what "4×" multiplies. */
export const PREVIOUS_LIST_RPS: Record<'low' | 'high', number> = { low: 70, high: 85 };

const sizeName = (size: SizeResult) =>
  size.source === 'seed'
    ? `seed data (${int(size.events)} events)`
    : size.source === 'series'
      ? `recurring series (${int(size.events)} events, occurrences included)`
      : `${int(size.events)} events`;

/**
 * Issue 27: realistic traffic (bench/realistic.ts) against the single-URL cached list of the same run, read-only and
 * with 1 write/s, and GraphQL POST reads against REST's.
 */
function realisticTargets(size: SizeResult, name: string, high: number, single: RunResult | undefined): Target[] {
  const ratio = (run: RunResult | undefined) => (run && single ? run.rps / single.rps : null);
  const versus = (run: RunResult | undefined) =>
    run && single
      ? `${pct(ratio(run))} (${rps(run.rps)} vs ${rps(single.rps)} req/s${medianOf(run, single)}), p99 ${ms(run.p99)} ms`
      : '–';
  const read = find(size, 'realistic-read', high);
  const write = find(size, 'realistic-write', high);
  const graphqlPost = find(size, 'gql-list-10-cached', high);
  const judged = (run: RunResult | undefined, goal: number) => (ratio(run) === null ? null : ratio(run)! >= goal);
  return [
    {
      id: 'realistic-read',
      description: `Realistic traffic (Zipf over ≥ 500 distinct REST URLs and GraphQL POSTs), read-only, ${name}, c${high}: throughput vs the single-URL cached list`,
      measured: versus(read),
      goal: '≥ 50%',
      pass: judged(read, 0.5),
    },
    {
      id: 'realistic-read-p99',
      description: `Realistic traffic, read-only, ${name}, c${high}: p99`,
      measured: read ? `${ms(read.p99)} ms` : '–',
      goal: '< 25 ms',
      pass: read ? read.p99 < 25 : null,
    },
    {
      id: 'realistic-write',
      description: `Realistic traffic with 1 write/s, ${name}, c${high}: throughput vs the single-URL cached list`,
      measured: versus(write),
      goal: '≥ 30%',
      pass: judged(write, 0.3),
    },
    {
      id: 'graphql-post-cached',
      description: `Cached GraphQL POST (events, first 10), ${name}, c${high}: throughput vs the cached REST list`,
      measured: versus(graphqlPost),
      goal: '≥ 90%',
      pass: judged(graphqlPost, 0.9),
    },
  ];
}

/** Says that both figures are medians of runs in alternation (bench/run.ts, PAIRED_SCENARIOS), when they are. */
const medianOf = (run: RunResult, other: RunResult) =>
  run.samples && other.samples ? `, medians of ${run.samples.length} runs each in alternation` : '';

/**
 * Issue 28: the cost of one uncached request. The REST events list against the floor answering the same page size
 * (bench/floor.ts), its statements per page, and the GraphQL month view's p50 on the demo data.
 */
function uncachedTargets(size: SizeResult, name: string, concurrencies: number[]): Target[] {
  const targets: Target[] = [];
  for (const [id, goal] of [
    ['rest-list-10', 0.4],
    ['rest-list-50', 0.25],
  ] as const) {
    for (const c of concurrencies) {
      const run = find(size, id, c);
      targets.push({
        id: `${id}-vs-floor`,
        description: `${run?.title ?? id}, uncached, ${name}, c${c}: throughput vs the floor answering the same page`,
        measured: run ? `${pct(run.ratioToFloor)} (${rps(run.rps)} req/s)` : '–',
        goal: `≥ ${pct(goal)}`,
        pass: run?.ratioToFloor == null ? null : run.ratioToFloor >= goal,
      });
    }
    const statements = size.queries[id];
    targets.push({
      id: `${id}-statements`,
      description: `${id}, ${name}: SQL statements per request`,
      measured: statements === undefined ? '–' : String(statements),
      goal: '≤ 6',
      pass: statements === undefined ? null : statements <= 6,
    });
  }
  if (size.source === 'seed') {
    const month = find(size, 'gql-month-view', Math.min(...concurrencies));
    targets.push({
      id: 'gql-month-view-p50',
      description: `${month?.title ?? 'GraphQL month view'}, ${name}, c${Math.min(...concurrencies)}: p50`,
      measured: month ? `${ms(month.p50)} ms (${rps(month.rps)} req/s)` : '–',
      goal: '≤ 15 ms',
      pass: month ? month.p50 <= 15 : null,
    });
  }
  return targets;
}

/** Issue 28: the uncached lists on PostgreSQL within 1.5× of SQLite (throughput at least 1/1.5 of SQLite's). */
function postgresTargets(size: SizeResult, name: string): Target[] {
  return (size.postgres?.runs ?? [])
    .filter((run) => run.scenario.startsWith('rest-list-'))
    .map((run) => ({
      id: `${run.scenario}-postgres`,
      description: `${run.title}, uncached, ${name}, c${run.concurrency}: PostgreSQL throughput vs SQLite (runs back to back)`,
      measured: `${pct(run.ratioToSqlite)} (${rps(run.rps)} vs ${rps(run.sqliteRps)} req/s)`,
      goal: `≥ ${pct(1 / 1.5)}`,
      pass: run.ratioToSqlite === null ? null : run.ratioToSqlite >= 1 / 1.5,
    }));
}

/** The scenario listing a two-year window: on the `series` data it holds 100,000 occurrences. */
export const WINDOW_SCENARIO = 'rest-list-window';

/**
 * Issue 15: a list over a window of 100,000 occurrences against the same list on the largest data set without series
 * (p50 at the lowest concurrency), and its statements per request.
 */
function seriesTargets(sizes: SizeResult[], low: number): Target[] {
  const series = sizes.find((size) => size.source === 'series');
  const plain = sizes.filter((size) => size.source === 'generated').sort((a, b) => b.events - a.events)[0];
  const withSeries = find(series, WINDOW_SCENARIO, low);
  const without = find(plain, WINDOW_SCENARIO, low);
  const ratio = withSeries && without ? withSeries.p50 / without.p50 : null;
  const statements = series?.queries[WINDOW_SCENARIO];
  const plainStatements = plain?.queries[WINDOW_SCENARIO];
  const versus = plain ? `the list without series (${int(plain.events)} events)` : 'a list without series';
  return [
    {
      id: 'series-p50',
      description: `Recurring series: list of a window holding 100,000 occurrences, p50 at c${low}, against ${versus}`,
      measured: ratio === null ? '–' : `${ms(withSeries!.p50)} ms vs ${ms(without!.p50)} ms (${ratio.toFixed(2)}×)`,
      goal: '≤ 2×',
      pass: ratio === null ? null : ratio <= 2,
    },
    {
      id: 'series-queries',
      description:
        'Recurring series: SQL statements per request of that list bounded (at most one more than without series: the materialisation check)',
      measured: statements === undefined || plainStatements === undefined ? '–' : `${statements} vs ${plainStatements}`,
      goal: `≤ ${plainStatements === undefined ? '–' : plainStatements + 1}`,
      pass: statements === undefined || plainStatements === undefined ? null : statements <= plainStatements + 1,
    },
  ];
}

/** The targets of issue 13, judged on this run, at every data size measured. */
export function judge(sizes: SizeResult[], concurrency: number[]): Target[] {
  const high = Math.max(...concurrency);
  const low = Math.min(...concurrency);
  const targets: Target[] = [];
  const none = (id: string, description: string, goal: string) =>
    targets.push({ id, description, measured: '–', goal, pass: null });

  for (const size of sizes) {
    const name = sizeName(size);
    for (const [which, c] of [
      ['low', low],
      ['high', high],
    ] as const) {
      const list = find(size, 'rest-list-10', c);
      const goal = 4 * PREVIOUS_LIST_RPS[which];
      const description = `Uncached REST events list, per_page 10, ${name}, c${c}: 4× the previous ${PREVIOUS_LIST_RPS[which]} req/s`;
      if (!list) none(`list-${which}`, description, `≥ ${goal} req/s`);
      else
        targets.push({
          id: `list-${which}`,
          description,
          measured: `${rps(list.rps)} req/s (${pct(list.ratioToFloor)} of floor)`,
          goal: `≥ ${goal} req/s`,
          pass: list.rps >= goal,
        });
    }
    const list = find(size, 'rest-list-10', high);
    targets.push({
      id: 'list-tail',
      description: `Uncached REST events list, per_page 10, ${name}, c${high}: p99 against p50`,
      measured: list ? `${ms(list.p99)} ms vs ${ms(list.p50)} ms (${(list.p99 / list.p50).toFixed(1)}×)` : '–',
      goal: '≤ 10×',
      pass: list ? list.p99 <= 10 * list.p50 : null,
    });
    const cached = find(size, 'rest-list-10-cached', high);
    targets.push({
      id: 'cached-throughput',
      description: `Cached anonymous REST events list, ${name}, c${high}: throughput vs static floor`,
      measured: cached ? `${pct(cached.ratioToStatic)} (${rps(cached.rps)} req/s)` : '–',
      goal: '≥ 30%',
      pass: cached?.ratioToStatic == null ? null : cached.ratioToStatic >= 0.3,
    });
    targets.push({
      id: 'cached-p99',
      description: `Cached anonymous REST events list, ${name}, c${high}: p99`,
      measured: cached ? `${ms(cached.p99)} ms` : '–',
      goal: '< 25 ms',
      pass: cached ? cached.p99 < 25 : null,
    });
    targets.push(...realisticTargets(size, name, high, cached));
    targets.push(...uncachedTargets(size, name, [low, high]));
    targets.push(...postgresTargets(size, name));
    for (const id of ['rest-list-10-basic', 'rest-list-10-bearer']) {
      const signed = find(size, id, high);
      const anonymous = find(size, 'rest-list-10', high);
      const ratio = signed && anonymous && anonymous.rps > 0 ? signed.rps / anonymous.rps : null;
      targets.push({
        id: `auth-${id.slice('rest-list-10-'.length)}`,
        description: `${signed?.title ?? id}, ${name}, c${high}: throughput vs anonymous (same URL, uncached)`,
        measured: ratio === null ? '–' : `${pct(ratio)} (${rps(signed!.rps)} vs ${rps(anonymous!.rps)} req/s)`,
        goal: '≥ 50%',
        pass: ratio === null ? null : ratio >= 0.5,
      });
    }
    const serviceBest = Math.max(
      ...size.runs.filter((run) => run.scenario === 'rest-list-10').map((run) => run.ratioToFloor ?? 0),
    );
    targets.push({
      id: 'floor-lower-bound',
      description: `Floor is a lower bound, ${name}: uncached service list at most as fast as the floor`,
      measured: Number.isFinite(serviceBest) && serviceBest > 0 ? `service at most ${pct(serviceBest)} of floor` : '–',
      goal: '≤ 100%',
      pass: Number.isFinite(serviceBest) && serviceBest > 0 ? serviceBest <= 1 : null,
    });
  }

  const large = sizes.find((size) => size.events === 100_000);
  targets.push({
    id: 'rss',
    description: 'Server peak RSS under load, 100,000 events',
    measured: large?.server.peakRssMb != null ? `${large.server.peakRssMb.toFixed(0)} MB` : '–',
    goal: '< 200 MB',
    pass: large?.server.peakRssMb != null ? large.server.peakRssMb < 200 : null,
  });
  const pairs: Array<[string, string]> = [
    ['rest-list-10', 'rest-list-50'],
    ['gql-list-10', 'gql-list-50'],
  ];
  const counts = sizes.flatMap((size) => (size.postgres ? [size.queries, size.postgres.queries] : [size.queries]));
  const counted = counts
    .flatMap((queries) => pairs.map(([a, b]) => [queries[a], queries[b]] as const))
    .filter(([a, b]) => a !== undefined || b !== undefined);
  const independent = counted.length > 0 && counted.every(([a, b]) => a !== undefined && a === b);
  const generated = sizes.filter((size) => size.source === 'generated');
  const sameAcrossSizes = generated.every((size) =>
    Object.entries(size.queries).every(([id, count]) => generated[0]!.queries[id] === count),
  );
  const maximum = Math.max(...counts.flatMap((queries) => Object.values(queries)));
  targets.push({
    id: 'queries',
    description:
      'SQL statements per request bounded, independent of page size (10 vs 50, on each engine) and of data size',
    measured: counted.length
      ? `${independent ? 'equal' : 'different'} for 10 and 50; ${sameAcrossSizes ? 'same' : 'different'} at every generated size; at most ${maximum}`
      : '–',
    goal: 'equal',
    pass: counted.length ? independent && sameAcrossSizes : null,
  });
  const all = sizes.flatMap((size) => [
    ...size.runs,
    ...size.floor.runs,
    ...size.staticFloor.runs,
    ...(size.postgres?.runs ?? []),
  ]);
  const failures =
    all.reduce((sum, run) => sum + run.errors + run.unexpected, 0) +
    sizes.reduce((sum, size) => sum + size.failed.length, 0);
  targets.push({
    id: 'errors',
    description: 'Errors, timeouts, unexpected statuses and scenarios that could not run, every run',
    measured: `${failures}`,
    goal: '0',
    pass: sizes.length ? failures === 0 : null,
  });
  targets.push(...seriesTargets(sizes, low));
  const identical = sizes.every((size) => size.byteCheck.every((check) => check.identical));
  targets.push({
    id: 'floor-bytes',
    description: 'Floor answers the same bytes as the service (events list, per_page 10 and 50)',
    measured: identical ? 'identical' : 'same JSON, different bytes',
    goal: 'identical',
    pass: sizes.length ? identical : null,
  });
  return targets;
}

const verdict = (pass: boolean | null) => (pass === null ? 'n/a' : pass ? '**pass**' : '**miss**');

export function machineLine(machine: Machine): string {
  return `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM, ${machine.os}, Node ${machine.node}`;
}

/** The tables (targets, then one per data size), without a title: results.md and docs/performance.md quote this. */
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
    ...results.targets.map(
      (target) => `| ${target.description} | ${target.measured} | ${target.goal} | ${verdict(target.pass)} |`,
    ),
  );
  const [low, high] = [Math.min(...settings.concurrency), Math.max(...settings.concurrency)];
  const both = settings.concurrency.length > 1;
  for (const size of results.sizes) {
    const restarts = size.server.restarts + size.floor.restarts + size.staticFloor.restarts;
    lines.push(
      '',
      `**${size.source === 'seed' ? `\`npm run seed\` demo data, ${int(size.events)} events` : sizeName(size)}** (${int(size.data.venues)} venues, ` +
        `${int(size.data.organizers)} organizers, ${size.data.categories} categories, ${size.data.tags} tags, ${int(size.data.media)} images; ` +
        `${size.data.databaseMb.toFixed(1)} MB, ${size.source === 'seed' ? 'seeded' : 'generated'} in ${size.data.generateSeconds.toFixed(1)} s). ` +
        `Server (compiled, as \`npm start\` runs it) started in ${size.server.startupSeconds.toFixed(2)} s to a healthy \`/healthz\`, RSS ${(size.server.startupRssMb ?? Number.NaN).toFixed(0)} MB then; ` +
        `peak RSS ${size.server.peakRssMb?.toFixed(0) ?? '–'} MB under load, floor ${size.floor.peakRssMb.toFixed(0)} MB, static floor ${size.staticFloor.peakRssMb.toFixed(0)} MB` +
        `${restarts ? ` (restarted ${restarts}× to drop requests a run cut off)` : ''}. Filter: \`${size.data.filter}\`.` +
        (size.postgres
          ? ` PostgreSQL rows: the same data copied into PostgreSQL in ${size.postgres.copySeconds.toFixed(1)} s (bench/postgres.ts), ` +
            `its server's peak RSS ${size.postgres.peakRssMb.toFixed(0)} MB; the floors read SQLite, so those rows have no ratio to them ` +
            '(the targets compare them with the same scenario on SQLite).'
          : ''),
      '',
    );
    const head = (c: number) => [`c${c} req/s`, `c${c} p50 ms`, `c${c} p99 ms`, `c${c} vs floor`, `c${c} vs static`];
    const columns = [...head(low), ...(both ? head(high) : [])];
    lines.push(
      `| scenario | SQL/req | ${columns.join(' | ')} | errors |`,
      `|---|--:|${columns.map(() => '--:').join('|')}|--:|`,
    );
    let censored = false;
    const row = (title: string, queries: number | undefined, runs: RunResult[]) => {
      const cells = (c: number) => {
        const run = runs.find((r) => r.concurrency === c);
        if (!run) return ['–', '–', '–', '–', '–'];
        // Fewer responses than two per connection: only the requests that finished in the window have a latency.
        const few = run.requests < 2 * run.concurrency && run.concurrency > 1;
        censored ||= few;
        return [
          rps(run.rps),
          `${ms(run.p50)}${few ? '*' : ''}`,
          `${ms(run.p99)}${few ? '*' : ''}`,
          pct(run.ratioToFloor),
          pct(run.ratioToStatic),
        ];
      };
      const errors = runs.reduce((sum, run) => sum + run.errors + (run.unexpected ?? run.non2xx), 0);
      return `| ${title} | ${queries ?? '–'} | ${[...cells(low), ...(both ? cells(high) : [])].join(' | ')} | ${errors} |`;
    };
    for (const [title, id] of [
      ['Floor: events list, per_page 10', 'floor-list-10'],
      ['Floor: events list, per_page 50', 'floor-list-50'],
    ]) {
      const runs = size.floor.runs.filter((run) => run.scenario === id);
      if (runs.length) lines.push(row(title, size.floorQueries, runs));
    }
    lines.push(row('Static floor: the same bytes from memory', 0, size.staticFloor.runs));
    const ids = [...new Set(size.runs.map((run) => run.scenario))];
    for (const id of ids) {
      const runs = size.runs.filter((run) => run.scenario === id);
      lines.push(row(runs[0]!.title, size.queries[id], runs));
    }
    for (const id of new Set(size.postgres?.runs.map((run) => run.scenario))) {
      const runs = size.postgres!.runs.filter((run) => run.scenario === id);
      lines.push(row(`PostgreSQL: ${runs[0]!.title}`, size.postgres!.queries[id], runs));
    }
    for (const failure of size.failed)
      lines.push(
        `| ${failure.title}: **FAILED** (${failure.reason.replace(/\|/g, '\\|').replace(/\n/g, ' ')}) | | ${columns.map(() => '').join(' | ')} | |`,
      );
    if (censored) {
      lines.push(
        '',
        '\\* Fewer responses than two per connection in the measured window: the percentiles cover only the requests that ' +
          "finished in it and understate the latency a client sees (by Little's law the mean is about connections ÷ throughput).",
      );
    }
  }
  return lines.join('\n');
}

export function resultsMarkdown(results: Results): string {
  return [
    '# Benchmark results',
    '',
    `Written by \`${results.command}\` (bench/run.ts); numbers in bench/results.json. Throughput is responses per second. ` +
      'Two floors, measured in the same run at the same data size and concurrency: "vs floor" divides by the floor\'s throughput ' +
      '(bench/floor.ts: a bare node:http server answering the same events-list bytes from the same SQLite file with the ' +
      "service's index walk, a total remembered per data version, the relations in three IN-list statements and a " +
      'hand-written serializer: a lower bound for the uncached list), "vs static" by the static floor\'s (bench/static-floor.ts: ' +
      "node:http sending the service's list bytes from memory: the ceiling of any cached answer). Targets (issue 13): the " +
      `uncached list at 4× its previous throughput (${PREVIOUS_LIST_RPS.low} req/s at c1, ${PREVIOUS_LIST_RPS.high} at c32) with p99 ` +
      'within 10× p50 at c32; cached anonymous reads at 30% of the static floor with p99 under 25 ms at c32; authenticated reads ' +
      '(HTTP Basic with an application password, bearer token) at half the anonymous rate on the same URL; peak RSS under ' +
      "200 MB at 100,000 events. SQL/req: statements the database received for one request (the most of the scenario's first five), counted in process (the floor's " +
      'once its total is remembered).',
    '',
    resultTables(results),
    '',
    profileTables(results),
  ].join('\n');
}

/**
 * The profiles of the uncached scenarios: per data size, each scenario's time in process and its largest shares,
 * by where the code lives (bench/profile.ts).
 */
function profileTables(results: Results): string {
  const profiled = results.sizes.filter((size) => Object.keys(size.profiles ?? {}).length);
  if (!profiled.length) return '';
  const lines = [
    '## Where the time goes',
    '',
    'Each uncached scenario answered in process (the app run from its sources, no HTTP), after a warm-up, under ' +
      "V8's sampling profiler (bench/profile.ts): the mean time of one request, and the share of the samples by where " +
      "the sampled code lives. A builtin counts where it was called from (better-sqlite3's native calls in the SQLite " +
      'share, `JSON.stringify` in the caller\'s folder); "promise jobs" is V8 running promise callbacks; shares under 2% are in "other".',
  ];
  for (const size of profiled) {
    lines.push('', `**${sizeName(size)}**`, '', '| scenario | ms per request | where the time goes |', '|---|--:|---|');
    for (const [id, profile] of Object.entries(size.profiles)) {
      const shares = profile.shares.map((entry) => `${entry.place} ${pct(entry.share)}`).join(', ');
      lines.push(`| ${id} | ${ms(profile.msPerRequest)} | ${shares} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
