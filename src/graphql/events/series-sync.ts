// Bringing a series' occurrence rows in line with its master, in steps. Each step is one short write transaction over
// at most SYNC_STEP_WRITES rows (occurrences and their links), so no series, however long, holds the database's
// writer for long, and steps of other writers (and other processes) come in between. What is done is recorded on the
// master as it goes, so a sync cut short (a crash, a timeout) is resumed by any process:
//
// - `materializedUntil`: occurrence rows exist for every original start before it (null: for all of the series).
// - `syncedThrough`: after a write of the master, rows before it are in line with it; those after it still await
//   their step (they show the series as it was, or are yet to be added). Null when all are in line.
//
// Two kinds of work: the sync after an author's write (create, edit), whose changes of occurrences are changes of
// the calendar and so logged; and the extension of a series further ahead (the horizon moving, a list reaching
// further), which adds rows the rule already defined: a cache of the rule, so not logged (docs/recurring-events.md).
import { DateTime } from 'luxon';
import type { Config } from '../../config.js';
import { postgresSchema, type Db, type DbTransaction } from '../../db/client.js';
import { lockForWriting, VersionedMemo } from '../../db/data-version.js';
import { noteRememberedRead } from '../../db/request-client.js';
import type { Event, Prisma } from '../../db/generated/prisma/client.js';
import type { Logger } from '../../logging/logger.js';
import { LAST_INSTANT } from '../../time/dates.js';
import { expandRecurrence, MAX_SERIES_OCCURRENCES, parseRecurrence, RecurrenceError } from '../../time/recurrence.js';
import type { Context, SeriesExtender } from '../builder.js';
import { invalidField, OccurrencesPendingError } from '../errors.js';
import { recurrenceLines } from './columns.js';
import { instantOf, occurrenceTimes } from '../../time/occurrence-times.js';
import { copiedColumns, copyLinks, expansionBound, EXTENSION_SLACK_DAYS, occurrenceSlugs } from './series.js';
import { hasAbandonedSeriesTask, hasSeriesTask, runSeriesTasks } from './series-tasks.js';

/**
 * Rows one step writes at most: occurrences, each counted with its links (at least one occurrence a step); a step
 * takes some 50 to 200 ms.
 */
export const SYNC_STEP_WRITES = 400;
/** Before the first possible occurrence: where a sync after a write starts. */
const EARLIEST = new Date('0001-01-01T00:00:00.000Z');
/**
 * Occurrence rows a request waits for. A list whose series are short of its window waits while this process's
 * extender writes this many (for it or for others, one step at a time), then is answered 503 with Retry-After while
 * the extension goes on; whatever its window, that is all it costs. A write of a series master answers once this
 * many of its occurrences are in line, and the extender brings in the rest.
 */
export const REQUEST_WAIT_ROWS = 1_000;
/** The Retry-After of that 503. */
const PENDING_RETRY_AFTER_SECONDS = 2;
/** How often each process looks for syncs of writes left unfinished (by a crash) to take them up. */
export const UNFINISHED_SYNC_POLL_MS = 5_000;
/** Pause after a step at least this long, and at least as long as the step took (the writer is free half the time). */
const MIN_PAUSE_MS = 5;

/** The master's columns its occurrences' starts depend on. */
const definitionOf = (master: Event) =>
  JSON.stringify([master.recurrence, master.startLocal, master.endLocal, master.timezone, master.allDay]);

/** A series' expansion up to a target, computed outside the steps' transactions and kept while the master is unchanged. */
interface Plan {
  key: string;
  /** Original starts, by instant (ms), with their wall clocks. */
  starts: Array<{ local: string; at: number }>;
  /** Days with several starts: their occurrences' slugs take the time too. */
  busyDays: Set<string>;
  /** No occurrence at or after the target. */
  complete: boolean;
}

/** What a step has to do for a master: the range of original starts, and whether its changes are logged. */
interface Work {
  from: Date;
  /** Exclusive; null: to the series' end. */
  to: Date | null;
  logged: boolean;
}

/** The work left on a master: the sync after a write first, then the extension to `extendTo`, if short of it. */
function workOf(master: Event, extendTo: Date | undefined): Work | null {
  if (master.syncedThrough) return { from: master.syncedThrough, to: master.materializedUntil, logged: true };
  if (extendTo && master.materializedUntil && master.materializedUntil < extendTo)
    return { from: master.materializedUntil, to: extendTo, logged: false };
  return null;
}

