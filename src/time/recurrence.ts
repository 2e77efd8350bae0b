// RFC 5545 recurrence: reading the lines a client sends (RRULE, EXDATE, RDATE) and expanding them to local starts.
//
// Expansion runs in floating (wall-clock) time: the rule sees the event's local start as if it were UTC, and each
// local start it yields becomes an instant in the event's zone afterwards (luxon). So a weekly 10:00 Europe/Berlin
// event stays at 10:00 across daylight-saving changes, and an all-day series stays on its dates.
import rrule, { type Options as RRuleOptions, type RRule as RRuleType } from 'rrule';
import { DateTime } from 'luxon';
import { canonicalTimeZone } from '../config.js';
import { fromWallClock, lastWallClock, WALL_CLOCK_FORMAT, withinYears, YEARS } from './dates.js';

const { RRule } = rrule;

/** Occurrences a series may have: COUNT above it is refused, and no more rows than this are ever materialised. */
export const MAX_SERIES_OCCURRENCES = 10_000;
/**
 * How many steps of its frequency a rule is searched from the series' start (INTERVAL steps count as one): its
 * occurrences are those found there, at most MAX_SERIES_OCCURRENCES. Each bound costs rrule about the same (some
 * 50 ms at most, when nothing matches): a yearly step examines 366 days, a daily one one day. A plain daily or weekly
 * rule reaches MAX_SERIES_OCCURRENCES at its last step.
 */
export const SEARCH_STEPS: Record<string, { steps: number; unit: string }> = {
  DAILY: { steps: 10_000, unit: 'days' },
  WEEKLY: { steps: 10_000, unit: 'weeks' },
  MONTHLY: { steps: 5_000, unit: 'months' },
  YEARLY: { steps: 1_000, unit: 'years' },
};
/** Lines in `recurrence`, and dates across its EXDATE and RDATE lines. */
export const MAX_RECURRENCE_LINES = 100;
export const MAX_RECURRENCE_DATES = 1_000;
/** EXDATE or RDATE values written to a line, so that MAX_RECURRENCE_DATES fit in MAX_RECURRENCE_LINES lines. */
export const DATES_PER_LINE = Math.ceil(MAX_RECURRENCE_DATES / MAX_RECURRENCE_LINES);

const SUPPORTED_FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'];
const WEEKDAY = '(MO|TU|WE|TH|FR|SA|SU)';
const distinct = (value: string) => new Set(value.split(',')).size === value.split(',').length;
const numberList = (min: number, max: number, signed: boolean) => (value: string) =>
  distinct(value) &&
  value.split(',').every((item) => {
    if (!/^[+-]?\d{1,3}$/.test(item)) return false;
    const n = Number(item);
    if (!signed && /^[+-]/.test(item)) return false;
    return Math.abs(n) >= min && Math.abs(n) <= max;
  });

/** Each RRULE part this service accepts, and what its value must look like. */
const RULE_PARTS: Record<string, (value: string) => boolean> = {
  FREQ: (value) => SUPPORTED_FREQUENCIES.includes(value),
  UNTIL: (value) => /^\d{8}(T\d{6}Z?)?$/.test(value),
  COUNT: (value) => /^\d{1,9}$/.test(value) && Number(value) >= 1,
  INTERVAL: (value) => /^\d{1,4}$/.test(value) && Number(value) >= 1,
  BYSECOND: (value) =>
    distinct(value) && value.split(',').every((item) => /^\d{1,2}$/.test(item) && Number(item) <= 60),
  BYMINUTE: (value) =>
    distinct(value) && value.split(',').every((item) => /^\d{1,2}$/.test(item) && Number(item) <= 59),
  BYHOUR: (value) => distinct(value) && value.split(',').every((item) => /^\d{1,2}$/.test(item) && Number(item) <= 23),
  BYDAY: (value) =>
    distinct(value) &&
    value.split(',').every((item) => {
      const match = new RegExp(`^([+-]?\\d{1,2})?${WEEKDAY}$`).exec(item);
      return (
        match !== null &&
        (match[1] === undefined || (Math.abs(Number(match[1])) >= 1 && Math.abs(Number(match[1])) <= 53))
      );
    }),
  BYMONTHDAY: numberList(1, 31, true),
  BYYEARDAY: numberList(1, 366, true),
  BYWEEKNO: numberList(1, 53, true),
  BYMONTH: numberList(1, 12, false),
  BYSETPOS: numberList(1, 366, true),
  WKST: (value) => new RegExp(`^${WEEKDAY}$`).test(value),
};

