// A one-time repair of events written before the clock rule (RFC 5545 §3.3.5, src/time/dates.ts): luxon alone read a
// wall clock the zone repeats as either of its instants depending on the day the server ran, and occurrences whose
// rule start the zone skips were stored at the nonexistent local time with an end before their start. Run once per
// database after the SQL migrations (src/db/data-steps.ts), in pages and short write transactions.
//
// What is repaired, and why only that:
// - Occurrences of a series (not exceptions) are the rule's: their times become occurrenceTimes of their original
//   start, as a sync writes them today, and their `originalStartsAt` the clock rule's instant of
//   `originalStartLocal`, by which a sync matches them, so the next sync keeps them (and their IDs) instead of
//   deleting and inserting them again.
// - Exceptions (occurrences changed on their own) get the same `originalStartsAt` (a sync would otherwise delete them
//   as no longer in the rule); their own times are a single event's.
// - A single event's (or a series master's) instants are what its client sent, with an offset perhaps: a repeated
//   hour's second instant may be meant, and nothing stored tells. Only rows whose start or end wall clock the zone
//   skips, or whose end is before their start, are wrong for certain: no offset gives them (an instant's wall clock
//   exists) and no write accepts an end before the start. Those are read again from their wall clocks as a write
//   of them is read today (the start moved forward by the gap, the end as far). A series master is never among them
//   (its wall clocks are those of instants); if one were, its wall-clock start is its rule's DTSTART, which the
//   repair must not move: it is reported, not changed.
//
// Each repaired row changed what clients read (its start and end, or its original start), so the change log's
// triggers record it as `updated`, for feeds and webhooks to tell their clients; a row already in line is not
// written, so a second run, or a database written after the rule, logs nothing.
import { Info } from 'luxon';
import type { Logger } from '../logging/logger.js';
import { wallClockKind } from '../time/dates.js';
import { instantOf, occurrenceTimes, type SeriesClock } from '../time/occurrence-times.js';
import type { Db } from './client.js';

/** Rows read at a time (in ID order), and rows written in one transaction at most. */
const PAGE_ROWS = 2_000;
const WRITES_PER_TRANSACTION = 100;
const DAY = 86_400_000;

const columns = {
  id: true,
  timezone: true,
  allDay: true,
  startLocal: true,
  endLocal: true,
  startsAt: true,
  endsAt: true,
  originalStartLocal: true,
  originalStartsAt: true,
  recurringEventId: true,
  detached: true,
  isSeriesMaster: true,
} as const;
type Row = {
  id: number;
  timezone: string;
  allDay: boolean;
  startLocal: string;
  endLocal: string;
  startsAt: Date;
  endsAt: Date;
  originalStartLocal: string | null;
  originalStartsAt: Date | null;
  recurringEventId: number | null;
  detached: boolean;
  isSeriesMaster: boolean;
};
type Fix = Partial<Pick<Row, 'startLocal' | 'endLocal' | 'startsAt' | 'endsAt' | 'originalStartsAt'>>;

export interface ClockRepairSummary {
  examined: number;
  repaired: number;
  /** Masters whose wall clocks the zone skips: reported, left as they are (see above). */
  mastersLeft: number[];
}

/**
 * Whether a wall clock's day is within two days of a change of the zone's offset: only there can a wall clock be
 * skipped or repeated (zones change their offset at most once in four days). Memoised by zone and day, so most rows
 * cost a map lookup.
 */
function nearTransition(memo: Map<string, boolean>, zone: string, wallClock: string): boolean {
  const key = `${zone}|${wallClock.slice(0, 10)}`;
  let near = memo.get(key);
  if (near === undefined) {
    const resolved = Info.normalizeZone(zone);
    const noon = Date.parse(`${wallClock.slice(0, 10)}T12:00:00Z`);
    near =
      resolved.isValid && !Number.isNaN(noon) && resolved.offset(noon - 2 * DAY) !== resolved.offset(noon + 2 * DAY);
    memo.set(key, near);
  }
  return near;
}

/** The wall clocks a row's instants are read from. */
const wallClocksOf = (row: Row) => [
  row.startLocal,
  row.endLocal,
  ...(row.originalStartLocal ? [row.originalStartLocal] : []),
];

/** A single event's (or an exception's) times, if certainly wrong: read again from its wall clocks. */
function singleFix(row: Row): Fix | 'master' | null {
  const skipped =
    wallClockKind(row.startLocal, row.timezone) === 'skipped' ||
    wallClockKind(row.endLocal, row.timezone) === 'skipped';
  if (!skipped && row.endsAt >= row.startsAt) return null;
  if (row.isSeriesMaster) return 'master';
  return occurrenceTimes({ ...row, allDay: false }, row.startLocal);
}

