// The times of an event read from its wall clocks by the clock rule (src/time/dates.ts): for occurrences of a series
// (src/graphql/events/series.ts) and for the repair of rows written before the rule (src/db/clock-repair.ts).
import { readWallClockIn, toWallClock } from './dates.js';

/** What an occurrence's times depend on: its series' wall-clock start and end (their length), zone and all-day flag. */
export interface SeriesClock {
  startLocal: string;
  endLocal: string;
  timezone: string;
  allDay: boolean;
}

/** A wall clock's fields as a floating instant (ms), for arithmetic on wall clocks without parsing a format. */
export function floatingMs(wallClock: string): number {
  const date = new Date(0);
  date.setUTCFullYear(+wallClock.slice(0, 4), +wallClock.slice(5, 7) - 1, +wallClock.slice(8, 10));
  date.setUTCHours(+wallClock.slice(11, 13), +wallClock.slice(14, 16), +wallClock.slice(17, 19));
  return date.getTime();
}
export const wallClockOfFloating = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** The instant of a wall clock in `zone`, by the clock rule. */
export function instantOf(wallClock: string, zone: string): Date {
  return readWallClockIn(wallClock, zone)!.moment.toJSDate();
}

/**
 * An occurrence's times: its local start as the rule gave it, and the master's wall-clock length after it, each an
 * instant by the clock rule (a repeated hour is its first instant, a skipped one moves forward by the gap). A start
 * moved forward moves its end as far, so the occurrence keeps its length (as a single event's start does); the local
 * times are those of the instants (02:30 skipped → 03:30). All-day occurrences keep their dates.
 */
export function occurrenceTimes(master: SeriesClock, startLocal: string) {
  const length = floatingMs(master.endLocal) - floatingMs(master.startLocal);
  const endLocal = wallClockOfFloating(floatingMs(startLocal) + length);
  const start = readWallClockIn(startLocal, master.timezone)!;
  const end = readWallClockIn(endLocal, master.timezone)!;
  const endsAt = end.moment.plus({ milliseconds: Math.max(0, start.movedForward - end.movedForward) });
  return {
    startLocal: master.allDay ? startLocal : toWallClock(start.moment),
    endLocal: master.allDay ? endLocal : toWallClock(endsAt),
    startsAt: start.moment.toJSDate(),
    endsAt: endsAt.toJSDate(),
  };
}