export interface Recurrence {
  /** The lines as stored: property names upper-cased, otherwise as sent. */
  lines: string[];
  /** The RRULE's parts, or null for a series made of RDATEs only. */
  rule: Record<string, string> | null;
  /** The RRULE's UNTIL as a wall clock in the event's zone (a DATE bound: the end of that day). */
  untilLocal: string | null;
  /** Wall clocks in the event's zone (`YYYY-MM-DD HH:MM:SS`); dates only (`YYYY-MM-DD`) for VALUE=DATE. */
  exdates: string[];
  rdates: string[];
}

export class RecurrenceError extends Error {}

const fail = (message: string): never => {
  throw new RecurrenceError(message);
};

function readRule(value: string): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const part of value.split(';')) {
    const [name, partValue, ...rest] = part.split('=');
    const key = name.toUpperCase();
    if (!partValue || rest.length) fail(`RRULE part "${part}" is not NAME=VALUE`);
    if (key === 'FREQ' && ['SECONDLY', 'MINUTELY', 'HOURLY'].includes(partValue.toUpperCase())) {
      fail(
        `FREQ=${partValue.toUpperCase()} is not supported: a series repeats at most daily (use BYHOUR for several times a day)`,
      );
    }
    if (!(key in RULE_PARTS)) fail(`RRULE part ${key} is not supported`);
    if (key in parts) fail(`RRULE part ${key} is given twice`);
    if (!RULE_PARTS[key](partValue.toUpperCase())) fail(`RRULE part ${key}=${partValue} is not valid`);
    parts[key] = partValue.toUpperCase();
  }
  if (!parts.FREQ) fail('RRULE needs FREQ');
  if (parts.COUNT && parts.UNTIL) fail('RRULE must not have both COUNT and UNTIL');
  if (parts.COUNT && Number(parts.COUNT) > MAX_SERIES_OCCURRENCES)
    fail(`COUNT must be at most ${MAX_SERIES_OCCURRENCES}`);
  return parts;
}

const outsideYears = (value: string) =>
  `"${value}" is not in the years ${YEARS.first} to ${YEARS.last} (in the event's time zone and in UTC)`;

/**
 * A DATE-TIME or DATE value of EXDATE/RDATE/UNTIL as a wall clock in `zone` (a date stays a date). Dates must lie in
 * the years the service writes; an UNTIL past them (`UNTIL=99991231T235959Z` east of UTC) ends with them instead.
 */
function localValue(value: string, tzid: string | undefined, zone: string, isDate: boolean, isUntil = false): string {
  const date = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  if (date) {
    if (Number(date[1]) < YEARS.first) fail(outsideYears(value));
    return `${date[1]}-${date[2]}-${date[3]}`;
  }
  const time = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/.exec(value);
  if (!time || isDate) return fail(`"${value}" is not an RFC 5545 ${isDate ? 'DATE' : 'DATE-TIME'}`);
  const [, y, mo, d, h, mi, s, utc] = time;
  const from = utc ? 'utc' : (tzid ?? zone);
  // Read by the clock rule (src/time/dates.ts), as the event's own times are.
  const typed = `${y}-${mo}-${d} ${h}:${mi}:${s}`;
  const moment = fromWallClock(typed, from);
  if (!moment.isValid) return fail(`"${value}"${tzid ? ` in ${tzid}` : ''} is not a valid date and time`);
  const inZone = moment.setZone(zone);
  // A wall clock of the event's own zone stays as written, as the rule's starts do: an EXDATE of a start the zone
  // skips (02:30) must match it, not the 03:30 it becomes.
  const ownZone = !utc && (tzid === undefined || canonicalTimeZone(tzid) === zone);
  if (withinYears(inZone)) return ownZone ? typed : inZone.toFormat(WALL_CLOCK_FORMAT);
  if (isUntil && (inZone.year > YEARS.last || inZone.toUTC().year > YEARS.last)) return lastWallClock(zone);
  return fail(outsideYears(value));
}

