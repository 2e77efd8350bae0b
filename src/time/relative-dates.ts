/**
 * Relative dates as PHP's `strtotime` reads them (The Events Calendar passes REST date parameters to it), following
 * the rules of PHP's "Relative Formats" documentation and its parser (timelib):
 *
 * - Tokens are read left to right. `today`/`midnight`, `noon`, `tomorrow`, `yesterday` and weekday names reset the
 *   time of day to 00:00:00 where they stand, so `tomorrow 9am` is 09:00 but `9am tomorrow` is 00:00, as in PHP.
 *   A second time of day (`noon 4pm`) is no date.
 * - `monday` / `this monday`: that weekday, today included; `next monday`: the first Monday after today (on a Monday,
 *   a week ahead; on a Saturday, two days ahead); `last monday` / `previous monday`: the last Monday before today.
 * - `+1 day`, `-2 weeks`, `3 months`, `next week`, `last year`, `2 days ago`: units added to the wall clock (month
 *   overflow as PHP: January 31 + 1 month is March 3 or 2); a weekday moves first, units after it.
 * - `first day of` / `last day of` (`first day of next month`) set the day of the month after the units.
 *
 * Everything is wall-clock arithmetic in the zone of the caller's `now`; the caller reads the result in its zone.
 */

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const WEEKDAYS: Record<string, number> = {
  sunday: 0,
  sun: 0,
  monday: 1,
  mon: 1,
  tuesday: 2,
  tue: 2,
  tues: 2,
  wednesday: 3,
  wed: 3,
  thursday: 4,
  thu: 4,
  thur: 4,
  thurs: 4,
  friday: 5,
  fri: 5,
  saturday: 6,
  sat: 6,
};

type Unit = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second';
const UNITS: Record<string, [Unit, number]> = {
  sec: ['second', 1],
  second: ['second', 1],
  min: ['minute', 1],
  minute: ['minute', 1],
  hour: ['hour', 1],
  day: ['day', 1],
  week: ['day', 7],
  fortnight: ['day', 14],
  forthnight: ['day', 14],
  month: ['month', 1],
  year: ['year', 1],
};

/** PHP's relative words and the amount each stands for (`third friday`: the Friday two weeks after the next one). */
const RELATIVE_WORDS: Record<string, number> = {
  this: 0,
  next: 1,
  last: -1,
  previous: -1,
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
};

interface Reading {
  time: { hour: number; minute: number; second: number } | null;
  timeSet: boolean;
  relative: Record<Unit, number>;
  weekday: { day: number; includesToday: boolean } | null;
  dayOfMonth: 'first' | 'last' | null;
}

const unitOf = (word: string): [Unit, number] | undefined => {
  const singular = word.replace(/s$/, '');
  return Object.hasOwn(UNITS, singular) ? UNITS[singular] : undefined;
};

const TIME_OF_DAY = /^(\d{1,2})(?:[:.](\d{2}))?(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/;

/** `4pm`, `4:30 pm`, `16:00`, `16:00:05`; a bare number is no time (it is an amount). */
function timeOfDay(token: string): { hour: number; minute: number; second: number } | null {
  const match = TIME_OF_DAY.exec(token);
  if (!match || (!match[2] && !match[4])) return null;
  let hour = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  const second = Number(match[3] ?? 0);
  if (minute > 59 || second > 59) return null;
  if (match[4]) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (match[4].startsWith('p') ? 12 : 0);
  } else if (hour > 23) return null;
  return { hour, minute, second };
}