const planKey = (master: Event, work: Work) => `${definitionOf(master)}|${work.to?.getTime() ?? 'end'}`;

function makePlan(master: Event, work: Work): Plan {
  const key = planKey(master, work);
  const lines = recurrenceLines(master.recurrence);
  if (!lines.length) return { key, starts: [], busyDays: new Set(), complete: true };
  // Wall clocks have whole seconds: a target within a second is that second's end, so a start just before it counts.
  const target = work.to ? DateTime.fromMillis(Math.ceil(work.to.getTime() / 1000) * 1000) : LAST_INSTANT;
  const { until, atYearLimit } = expansionBound(master, target);
  let expansion;
  try {
    expansion = expandRecurrence(
      parseRecurrence(lines, master.timezone),
      master.startLocal,
      master.allDay,
      until,
      MAX_SERIES_OCCURRENCES,
    );
  } catch (error) {
    if (error instanceof RecurrenceError) throw invalidField('recurrence', error.message);
    throw error;
  }
  const byInstant = new Map<number, string>();
  for (const local of expansion.starts) {
    const at = instantOf(local, master.timezone).getTime();
    if (!byInstant.has(at)) byInstant.set(at, local);
  }
  const starts = [...byInstant].map(([at, local]) => ({ at, local })).sort((a, b) => a.at - b.at);
  const perDay = new Map<string, number>();
  for (const { local } of starts) perDay.set(local.slice(0, 10), (perDay.get(local.slice(0, 10)) ?? 0) + 1);
  return {
    key,
    starts,
    busyDays: new Set([...perDay].filter(([, n]) => n > 1).map(([day]) => day)),
    // Past MAX_SERIES_OCCURRENCES rows, or the year 9999, a series grows no further (docs/recurring-events.md).
    complete: expansion.complete || expansion.starts.length >= MAX_SERIES_OCCURRENCES || atYearLimit,
  };
}

/** The index of the first start at or after `at`. */
function firstFrom(starts: Plan['starts'], at: number): number {
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (starts[middle]!.at < at) low = middle + 1;
    else high = middle;
  }
  return low;
}

type StepOutcome = { rows: number; left: boolean } | 'replan';

/**
 * One step, in one transaction: the next slice of the master's work (at most SYNC_STEP_WRITES rows), from where the
 * master says it stands. Writers queue on the data-version lock first, so two processes working on one series take
 * turns, each from where the other left it.
 */
async function step(
  tx: DbTransaction,
  dialect: Dialect,
  masterId: number,
  plan: Plan,
  extendTo: Date | undefined,
): Promise<StepOutcome> {
  await lockForWriting(tx);
  const master = await tx.event.findUnique({ where: { id: masterId } });
  const work = master && workOf(master, extendTo);
  if (!master || !work) return { rows: 0, left: false };
  // A task on the series' occurrences (a trash, a delete, a split's move) comes first: series-tasks.ts.
  if (planKey(master, work) !== plan.key || (await hasSeriesTask(tx, masterId))) return 'replan';
  const lastLogged = await tx.change.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true } });
  const links =
    (await tx.eventVenue.count({ where: { eventId: masterId } })) +
    (await tx.eventOrganizer.count({ where: { eventId: masterId } })) +
    (await tx.eventTerm.count({ where: { eventId: masterId } }));
  const size = Math.max(1, Math.floor(SYNC_STEP_WRITES / (1 + links)));
  const to = work.to?.getTime() ?? Number.POSITIVE_INFINITY;
  const first = firstFrom(plan.starts, work.from.getTime());
  const wanted = plan.starts.slice(first, first + size + 1).filter((start) => start.at < to);
  const existing = await tx.event.findMany({
    where: { recurringEventId: masterId, originalStartsAt: { gte: work.from, ...(work.to ? { lt: work.to } : {}) } },
    orderBy: { originalStartsAt: 'asc' },
    take: size + 1,
    select: {
      id: true,
      startLocal: true,
      endLocal: true,
      originalStartsAt: true,
      originalStartLocal: true,
      detached: true,
    },
  });
  const cuts = [wanted[size]?.at, existing[size]?.originalStartsAt?.getTime()].filter((at) => at !== undefined);
  const sliceEnd = cuts.length ? Math.min(...cuts) : to;
  const slice = new Map(wanted.filter((start) => start.at < sliceEnd).map((start) => [start.at, start.local]));
  const rows = existing.filter((row) => row.originalStartsAt!.getTime() < sliceEnd);
  const stale = rows.filter((row) => !slice.has(row.originalStartsAt!.getTime()));
  const kept = rows.filter((row) => slice.has(row.originalStartsAt!.getTime()));
  const have = new Set(kept.map((row) => row.originalStartsAt!.getTime()));
  const fresh = [...slice].filter(([at]) => !have.has(at)).map(([, local]) => local);

  if (stale.length) await tx.event.deleteMany({ where: { id: { in: stale.map((row) => row.id) } } });
  const copied = copiedColumns(master);
  if (work.logged)
    await refreshKept(
      tx,
      master,
      kept.filter((row) => !row.detached),
      copied,
    );
  const created = await insertOccurrences(tx, dialect, master, fresh, plan.busyDays);
  await copyLinks(tx, masterId, created, false);

  const done = sliceEnd >= to;
  const reached = done ? (plan.complete ? null : work.to) : new Date(sliceEnd);
  await tx.event.update({
    where: { id: masterId },
    data: master.syncedThrough
      ? done
        ? { syncedThrough: null, materializedUntil: reached }
        : { syncedThrough: reached }
      : { materializedUntil: reached },
  });
  // The step's own bookkeeping on the master is no change of it; rows added by an extension are no change either.
  await tx.change.deleteMany({
    where: {
      seq: { gt: lastLogged?.seq ?? 0 },
      recordType: 'event',
      recordId: { in: work.logged ? [masterId] : [masterId, ...created] },
    },
  });
  const left = !done || workOf({ ...master, syncedThrough: null, materializedUntil: reached }, extendTo) !== null;
  return { rows: stale.length + kept.length + created.length, left };
}

