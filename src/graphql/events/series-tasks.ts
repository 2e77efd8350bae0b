// Work on every occurrence of a series that a write of its master starts: moving them to the trash with it, deleting
// them before it, or moving those after a split ("this and following") to the new series. A single statement over a
// long series held the database's writer for seconds (PostgreSQL's per-row triggers: 2 s for 10,000 occurrences,
// 20 s with a category and a tag), so the write of the master queues a SeriesTask in its own transaction and the
// occurrences follow in steps of at most STEP_WRITES rows, each its own short transaction, like a series sync
// (series-sync.ts). Tasks run in the order queued; a task's row records how far it got and goes when it is done, so
// work cut short (a crash) is taken up by any process's SeriesMaintainer.
//
// While a task is under way, the series shows the master's new state at once (trashed, or trashed on its way to
// being deleted) and its occurrences as they were until their step reaches them; nothing is lost half-way: a task
// works by original start and is resumed from where it stood, and a series sync of a master waits for the tasks that
// concern it (a sync must not add rows a delete is removing, nor find a split's occurrences before they moved).
import type { Db, DbTransaction } from '../../db/client.js';
import { lockForWriting } from '../../db/data-version.js';
import type { Event } from '../../db/generated/prisma/client.js';
import type { Context } from '../builder.js';

/** Before the first possible occurrence: where a trash or delete starts. */
const EARLIEST = new Date('0001-01-01T00:00:00.000Z');
/** Rows a step writes at most, occurrences counted with their links: some 5 to 40 ms. */
const STEP_WRITES = 200;
/**
 * The pause after a step: twice as long as the step took, at least MIN_PAUSE_MS, varied by half either way. A writer of
 * another SQLite process waits for the lock by sleeping in steps of 1 to 100 ms: with the writer free two thirds of
 * the time, and at no fixed rhythm its sleeps could fall in with, it gets the lock within its first few tries.
 */
const MIN_PAUSE_MS = 10;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pauseAfterStep = (stepMs: number) => pause(Math.max(MIN_PAUSE_MS, 2 * stepMs) * (0.5 + Math.random()));

/** Queues the move of a series' occurrences to the trash, in the transaction that trashed its master. */
export async function queueSeriesTrash(tx: DbTransaction, seriesId: number) {
  if (!(await tx.event.findFirst({ where: { recurringEventId: seriesId }, select: { id: true } }))) return;
  await tx.seriesTask.create({ data: { kind: 'trash', seriesId, nextStart: EARLIEST } });
}

/**
 * Starts deleting a series for good: the master goes to the trash at once (readers no longer see it, nor the series'
 * extension or sync touch it), its occurrences are deleted in steps, then the master. A trash under way gives way to
 * it. Answers false when the master is gone or already being deleted (another delete won).
 */
export async function startSeriesDelete(db: Db, seriesId: number): Promise<boolean> {
  return db.$transaction(async (tx) => {
    await lockForWriting(tx);
    const master = await tx.event.findUnique({ where: { id: seriesId }, select: { status: true } });
    if (!master || (await isSeriesBeingDeleted(tx, seriesId))) return false;
    await tx.seriesTask.deleteMany({ where: { seriesId, kind: 'trash' } });
    const lastLogged = await tx.change.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true } });
    await tx.event.update({
      where: { id: seriesId },
      data: { status: 'trash', syncedThrough: null, materializedUntil: null },
    });
    // A master already in the trash did not change for clients: no change is logged for the bookkeeping.
    if (master.status === 'trash')
      await tx.change.deleteMany({
        where: { seq: { gt: lastLogged?.seq ?? 0 }, recordType: 'event', recordId: seriesId },
      });
    await tx.seriesTask.create({ data: { kind: 'delete', seriesId, nextStart: EARLIEST } });
    return true;
  });
}

/** Whether the series' deletion is under way: its master is deleted after its occurrences, and is no record meanwhile. */
export async function isSeriesBeingDeleted(db: DbTransaction, seriesId: number): Promise<boolean> {
  return (await db.seriesTask.findFirst({ where: { seriesId, kind: 'delete' }, select: { id: true } })) !== null;
}

/** Queues the move of the occurrences from `from` on to the new series of a split, in the split's transaction. */
export async function queueSeriesMove(tx: DbTransaction, seriesId: number, toSeriesId: number, from: Date) {
  await tx.seriesTask.create({ data: { kind: 'move', seriesId, toSeriesId, nextStart: from } });
}

/**
 * Whether a task waits that no process has made a step of for `idleMs`: work cut short (a crash, a request at its
 * deadline whose process stopped), for any process to take up. A task a process is working on is left to it, so
 * that two processes do not take turns at the writer with no pause between their steps.
 */