/** Splits into words, keeping `4 pm` and `+ 1` together. */
function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/(\d)\s+(am|pm|a\.m\.|p\.m\.)(?=\s|$)/g, '$1$2')
    .replace(/([+-])\s+(?=\d)/g, '$1')
    .replace(/,/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** Reads the text into PHP's relative parts, or null when a word is not part of the relative grammar. */
function read(text: string): Reading | null {
  const reading: Reading = {
    time: null,
    timeSet: false,
    relative: { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 },
    weekday: null,
    dayOfMonth: null,
  };
  const resetTime = () => {
    reading.time = { hour: 0, minute: 0, second: 0 };
    reading.timeSet = false;
  };
  const words = tokens(text);
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const next = words[index + 1];
    if (word === 'now') continue;
    if (word === 'today' || word === 'midnight') resetTime();
    else if (word === 'noon') {
      resetTime();
      reading.time = { hour: 12, minute: 0, second: 0 };
      reading.timeSet = true;
    } else if (word === 'tomorrow' || word === 'yesterday') {
      resetTime();
      reading.relative.day = word === 'tomorrow' ? 1 : -1;
    } else if ((word === 'first' || word === 'last') && next === 'day' && words[index + 2] === 'of') {
      reading.dayOfMonth = word;
      index += 2;
    } else if (Object.hasOwn(WEEKDAYS, word)) {
      resetTime();
      reading.weekday = { day: WEEKDAYS[word]!, includesToday: true };
    } else if (
      Object.hasOwn(RELATIVE_WORDS, word) &&
      next !== undefined &&
      (Object.hasOwn(WEEKDAYS, next) || unitOf(next))
    ) {
      const amount = RELATIVE_WORDS[word]!;
      if (Object.hasOwn(WEEKDAYS, next)) {
        resetTime();
        reading.relative.day += (amount > 0 ? amount - 1 : amount) * 7;
        reading.weekday = { day: WEEKDAYS[next]!, includesToday: word === 'this' };
      } else {
        const [unit, size] = unitOf(next)!;
        reading.relative[unit] += amount * size;
      }
      index += 1;
    } else if (/^[+-]?\d+$/.test(word) && next !== undefined && unitOf(next)) {
      const [unit, size] = unitOf(next)!;
      reading.relative[unit] += Number(word) * size;
      index += 1;
    } else if (word === 'ago') {
      for (const unit of Object.keys(reading.relative) as Unit[]) reading.relative[unit] = -reading.relative[unit];
    } else {
      const time = timeOfDay(word);
      if (!time || reading.timeSet) return null;
      reading.time = time;
      reading.timeSet = true;
    }
  }
  return reading;
}

/** Whether the text is made of PHP relative-format words only (and so is read here, not as an absolute date). */
export function isRelativeDate(text: string): boolean {
  return read(text) !== null;
}

/** The wall-clock time the relative text names, counted from `now` (a wall clock), or null when it names none. */
export function resolveRelativeDate(text: string, now: WallClock): WallClock | null {
  const reading = read(text);
  if (!reading) return null;
  const time = reading.time ?? { hour: now.hour, minute: now.minute, second: now.second };
  let day = now.day;
  if (reading.weekday) day += weekdayShift(now, reading.weekday, reading.relative.day);
  const { relative } = reading;
  // Date.UTC normalises overflowing fields the way PHP does (2027-01-31 + 1 month = 2027-03-03).
  let moment = new Date(
    Date.UTC(
      now.year + relative.year,
      now.month - 1 + relative.month,
      day + relative.day,
      time.hour + relative.hour,
      time.minute + relative.minute,
      time.second + relative.second,
    ),
  );
  if (reading.dayOfMonth) {
    const first = reading.dayOfMonth === 'first';
    moment = new Date(
      Date.UTC(
        moment.getUTCFullYear(),
        moment.getUTCMonth() + (first ? 0 : 1),
        first ? 1 : 0,
        moment.getUTCHours(),
        moment.getUTCMinutes(),
        moment.getUTCSeconds(),
      ),
    );
  }
  if (Number.isNaN(moment.getTime())) return null;
  return {
    year: moment.getUTCFullYear(),
    month: moment.getUTCMonth() + 1,
    day: moment.getUTCDate(),
    hour: moment.getUTCHours(),
    minute: moment.getUTCMinutes(),
    second: moment.getUTCSeconds(),
  };
}

/** Days from `now` to the weekday, before the relative weeks are added (timelib's do_adjust_for_weekday). */
function weekdayShift(now: WallClock, weekday: { day: number; includesToday: boolean }, relativeDays: number): number {
  const today = new Date(Date.UTC(now.year, now.month - 1, now.day)).getUTCDay();
  let difference = weekday.day - today;
  const behaviour = weekday.includesToday ? 1 : 0;
  if ((relativeDays < 0 && difference < 0) || (relativeDays >= 0 && difference <= -behaviour)) difference += 7;
  return difference;
}