/** Kept, unchanged occurrences take the master's fields (one statement) and, where its length changed, its end. */
async function refreshKept(
  tx: DbTransaction,
  master: Event,
  rows: Array<{ id: number; startLocal: string; endLocal: string; originalStartLocal: string | null }>,
  copied: ReturnType<typeof copiedColumns>,
) {
  if (!rows.length) return;
  const ids = rows.map((row) => row.id);
  await tx.event.updateMany({ where: { id: { in: ids } }, data: copied as Prisma.EventUpdateManyMutationInput });
  for (const row of rows) {
    const times = occurrenceTimes(master, row.originalStartLocal!);
    if (times.endLocal !== row.endLocal || times.startLocal !== row.startLocal)
      await tx.event.update({ where: { id: row.id }, data: times });
  }
  await copyLinks(tx, master.id, ids, true);
}

/** The engine's text for an instant in a raw statement: as Prisma writes DateTime columns (SQLite: ISO text). */
const timestampOf = (engine: Dialect['engine'], instant: Date) =>
  engine === 'sqlite' ? instant.toISOString().replace('Z', '+00:00') : instant.toISOString();

/**
 * Inserts occurrences in one statement that copies the master's columns in SQL. Prisma's createMany spends about a
 * millisecond of the event loop on each row (it checks and encodes each of its some 40 fields), ten times what the
 * database takes; a step of a long series would hold the event loop for a second.
 */