/** `EXDATE;TZID=Europe/Berlin:20270415T100000,…` → wall clocks in the event's zone. */
function readDates(name: string, params: string[], value: string, zone: string): string[] {
  let tzid: string | undefined;
  let isDate = false;
  for (const param of params) {
    const [key, paramValue] = param.split('=');
    if (key.toUpperCase() === 'TZID' && paramValue) {
      if (!DateTime.now().setZone(paramValue).isValid) fail(`${name}: TZID=${paramValue} is not a known time zone`);
      tzid = paramValue;
    } else if (key.toUpperCase() === 'VALUE' && ['DATE', 'DATE-TIME'].includes(paramValue?.toUpperCase())) {
      isDate = paramValue.toUpperCase() === 'DATE';
    } else {
      fail(`${name}: parameter ${param} is not supported`);
    }
  }
  return value.split(',').map((item) => localValue(item.trim(), tzid, zone, isDate));
}

/**
 * Reads the `recurrence` lines of an event in `zone`. Supported: one RRULE (FREQ DAILY to YEARLY and the BY… parts),
 * EXDATE and RDATE with TZID, UTC or DATE values. Anything else is refused with a message naming it.
 */
export function parseRecurrence(input: string[], zone: string): Recurrence {
  if (input.length > MAX_RECURRENCE_LINES) fail(`at most ${MAX_RECURRENCE_LINES} lines`);
  const recurrence: Recurrence = { lines: [], rule: null, untilLocal: null, exdates: [], rdates: [] };
  for (const raw of input) {
    const line = raw.trim();
    const colon = line.indexOf(':');
    if (colon < 1) fail(`"${line.slice(0, 80)}" is not an RFC 5545 line (NAME:VALUE)`);
    const [name, ...params] = line.slice(0, colon).split(';');
    const property = name.toUpperCase();
    const value = line.slice(colon + 1);
    if (property === 'RRULE') {
      if (params.length) fail('RRULE takes no parameters');
      if (recurrence.rule) fail('only one RRULE is supported');
      recurrence.rule = readRule(value);
      if (recurrence.rule.UNTIL) {
        const local = localValue(recurrence.rule.UNTIL, undefined, zone, false, true);
        recurrence.untilLocal = local.length === 10 ? `${local} 23:59:59` : local;
      }
    } else if (property === 'EXDATE' || property === 'RDATE') {
      (property === 'EXDATE' ? recurrence.exdates : recurrence.rdates).push(
        ...readDates(property, params, value, zone),
      );
    } else {
      fail(`${property} is not supported (only RRULE, EXDATE and RDATE)`);
    }
    recurrence.lines.push(`${[property, ...params].join(';')}:${value}`);
  }
  if (recurrence.exdates.length + recurrence.rdates.length > MAX_RECURRENCE_DATES)
    fail(`at most ${MAX_RECURRENCE_DATES} EXDATE and RDATE values`);
  if (!recurrence.rule && !recurrence.rdates.length) fail('needs an RRULE or an RDATE');
  return recurrence;
}

/** A wall clock as the floating Date rrule computes with (its UTC fields are the local fields). */
const floating = (wallClock: string) => new Date(`${wallClock.replace(' ', 'T')}Z`);
const wallClockOf = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');

/** The iteration of a rule ran out of its bound (see boundedRule). */
class SearchExhausted extends Error {}

/**
 * An RRule whose iteration stops after SEARCH_STEPS steps of its frequency, whatever it finds. rrule stops at UNTIL
 * only when it meets a match past it, so a rule matching no date (31 February) would step through every day to the
 * year 9999 (15 seconds); counting the steps bounds the work by a number, not a clock. rrule 2.8.1 (pinned) reads
 * `options.freq` once a step (DateTime.add), which is where they are counted; test/security-audit-2-series.test.ts
 * fails if that stops bounding it.
 */