export async function hasAbandonedSeriesTask(db: Db, idleMs: number): Promise<boolean> {
  return (
    (await db.seriesTask.findFirst({
      where: { steppedAt: { lt: new Date(Date.now() - idleMs) } },
      select: { id: true },
    })) !== null
  );
}

/** Whether a task concerns the series (its own occurrences, or a split's moving into it). */
export async function hasSeriesTask(db: DbTransaction, seriesId: number): Promise<boolean> {
  return (
    (await db.seriesTask.findFirst({
      where: { OR: [{ seriesId }, { toSeriesId: seriesId }] },
      select: { id: true },
    })) !== null
  );
}

/**
 * An occurrence a split's move has not reached yet belongs to the new series: it is moved now, on its own, before a
 * write of it (an exception, a deletion, a further split) is read against its series. Answers it as it then is.
 */
export async function withMoveSettled(ctx: Context, occurrence: Event): Promise<Event> {
  if (!occurrence.recurringEventId || !occurrence.originalStartsAt) return occurrence;
  const where = {
    seriesId: occurrence.recurringEventId,
    kind: 'move',
    nextStart: { lte: occurrence.originalStartsAt },
  };
  if (!(await ctx.db.seriesTask.findFirst({ where, select: { id: true } }))) return occurrence;
  return ctx.db.$transaction(async (tx) => {
    await lockForWriting(tx);
    const move = await tx.seriesTask.findFirst({ where, orderBy: { id: 'asc' } });
    const current = await tx.event.findUniqueOrThrow({ where: { id: occurrence.id } });
    if (!move || current.recurringEventId !== occurrence.recurringEventId) return current;
    return tx.event.update({ where: { id: occurrence.id }, data: { recurringEventId: move.toSeriesId } });
  });
}

/** One step of the first task queued, in one transaction: answers the rows written and whether tasks are left. */
async function taskStep(tx: DbTransaction): Promise<{ rows: number; left: boolean }> {
  await lockForWriting(tx);
  const task = await tx.seriesTask.findFirst({ orderBy: { id: 'asc' } });
  if (!task) return { rows: 0, left: false };
  const master = await tx.event.findUnique({ where: { id: task.seriesId }, select: { id: true, status: true } });
  // A series taken out of the trash (or gone) before its occurrences all followed: the rest stay as they are.
  if (!master || (task.kind === 'trash' && master.status !== 'trash')) {
    await tx.seriesTask.delete({ where: { id: task.id } });
    return { rows: 0, left: (await tx.seriesTask.count()) > 0 };
  }
  const links =
    (await tx.eventVenue.count({ where: { eventId: master.id } })) +
    (await tx.eventOrganizer.count({ where: { eventId: master.id } })) +
    (await tx.eventTerm.count({ where: { eventId: master.id } }));
  const size = Math.max(1, Math.floor(STEP_WRITES / (1 + links)));
  const rows = await tx.event.findMany({
    where: { recurringEventId: master.id, originalStartsAt: { gte: task.nextStart } },
    orderBy: { originalStartsAt: 'asc' },
    take: size,
    select: { id: true, originalStartsAt: true },
  });
  const ids = rows.map((row) => row.id);
  if (task.kind === 'trash')
    await tx.event.updateMany({ where: { id: { in: ids }, status: { not: 'trash' } }, data: { status: 'trash' } });
  else if (task.kind === 'delete') await tx.event.deleteMany({ where: { id: { in: ids } } });
  else await tx.event.updateMany({ where: { id: { in: ids } }, data: { recurringEventId: task.toSeriesId } });
  if (rows.length === size) {
    await tx.seriesTask.update({
      where: { id: task.id },
      data: { nextStart: new Date(rows.at(-1)!.originalStartsAt!.getTime() + 1), steppedAt: new Date() },
    });
    return { rows: rows.length, left: true };
  }
  // The last step: a delete ends with the master (nothing of the series is left to cascade but its own links).
  if (task.kind === 'delete') await tx.event.deleteMany({ where: { id: master.id } });
  await tx.seriesTask.delete({ where: { id: task.id } });
  return { rows: rows.length + 1, left: (await tx.seriesTask.count()) > 0 };
}

/**
 * Runs steps of the queued tasks, oldest first, until none is left or `budgetRows` are written, pausing after each as
 * long as it took. Answers the rows written and whether tasks are left.
 */
export async function runSeriesTasks(
  db: Db,
  budgetRows = Number.POSITIVE_INFINITY,
): Promise<{ rows: number; left: boolean }> {
  let rows = 0;
  while (rows < budgetRows) {
    const started = performance.now();
    const outcome = await db.$transaction((tx) => taskStep(tx), { timeout: 30_000, maxWait: 30_000 });
    rows += outcome.rows;
    if (!outcome.left) return { rows, left: false };
    await pauseAfterStep(performance.now() - started);
  }
  return { rows, left: true };
}