async function insertOccurrences(
  tx: DbTransaction,
  { engine, eventTable }: Dialect,
  master: Event,
  starts: string[],
  busyDays: Set<string>,
) {
  if (!starts.length) return [];
  const slugs = await occurrenceSlugs(tx, master, starts, busyDays);
  const copied = Object.keys(copiedColumns(master));
  const params: unknown[] = [];
  const param = (value: unknown, instant = false) => {
    params.push(value);
    const placeholder = engine === 'postgres' ? `$${params.length}` : '?';
    return instant && engine === 'postgres' ? `CAST(${placeholder} AS TIMESTAMP(3))` : placeholder;
  };
  const values = starts.map((local, i) => {
    const times = occurrenceTimes(master, local);
    const at = (instant: Date) => param(timestampOf(engine, instant), true);
    return `(${[param(times.startLocal), param(times.endLocal), at(times.startsAt), at(times.endsAt), param(slugs[i]), at(times.startsAt), param(local)].join(', ')})`;
  });
  const own = ['startLocal', 'endLocal', 'startsAt', 'endsAt', 'slug', 'originalStartsAt', 'originalStartLocal'];
  const quoted = (name: string) => `"${name}"`;
  await tx.$executeRawUnsafe(
    `INSERT INTO ${eventTable} (${[...copied, ...own, 'recurringEventId'].map(quoted).join(', ')}) ` +
      `SELECT ${[...copied.map((name) => `m.${quoted(name)}`), ...own.map((_, i) => `v.column${i + 1}`), 'm."id"'].join(', ')} ` +
      `FROM ${eventTable} AS m, (VALUES ${values.join(', ')}) AS v WHERE m."id" = ${param(master.id)}`,
    ...params,
  );
  const instants = starts.map((local) => occurrenceTimes(master, local).startsAt);
  const rows = await tx.event.findMany({
    where: { recurringEventId: master.id, originalStartsAt: { in: instants } },
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

/** What a raw statement needs to know of the database: its engine and the Event table's name there. */
export interface Dialect {
  engine: Config['engine'];
  eventTable: string;
}

/** The dialect of the configured database (PostgreSQL: the table in the schema DATABASE_URL names). */
export const dialectOf = (config: Config): Dialect => ({
  engine: config.engine,
  eventTable:
    config.engine === 'postgres' ? `"${postgresSchema(config.databaseUrl).replace(/"/g, '""')}"."Event"` : '"Event"',
});

interface RunOptions {
  dialect: Dialect;
  /** Extend the series so that rows exist for original starts before this instant (after any sync of a write). */
  extendTo?: Date;
  /** Stop after this many rows (the run can be taken up again); unbounded when left out. */
  budgetRows?: number;
  /** The plan kept between runs of this series, if any. */
  plans?: Map<number, Plan>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs steps on one series until its work is done (or `budgetRows` are written), pausing after each as long as it
 * took. Answers the rows written and whether work is left.
 */
export async function runSeriesSteps(
  db: Db,
  masterId: number,
  { dialect, extendTo, budgetRows = Number.POSITIVE_INFINITY, plans = new Map() }: RunOptions,
) {
  let rows = 0;
  while (rows < budgetRows) {
    if (await hasSeriesTask(db, masterId)) {
      rows += (await runSeriesTasks(db, 1)).rows;
      continue;
    }
    const master = await db.event.findUnique({ where: { id: masterId } });
    const work = master && workOf(master, extendTo);
    if (!master || !work) return { rows, left: false };
    let plan = plans.get(masterId);
    if (plan?.key !== planKey(master, work)) {
      plan = makePlan(master, work);
      plans.set(masterId, plan);
    }
    const started = performance.now();
    const outcome = await db.$transaction((tx) => step(tx, dialect, masterId, plan, extendTo), {
      timeout: 30_000,
      maxWait: 30_000,
    });
    if (outcome === 'replan') continue;
    rows += outcome.rows;
    if (!outcome.left) return { rows, left: false };
    await pause(Math.max(MIN_PAUSE_MS, performance.now() - started));
  }
  return { rows, left: true };
}

/**
 * After a write of a series master, in the write's transaction: its occurrences are to be brought in line from the
 * first, as far as they exist (and at least to `reach` and EXTENSION_SLACK_DAYS more). The rows follow in steps
 * (runSeriesSteps).
 */
export async function markSeriesWritten(tx: DbTransaction, masterId: number, horizon: Date) {
  const reach = DateTime.fromJSDate(horizon).plus({ days: EXTENSION_SLACK_DAYS }).toJSDate();
  const master = await tx.event.findUniqueOrThrow({ where: { id: masterId }, select: { materializedUntil: true } });
  const furthest = await tx.event.findFirst({
    where: { recurringEventId: masterId },
    orderBy: { originalStartsAt: 'desc' },
    select: { originalStartsAt: true },
  });
  const until = Math.max(
    reach.getTime(),
    master.materializedUntil?.getTime() ?? 0,
    (furthest?.originalStartsAt?.getTime() ?? 0) + 1,
  );
  await tx.event.update({
    where: { id: masterId },
    data: { syncedThrough: EARLIEST, materializedUntil: new Date(until) },
  });
}

/**
 * Per process: extends series as lists ask (one step at a time, paced, whoever asked), and takes up the syncs of
 * writes left unfinished (by a crash, or a request stopped at its deadline) in any process.
 */
export class SeriesMaintainer implements SeriesExtender {
  private readonly demands = new Map<number, number>();
  /** Syncs of writes handed over by this process's requests. */
  private readonly taken = new Set<number>();
  /** Series tasks handed over by this process's requests. */
  private tasksTaken = false;
  private readonly plans = new Map<number, Plan>();
  private readonly waiters = new Set<() => void>();
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private rowsWritten = 0;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly logger: Logger,
    private readonly pollMs: number,
  ) {}

  /** Looks for unfinished syncs now and every pollMs. */
  start() {
    this.timer = setInterval(() => this.wake(), this.pollMs).unref();
    this.wake();
  }

  /**
   * Asks for the series to have rows up to `reach`, and waits while this process writes up to `waitRows` rows (for
   * them or for others). Answers whether they got there; if not, the work goes on after the answer.
   */
  async extend(ids: number[], reach: Date, waitRows: number): Promise<boolean> {
    for (const id of ids) this.demands.set(id, Math.max(this.demands.get(id) ?? 0, reach.getTime()));
    const from = this.rowsWritten;
    const settled = () => ids.every((id) => !this.demands.has(id));
    this.wake();
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!settled() && this.rowsWritten - from < waitRows && this.running && !this.closed) return;
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
    });
    return settled();
  }

  /** Takes over the sync of a write of `masterId` that a request began. */
  take(masterId: number) {
    this.taken.add(masterId);
    this.wake();
  }

  /** Takes over the series tasks a request queued (series-tasks.ts). */
  takeTasks() {
    this.tasksTaken = true;
    this.wake();
  }

  private wake() {
    if (this.closed || this.running) return;
    this.running = this.work().finally(() => {
      this.running = null;
      for (const waiter of [...this.waiters]) waiter();
      // Work handed over while the last round was ending.
      if (this.taken.size || this.tasksTaken) this.wake();
    });
  }

  private async work() {
    const unfinished = await unfinishedSeries(this.db).catch(() => []);
    const queue = [...new Set([...this.taken, ...unfinished.map((row) => row.id), ...this.demands.keys()])];
    this.taken.clear();
    let tasks = this.tasksTaken || (await hasAbandonedSeriesTask(this.db, this.pollMs).catch(() => false));
    this.tasksTaken = false;
    while (!this.closed && (queue.length || tasks)) {
      if (tasks) tasks = await this.taskStep();
      if (queue.length) await this.seriesStep(queue);
      for (const waiter of [...this.waiters]) waiter();
      for (const id of [...this.taken, ...this.demands.keys()]) if (!queue.includes(id)) queue.push(id);
      this.taken.clear();
      tasks ||= this.tasksTaken;
      this.tasksTaken = false;
      await pause(MIN_PAUSE_MS);
    }
  }

  /** A step of the series tasks queued (series-tasks.ts); answers whether tasks are left. */
  private async taskStep(): Promise<boolean> {
    try {
      const { rows, left } = await runSeriesTasks(this.db, 1);
      this.rowsWritten += rows;
      return left;
    } catch (error) {
      this.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'series: a step of a trash, delete or split failed; it is taken up again within seconds',
      );
      return false;
    }
  }

  /** A step of the series first in `queue`, which goes to the back of it while it has work left. */
  private async seriesStep(queue: number[]) {
    const id = queue.shift()!;
    const reach = this.demands.get(id);
    try {
      const { rows, left } = await runSeriesSteps(this.db, id, {
        dialect: this.dialect,
        extendTo: reach === undefined ? undefined : new Date(reach),
        budgetRows: 1,
        plans: this.plans,
      });
      this.rowsWritten += rows;
      if (left) queue.push(id);
      else if (this.demands.get(id) === reach) this.demands.delete(id);
    } catch (error) {
      this.demands.delete(id);
      this.logger.warn(
        { err: error instanceof Error ? error.message : String(error), seriesId: id },
        'series: materialising occurrences failed; a later list asks again',
      );
    }
    if (this.plans.size > 8) this.plans.delete(this.plans.keys().next().value!);
  }

  async close() {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }
}

