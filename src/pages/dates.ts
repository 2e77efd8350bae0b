import { DateTime } from 'luxon';
import { abbreviationAt, fromWallClock } from '../time/dates.js';
import { html, type Html } from './html.js';

// An event's dates as people read them, in the event's own zone with its abbreviation (`CET`, `UTC+2`).

export interface EventTimes {
  allDay: boolean;
  startsAtLocal: string;
  endsAtLocal: string;
  /** The instants (ISO 8601): a wall clock the zone repeats names two of them, so times are shown from these. */
  startsAt: string;
  endsAt: string;
  timezone: string;
  timezoneAbbreviation: string;
}

const DAY = 'cccc d LLLL yyyy';
const TIME = 'HH:mm';

/** `<time>` carrying the exact instant (with its offset) for machines, and the local reading for people. */
function timeElement(moment: DateTime, text: string): Html {
  return html`<time datetime="${moment.toISO({ suppressMilliseconds: true }) ?? ''}">${text}</time>`;
}

/** `Tuesday 15 January 2030, 10:00 – 12:00 CET`, `… 22:00 – Wednesday 16 January 2030, 02:00 CET`, or whole days. */
export function eventWhen(event: EventTimes): Html {
  const { timezone: zone } = event;
  if (event.allDay) {
    // Whole days are dates: shown from the wall clocks, whatever instant a day's midnight is.
    const first = fromWallClock(event.startsAtLocal, zone).setLocale('en-GB');
    const last = fromWallClock(event.endsAtLocal, zone).setLocale('en-GB');
    const firstDay = timeElement(first, first.toFormat(DAY));
    return event.startsAtLocal.slice(0, 10) === event.endsAtLocal.slice(0, 10)
      ? firstDay
      : html`${firstDay} – ${timeElement(last, last.toFormat(DAY))}`;
  }
  const start = DateTime.fromISO(event.startsAt, { zone }).setLocale('en-GB');
  const end = DateTime.fromISO(event.endsAt, { zone }).setLocale('en-GB');
  const sameDay = start.hasSame(end, 'day');
  const startAbbreviation = event.timezoneAbbreviation;
  const endAbbreviation = abbreviationAt(zone, end.toJSDate());
  const startText = `${start.toFormat(`${DAY}, ${TIME}`)}${startAbbreviation === endAbbreviation ? '' : ` ${startAbbreviation}`}`;
  const endText = `${end.toFormat(sameDay ? TIME : `${DAY}, ${TIME}`)} ${endAbbreviation}`;
  return html`${timeElement(start, startText)} – ${timeElement(end, endText)}`;
}

/** The heading of a day in the month view: `Tuesday 15 January 2030`. */
export function dayHeading(day: string): string {
  return fromWallClock(`${day} 00:00:00`, 'UTC').setLocale('en-GB').toFormat(DAY);
}