function boundedRule(options: Partial<RRuleOptions>, freq: string): RRuleType {
  const rule = new RRule(options);
  // Two reads come before the first step, and the step that finds a match past UNTIL still counts.
  const steps = SEARCH_STEPS[freq].steps + 3;
  const counted = Object.create(rule.options);
  const frequency = rule.options.freq;
  let taken = 0;
  Object.defineProperty(counted, 'freq', {
    enumerable: true,
    get: () => {
      if (++taken > steps) throw new SearchExhausted();
      return frequency;
    },
  });
  rule.options = counted;
  return rule;
}

/**
 * The rule's matches in order (floating dates) while `wanted` says so, within its bounded iteration; `exhausted`: the
 * iteration reached its bound (the rule has no match after those found).
 */
function boundedMatches(options: Partial<RRuleOptions>, freq: string, wanted: (date: Date, index: number) => boolean) {
  const found: Date[] = [];
  try {
    boundedRule(options, freq).all((date: Date, index: number) => {
      if (!wanted(date, index)) return false;
      found.push(date);
      return true;
    });
    return { found, exhausted: false };
  } catch (error) {
    if (!(error instanceof SearchExhausted)) throw error;
    return { found, exhausted: true };
  }
}

/** The RRULE's parts as rrule options, without COUNT and UNTIL (the wrapper applies those). */
function ruleOptions(rule: Record<string, string>): Partial<RRuleOptions> {
  const { UNTIL: _until, COUNT: _count, ...parts } = rule;
  return RRule.parseString(
    Object.entries(parts)
      .map(([k, v]) => `${k}=${v}`)
      .join(';'),
  );
}

/**
 * Refuses a rule that matches no date in its search (31 February, 31 April, day 366 in January, BYSETPOS past the
 * dates of each period…): its series would be its start alone, and each expansion would search to the bound.
 */
export function assertRuleMatches(recurrence: Recurrence, dtstartLocal: string): void {
  if (!recurrence.rule) return;
  const options = { ...ruleOptions(recurrence.rule), dtstart: floating(dtstartLocal) };
  const { found } = boundedMatches(options, recurrence.rule.FREQ, (_date, index) => index === 0);
  if (!found.length) {
    const { steps, unit } = SEARCH_STEPS[recurrence.rule.FREQ];
    fail(
      `the rule matches no date in the ${steps.toLocaleString('en')} ${unit} searched from the event's start (does it ask for a day that does not exist, such as 31 February?)`,
    );
  }
}

export interface Expansion {
  /** Local starts (`YYYY-MM-DD HH:MM:SS`) before `until`, in order, at most `limit`. */
  starts: string[];
  /** Whether the series has no start at or after `until` (or the limit was not what stopped it). */
  complete: boolean;
}

/**
 * The series' local starts before the local wall clock `until`: DTSTART first (RFC 5545 counts it as the first
 * instance even off the rule, as ical.js and calendar clients do), then the rule's (those found in SEARCH_STEPS) and
 * the RDATEs, less the EXDATEs.
 */
export function expandRecurrence(
  recurrence: Recurrence,
  dtstartLocal: string,
  allDay: boolean,
  until: string,
  limit: number,
): Expansion {
  const start = floating(dtstartLocal);
  const end = floating(until);
  const timeOfDay = dtstartLocal.slice(11);
  const asStart = (value: string) =>
    value.length === 10
      ? `${value} ${allDay ? '00:00:00' : timeOfDay}`
      : allDay
        ? `${value.slice(0, 10)} 00:00:00`
        : value;
  const starts = new Set<string>([dtstartLocal]);
  let ruleComplete = true;
  if (recurrence.rule) {
    const count = recurrence.rule.COUNT ? Number(recurrence.rule.COUNT) : undefined;
    const options = { ...ruleOptions(recurrence.rule), dtstart: start };
    const ruleUntil = recurrence.untilLocal ? floating(recurrence.untilLocal) : undefined;
    const bound = ruleUntil && ruleUntil < end ? ruleUntil : new Date(end.getTime() - 1);
    const wanted = Math.min(limit + 1, count ?? Infinity);
    const { found, exhausted } = boundedMatches(
      options,
      recurrence.rule.FREQ,
      (date, index) => date <= bound && index < wanted,
    );
    // DTSTART off the rule is an occurrence all the same and counts in COUNT (RFC 5545): one rule date fewer.
    const onRule = found[0]?.getTime() === start.getTime();
    const ruleCount = count === undefined ? undefined : onRule ? count : count - 1;
    const generated = ruleCount === undefined ? found : found.slice(0, ruleCount);
    for (const date of generated) starts.add(wallClockOf(date));
    const reachedCount = ruleCount !== undefined && generated.length >= ruleCount;
    ruleComplete = reachedCount || exhausted || Boolean(ruleUntil && ruleUntil < end);
    if (generated.length > limit) ruleComplete = false;
  }
  for (const rdate of recurrence.rdates) starts.add(asStart(rdate));
  const excludedDays = new Set(recurrence.exdates.filter((value) => value.length === 10));
  const excluded = new Set(recurrence.exdates.filter((value) => value.length > 10).map(asStart));
  const listed = [...starts]
    .filter((local) => local < until && !excluded.has(local) && !excludedDays.has(local.slice(0, 10)))
    .sort();
  const laterDates = recurrence.rdates.some((rdate) => asStart(rdate) >= until);
  return { starts: listed.slice(0, limit), complete: ruleComplete && !laterDates && listed.length <= limit };
}