/**
 * The series row with the earliest `materializedUntil` (null: none runs past what exists), remembered until the next write
 * to the database, so that lists at an unchanged data version spend no statement on series. Kept by database URL:
 * data versions of different databases (tests run several servers in a process) say nothing about each other.
 */
const earliestMaterialised = new VersionedMemo<{ materializedUntil: Date | null } | null>(100);
// Not `aggregate({ _min })`: Prisma wraps it in a subquery that scans every event (37 ms at 100,000 events on
// SQLite); ordered with a limit, the materializedUntil index answers at once.
const EARLIEST_MATERIALISED = {
  where: { materializedUntil: { not: null } },
  orderBy: { materializedUntil: 'asc' },
  select: { materializedUntil: true },
} as const;

/** Where the series whose rows stop soonest stops (null when every series is whole), remembered per data version. */
async function earliestSeriesEnd(ctx: Context): Promise<number | null> {
  const first = await earliestMaterialised.get(ctx.config.databaseUrl, await ctx.dataVersion(), () =>
    ctx.db.event.findFirst(EARLIEST_MATERIALISED),
  );
  noteRememberedRead(ctx.db, 'Event', 'findFirst', EARLIEST_MATERIALISED, first);
  return first?.materializedUntil?.getTime() ?? null;
}