/** The columns of `row` that differ from `wanted`. */
function changed(row: Row, wanted: Fix): Fix {
  const fix: Fix = {};
  for (const [name, value] of Object.entries(wanted) as Array<[keyof Fix, string | Date]>) {
    const current = row[name];
    const same =
      value instanceof Date ? current instanceof Date && current.getTime() === value.getTime() : current === value;
    if (!same) (fix as Record<string, unknown>)[name] = value;
  }
  return fix;
}

/** What a row needs, given its series' master (for occurrences); null when it is in line. */
function fixOf(row: Row, master: SeriesClock | undefined): Fix | 'master' | null {
  if (row.recurringEventId === null) return singleFix(row);
  // An occurrence of a master gone, or in another zone (a sync under way replaces it): the sync's to deal with.
  if (
    !master ||
    !row.originalStartLocal ||
    (!row.detached && (master.timezone !== row.timezone || master.allDay !== row.allDay))
  )
    return null;
  const wanted: Fix = { originalStartsAt: instantOf(row.originalStartLocal, master.timezone) };
  if (!row.detached) Object.assign(wanted, occurrenceTimes(master, row.originalStartLocal));
  else {
    const own = singleFix(row);
    if (own && own !== 'master') Object.assign(wanted, own);
  }
  const fix = changed(row, wanted);
  return Object.keys(fix).length ? fix : null;
}

/** Writes the fixes of one page, WRITES_PER_TRANSACTION rows a transaction; answers how many rows were written. */
async function writeFixes(db: Db, fixes: Array<{ row: Row; fix: Fix }>, logger: Logger | undefined): Promise<number> {
  let written = 0;
  for (let i = 0; i < fixes.length; i += WRITES_PER_TRANSACTION) {
    written += await db.$transaction(async (tx) => {
      let count = 0;
      for (const { row, fix } of fixes.slice(i, i + WRITES_PER_TRANSACTION)) {
        const data = { ...fix };
        if (data.originalStartsAt && row.recurringEventId !== null) {
          const taken = await tx.event.findFirst({
            where: {
              recurringEventId: row.recurringEventId,
              originalStartsAt: data.originalStartsAt,
              id: { not: row.id },
            },
            select: { id: true },
          });
          if (taken) {
            // Two rows of one series for one instant: the series' next sync keeps one (by the rule), not this repair.
            logger?.warn(
              { eventId: row.id, otherId: taken.id },
              'clock repair: another occurrence of the series has this original start; left for its next sync',
            );
            delete data.originalStartsAt;
          }
        }
        if (!Object.keys(data).length) continue;
        // Only if the row is as it was read: a write of it since then (another process serving) is left alone.
        const { count: updated } = await tx.event.updateMany({
          where: {
            id: row.id,
            startLocal: row.startLocal,
            endLocal: row.endLocal,
            startsAt: row.startsAt,
            endsAt: row.endsAt,
            originalStartsAt: row.originalStartsAt,
          },
          data,
        });
        count += updated;
      }
      return count;
    });
  }
  return written;
}

/**
 * Brings every event's stored instants in line with its wall clocks under the clock rule, as described above. Reads
 * the events in pages by ID, looks closer only at rows with a wall clock near one of their zone's changes of offset
 * (or an end before the start), and writes the rows that differ.
 */
export async function repairClockRule(db: Db, logger?: Logger): Promise<ClockRepairSummary> {
  const summary: ClockRepairSummary = { examined: 0, repaired: 0, mastersLeft: [] };
  const memo = new Map<string, boolean>();
  for (let after = 0; ; ) {
    const rows: Row[] = await db.event.findMany({
      where: { id: { gt: after } },
      orderBy: { id: 'asc' },
      take: PAGE_ROWS,
      select: columns,
    });
    if (!rows.length) break;
    after = rows.at(-1)!.id;
    summary.examined += rows.length;
    const candidates = rows.filter(
      (row) =>
        row.endsAt < row.startsAt ||
        wallClocksOf(row).some((wallClock) => nearTransition(memo, row.timezone, wallClock)),
    );
    if (!candidates.length) continue;
    const masterIds = [...new Set(candidates.map((row) => row.recurringEventId).filter((id) => id !== null))];
    const masters = new Map(
      (
        await db.event.findMany({
          where: { id: { in: masterIds } },
          select: { id: true, startLocal: true, endLocal: true, timezone: true, allDay: true },
        })
      ).map((m) => [m.id, m]),
    );
    const fixes: Array<{ row: Row; fix: Fix }> = [];
    for (const row of candidates) {
      const fix = fixOf(row, row.recurringEventId === null ? undefined : masters.get(row.recurringEventId));
      if (fix === 'master') summary.mastersLeft.push(row.id);
      else if (fix) fixes.push({ row, fix });
    }
    summary.repaired += await writeFixes(db, fixes, logger);
  }
  if (summary.mastersLeft.length) {
    logger?.warn(
      { eventIds: summary.mastersLeft },
      "clock repair: series masters whose start or end the zone skips were left as they are (their wall-clock start is the rule's)",
    );
  }
  return summary;
}