/** An EXDATE or RDATE line for one local start of a series in `zone` (all-day: a DATE; fixed offsets: UTC). */
export function dateLine(property: 'EXDATE' | 'RDATE', local: string, zone: string, allDay: boolean): string {
  if (allDay) return `${property};VALUE=DATE:${local.slice(0, 10).replace(/-/g, '')}`;
  if (/^UTC([+-]|$)/.test(zone)) {
    return `${property}:${DateTime.fromSQL(local, { zone }).toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'")}`;
  }
  return `${property};TZID=${zone}:${local.replace(/[-:]/g, '').replace(' ', 'T')}`;
}

/** The RRULE ended just before a local start: UNTIL one second earlier, as UTC (RFC 5545: UTC when DTSTART has a zone). */
export function untilBefore(lines: string[], localStart: string, zone: string, allDay: boolean): string[] {
  const before = DateTime.fromSQL(localStart, { zone }).minus({ seconds: 1 });
  const until = allDay ? before.toFormat('yyyyMMdd') : before.toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'");
  return lines.map((line) => {
    if (!/^RRULE:/i.test(line)) return line;
    const parts = line
      .slice(6)
      .split(';')
      .filter((part) => !/^(UNTIL|COUNT)=/i.test(part));
    return `RRULE:${[...parts, `UNTIL=${until}`].join(';')}`;
  });
}

/**
 * EXDATE or RDATE lines for many local starts of one series, DATES_PER_LINE values to a line (they share the zone, so
 * the line's parameters): a series of up to MAX_RECURRENCE_DATES dates fits in MAX_RECURRENCE_LINES lines.
 */
export function dateLines(property: 'EXDATE' | 'RDATE', locals: string[], zone: string, allDay: boolean): string[] {
  const lines: string[] = [];
  for (let i = 0; i < locals.length; i += DATES_PER_LINE) {
    const single = locals.slice(i, i + DATES_PER_LINE).map((local) => dateLine(property, local, zone, allDay));
    const head = single[0].slice(0, single[0].indexOf(':') + 1);
    lines.push(head + single.map((line) => line.slice(head.length)).join(','));
  }
  return lines;
}

/**
 * The lines with one more EXDATE or RDATE value for a local start: added to the last line of that property and the
 * same parameters while it holds fewer than DATES_PER_LINE values, so a series whose single occurrences are deleted
 * one by one keeps within MAX_RECURRENCE_LINES until it reaches MAX_RECURRENCE_DATES.
 */
export function withDate(
  lines: readonly string[],
  property: 'EXDATE' | 'RDATE',
  local: string,
  zone: string,
  allDay: boolean,
): string[] {
  const line = dateLine(property, local, zone, allDay);
  const head = line.slice(0, line.indexOf(':') + 1);
  let at = -1;
  lines.forEach((existing, index) => {
    if (existing.startsWith(head) && existing.split(',').length < DATES_PER_LINE) at = index;
  });
  if (at < 0) return [...lines, line];
  return lines.map((existing, index) => (index === at ? `${existing},${line.slice(head.length)}` : existing));
}