/**
 * A list without an end shows the occurrences made so far, and series upkeep adds more without a change-log entry:
 * when another list reaches further (the data version moves), and when the horizon passes the series that stops
 * soonest. Its answer is right at its data version, until then.
 */
export async function showsSeriesAsFarAsMade(ctx: Context): Promise<void> {
  ctx.facts.readsUnloggedData();
  const earliest = await earliestSeriesEnd(ctx);
  const horizonMs = defaultReach(ctx).getTime() - ctx.requestTime.getTime();
  if (earliest !== null) ctx.facts.changesAt(earliest - horizonMs);
}

/** The reach every series is materialised to without being asked: now plus the configured horizon. */
export function defaultReach(ctx: Context): Date {
  // Untracked: the horizon decides which occurrences are written (the change log reports them), not what is shown.
  return DateTime.fromJSDate(ctx.requestTime).plus({ days: ctx.config.recurrenceHorizonDays }).toJSDate();
}

/**
 * Before a list reads occurrences up to `reach`: every series whose rows stop short of it is extended (to `reach`
 * and EXTENSION_SLACK_DAYS more, so the next lists find it done) by this process's SeriesMaintainer. The list waits
 * while REQUEST_WAIT_ROWS rows are written; series still short then are left to the extender, and the list is refused
 * with OccurrencesPendingError rather than answered without their occurrences.
 */
export async function extendSeriesFor(ctx: Context, reach: Date) {
  const earliest = await earliestSeriesEnd(ctx);
  if (earliest === null || earliest >= reach.getTime()) return;
  const due = (await ctx.db.event.findMany({ where: { materializedUntil: { lt: reach } }, select: { id: true } })).map(
    (row) => row.id,
  );
  const target = DateTime.fromJSDate(reach).plus({ days: EXTENSION_SLACK_DAYS }).toJSDate();
  if (!ctx.series) {
    // Outside the server (seed, import): no extender and no anonymous caller; the work is done here.
    for (const id of due) await runSeriesSteps(ctx.db, id, { dialect: dialectOf(ctx.config), extendTo: target });
    return;
  }
  if (await ctx.series.extend(due, target, REQUEST_WAIT_ROWS)) return;
  // Another process may have got them there meanwhile.
  const short = await ctx.db.event.count({ where: { id: { in: due }, materializedUntil: { lt: reach } } });
  if (short > 0) throw new OccurrencesPendingError(PENDING_RETRY_AFTER_SECONDS);
}

/**
 * After a write of a series master has committed: its occurrences are brought in line, up to REQUEST_WAIT_ROWS rows
 * while the request waits, then by this process's extender (in full here when there is none: the seed, the importer).
 */
export async function bringSeriesInLine(ctx: Context, masterId: number) {
  const { left } = await runSeriesSteps(ctx.db, masterId, {
    dialect: dialectOf(ctx.config),
    budgetRows: ctx.series ? REQUEST_WAIT_ROWS : undefined,
  });
  if (left) ctx.series?.take(masterId);
}

/**
 * After a write queued a series task (a trash, a delete, a split's move): the occurrences follow, up to
 * REQUEST_WAIT_ROWS rows while the request waits, then by this process's extender (in full here when there is none).
 */
export async function followSeriesTasks(ctx: Context) {
  const { left } = await runSeriesTasks(ctx.db, ctx.series ? REQUEST_WAIT_ROWS : undefined);
  if (left) ctx.series?.takeTasks();
}

/**
 * Up to 100 series masters whose sync was cut short, read at every round of upkeep: ordered by `syncedThrough`, so
 * that its index answers; ordered by ID, SQLite walks every event to find the few (26–39 ms at 100,000 events).
 */
export function unfinishedSeries(db: Db) {
  return db.event.findMany({
    where: { syncedThrough: { not: null } },
    orderBy: { syncedThrough: 'asc' },
    select: { id: true },
    take: 100,
  });
}
