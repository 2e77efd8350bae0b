import { abbreviationAt, fromWallClock } from '../time/dates.js';
import { html, type Html } from './html.js';

// An event's dates as people read them, in the event's own zone with its abbreviation (`CET`, `UTC+2`).

export interface EventTimes {
  allDay: boolean;
  startsAtLocal: string;
  endsAtLocal: string;
  timezone: string;
  timezoneAbbreviation: string;
}

const DAY = 'cccc d LLLL yyyy';
const TIME = 'HH:mm';

/** `<time>` carrying the exact instant (with its offset) for machines, and the local reading for people. */
function timeElement(wallClock: string, zone: string, text: string): Html {
  const moment = fromWallClock(wallClock, zone);
  return html`<time datetime="${moment.toISO({ suppressMilliseconds: true }) ?? ''}">${text}</time>`;
}

/** `Tuesday 15 January 2030, 10:00 – 12:00 CET`, `… 22:00 – Wednesday 16 January 2030, 02:00 CET`, or whole days. */
export function eventWhen(event: EventTimes): Html {
  const { timezone: zone } = event;
  const start = fromWallClock(event.startsAtLocal, zone).setLocale('en-GB');
  const end = fromWallClock(event.endsAtLocal, zone).setLocale('en-GB');
  const sameDay = start.hasSame(end, 'day');
  if (event.allDay) {
    const first = timeElement(event.startsAtLocal, zone, start.toFormat(DAY));
    return sameDay ? first : html`${first} – ${timeElement(event.endsAtLocal, zone, end.toFormat(DAY))}`;
  }
  const startAbbreviation = event.timezoneAbbreviation;
  const endAbbreviation = abbreviationAt(zone, event.endsAtLocal);
  const startText = `${start.toFormat(`${DAY}, ${TIME}`)}${startAbbreviation === endAbbreviation ? '' : ` ${startAbbreviation}`}`;
  const endText = `${end.toFormat(sameDay ? TIME : `${DAY}, ${TIME}`)} ${endAbbreviation}`;
  return html`${timeElement(event.startsAtLocal, zone, startText)} – ${timeElement(event.endsAtLocal, zone, endText)}`;
}

/** The heading of a day in the month view: `Tuesday 15 January 2030`. */
export function dayHeading(day: string): string {
  return fromWallClock(`${day} 00:00:00`, 'UTC').setLocale('en-GB').toFormat(DAY);
}
