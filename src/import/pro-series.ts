// Recurring series of The Events Calendar Pro (legacy Pro): each occurrence is an event post of its own, and every
// occurrence but the first has `post_parent` = the first (the series' parent). TEC's REST API (v1) shows neither a
// rule nor a parent in an event, but its events list filters on `post_parent`: `events?post_parent=<id>` answers the
// series' other occurrences (its children). That is how the series are found here, in a bounded number of requests:
// occurrences share their parent's title, so only an event whose title another listed event has can be a parent, and
// each such group is asked, first start first, until its members are accounted for (a parent's children leave the
// group): one request a series, as a rule. A child retitled on the source is found all the same, in its parent's
// answer; the parents of series imported before are asked whatever their title.
//
// A series found is written the way a source that exposes its series gives it (src/import/series.ts): the parent as a
// series master whose `recurrence` gives its children's starts (Pro's own rule is not in the API; the dates it made
// are), as a rule with a regular step or as RDATEs, whichever is shorter; each child as the occurrence at its start.
import { DateTime } from 'luxon';
import { canonicalTimeZone } from '../config.js';
import { toWallClock } from '../time/dates.js';
import { dateLines, MAX_RECURRENCE_DATES, MAX_RECURRENCE_LINES, MAX_SERIES_OCCURRENCES } from '../time/recurrence.js';
import { asRecord, flag, remoteIdOf, text, type RemoteRecord } from './remote.js';

/** The events whose `post_parent` is `parentId`, every page; throws when the source cannot answer. */
export type ChildrenOf = (parentId: number) => Promise<unknown[]>;

/** Events of a group that could not be told apart (a `post_parent` request failed): not imported in this run. */
export interface UnresolvedGroup {
  records: RemoteRecord[];
  reason: string;
}

interface ProSeries {
  parent: RemoteRecord;
  children: RemoteRecord[];
}

interface Member {
  id: number;
  record: RemoteRecord;
  /** Sorts the members of a series by start (UTC when given: children may have their own zone). */
  order: string;
}

const WALL_CLOCK = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** A readable event (ID and start); records that cannot be read are left as they are, and reported when imported. */
function memberOf(item: unknown): Member | null {
  try {
    const record = asRecord(item);
    const order = text(record, 'utc_start_date') || text(record, 'start_date');
    return order ? { id: remoteIdOf(record), record, order } : null;
  } catch {
    return null;
  }
}

/** The record's ID on the source, or 0 (no record's) when it cannot be read. */
function idOf(item: unknown): number {
  try {
    return remoteIdOf(asRecord(item));
  } catch {
    return 0;
  }
}

const inStartOrder = (a: Member, b: Member) => a.order.localeCompare(b.order) || a.id - b.id;

/** The events sharing their title with another one, grouped by title, each group in start order. */
function candidateGroups(events: unknown[]): Member[][] {
  const byTitle = new Map<string, Member[]>();
  for (const event of events) {
    const member = memberOf(event);
    const title = member && typeof member.record.title === 'string' ? member.record.title : '';
    if (!member || title.trim() === '') continue;
    const group = byTitle.get(title);
    if (group) group.push(member);
    else byTitle.set(title, [member]);
  }
  return [...byTitle.values()].filter((group) => group.length > 1).map((group) => group.sort(inStartOrder));
}

async function childrenIn(childrenOf: ChildrenOf, parentId: number): Promise<Member[]> {
  return (await childrenOf(parentId)).map(memberOf).filter((child): child is Member => child !== null);
}

/**
 * Asks each candidate group for its series, as the module comment says: first the parents of series imported before
 * (each on its own: a parent retitled alone no longer shares its children's title), then the groups by title.
 */
async function findSeries(
  events: unknown[],
  childrenOf: ChildrenOf,
  knownParents: Set<number>,
): Promise<{ series: ProSeries[]; unresolved: UnresolvedGroup[] }> {
  const found = { series: [] as ProSeries[], unresolved: [] as UnresolvedGroup[] };
  const accounted = new Set<number>();
  const known = events
    .map(memberOf)
    .filter((member): member is Member => member !== null && knownParents.has(member.id));
  for (const group of [...known.map((member) => [member]), ...candidateGroups(events)]) {
    let open = group.filter((member) => !accounted.has(member.id));
    // A lone member left of a title group could be a parent only if every one of its children had been retitled: it
    // is not asked.
    while (open.length > (group.length === 1 ? 0 : 1)) {
      const [first] = open;
      let children: Member[];
      try {
        children = await childrenIn(childrenOf, first.id);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        found.unresolved.push({
          records: open.map((member) => member.record),
          reason: `could not ask the source whether it belongs to a series (${why})`,
        });
        break;
      }
      // A list that ignores `post_parent` answers everything, the event asked about too: no series can be told apart.
      if (children.some((child) => child.id === first.id)) return { series: [], unresolved: [] };
      accounted.add(first.id);
      for (const child of children) accounted.add(child.id);
      if (children.length)
        found.series.push({ parent: first.record, children: children.sort(inStartOrder).map((child) => child.record) });
      open = open.filter((member) => !accounted.has(member.id));
    }
  }
  return found;
}

interface Timing {
  zone: string;
  allDay: boolean;
}

/** The zone and all-day flag an event has here (its own zone, else the site's); unreadable ones fail when imported. */
function timingOf(record: RemoteRecord, siteZone: string): Timing {
  const zone =
    typeof record.timezone === 'string' && record.timezone !== '' ? canonicalTimeZone(record.timezone) : null;
  let allDay = false;
  try {
    allDay = flag(record, 'all_day') ?? false;
  } catch {
    // refused with its reason when it is imported
  }
  return { zone: zone ?? siteZone, allDay };
}

/** An event's start as a wall clock in its series' zone (an all-day series: the date, at midnight), or null. */
function startIn(record: RemoteRecord, series: Timing, siteZone: string): string | null {
  const local = typeof record.start_date === 'string' && WALL_CLOCK.test(record.start_date) ? record.start_date : null;
  if (series.allDay) return local && `${local.slice(0, 10)} 00:00:00`;
  if (local && timingOf(record, siteZone).zone === series.zone) return local;
  const utc =
    typeof record.utc_start_date === 'string' && WALL_CLOCK.test(record.utc_start_date) ? record.utc_start_date : null;
  const moment = utc ? DateTime.fromSQL(utc, { zone: 'utc' }).setZone(series.zone) : null;
  return moment?.isValid ? toWallClock(moment) : null;
}

const DAY_MS = 86_400_000;
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
/** Days from one wall clock's date to another's. */
const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to.slice(0, 10)}T00:00:00Z`) - Date.parse(`${from.slice(0, 10)}T00:00:00Z`)) / DAY_MS);
const plusDays = (wallClock: string, days: number) =>
  toWallClock(DateTime.fromSQL(wallClock, { zone: 'utc' }).plus({ days }));

/**
 * A rule for starts that mostly fall on a regular step after the first (the same time of day, every N days): the
 * steps without a start as EXDATEs, the starts off the step as RDATEs. Null when no start is on a step.
 */
function steppedRule(first: string, starts: string[], { zone, allDay }: Timing): string[] | null {
  const onStep = (start: string) => daysBetween(first, start) > 0 && (allDay || start.slice(11) === first.slice(11));
  const offsets = starts.filter(onStep).map((start) => daysBetween(first, start));
  if (!offsets.length) return null;
  const step = offsets.reduce(gcd);
  const count = Math.max(...offsets) / step + 1;
  if (count > MAX_SERIES_OCCURRENCES) return null;
  const present = new Set(offsets);
  const missing = Array.from({ length: count - 1 }, (_, i) => (i + 1) * step).filter((offset) => !present.has(offset));
  const frequency =
    step % 7 === 0
      ? `FREQ=WEEKLY${step > 7 ? `;INTERVAL=${step / 7}` : ''}`
      : `FREQ=DAILY${step > 1 ? `;INTERVAL=${step}` : ''}`;
  return [
    `RRULE:${frequency};COUNT=${count}`,
    ...dateLines(
      'EXDATE',
      missing.map((offset) => plusDays(first, offset)),
      zone,
      allDay,
    ),
    ...dateLines(
      'RDATE',
      starts.filter((start) => !onStep(start)),
      zone,
      allDay,
    ),
  ];
}

/** The `recurrence` of a series with these starts after its first: a stepped rule, or RDATEs only when shorter. */
function recurrenceFor(first: string, starts: string[], timing: Timing): string[] {
  const dates = dateLines('RDATE', starts, timing.zone, timing.allDay);
  const rule = steppedRule(first, starts, timing);
  return rule && withinLimits(rule) && rule.join('\n').length < dates.join('\n').length ? rule : dates;
}

/**
 * One series here, led by `head` (its DTSTART): the head with `recurrence`, each other member with its series and
 * original start; null when its `recurrence` would go beyond what the service accepts (withinLimits). A member whose start the series has already (the head's,
 * another member's) or whose start cannot be read stays an event of its own.
 */
function asSeries([head, ...others]: RemoteRecord[], siteZone: string): RemoteRecord[] | null {
  const timing = timingOf(head, siteZone);
  const headStart = startIn(head, timing, siteZone);
  if (headStart === null) return [head, ...others];
  const taken = new Set([headStart]);
  const occurrences: Array<{ record: RemoteRecord; start: string }> = [];
  const alone: RemoteRecord[] = [];
  for (const record of others) {
    const start = startIn(record, timing, siteZone);
    if (start === null || taken.has(start)) {
      alone.push(record);
      continue;
    }
    taken.add(start);
    occurrences.push({ record, start });
  }
  if (!occurrences.length) return [head, ...alone];
  const recurrence = recurrenceFor(
    headStart,
    occurrences.map((occurrence) => occurrence.start),
    timing,
  );
  if (!withinLimits(recurrence)) return null;
  const seriesId = remoteIdOf(head);
  return [
    { ...head, recurrence },
    ...occurrences.map(({ record, start }) => ({
      ...record,
      recurring_event_id: seriesId,
      original_start_date: start,
    })),
    ...alone,
  ];
}

/** Whether the service accepts these lines as a `recurrence` (MAX_RECURRENCE_LINES, MAX_RECURRENCE_DATES). */
function withinLimits(recurrence: string[]): boolean {
  const dates = recurrence
    .filter((line) => /^(EXDATE|RDATE)[;:]/.test(line))
    .reduce((sum, line) => sum + line.split(',').length, 0);
  return recurrence.length <= MAX_RECURRENCE_LINES && dates <= MAX_RECURRENCE_DATES;
}

/**
 * A Pro series as series here. One whose `recurrence` would be too long (irregular, with many dates) is kept as
 * consecutive series of as many occurrences as fit as RDATEs (MAX_RECURRENCE_DATES), each led by its first occurrence.
 */
function seriesRecords({ parent, children }: ProSeries, siteZone: string): RemoteRecord[] {
  const members = [parent, ...children];
  const whole = asSeries(members, siteZone);
  if (whole) return whole;
  const records: RemoteRecord[] = [];
  for (let i = 0; i < members.length; ) {
    // Fits: RDATEs only, MAX_RECURRENCE_DATES of them (DATES_PER_LINE a line), are the longest it may be written as.
    const size = 1 + MAX_RECURRENCE_DATES;
    records.push(...asSeries(members.slice(i, i + size), siteZone)!);
    i += size;
  }
  return records;
}

/**
 * The listed events with The Events Calendar Pro's series among them written as series (see the module comment):
 * the members of each series found take its place in the list (children the list lacked included), and the members
 * of a group the source could not tell apart are left out, for the caller to report. `knownParents`: the events
 * imported before as series masters.
 */
export async function withProSeries(
  listed: unknown[],
  childrenOf: ChildrenOf,
  { siteZone, knownParents }: { siteZone: string; knownParents: Set<number> },
): Promise<{ events: unknown[]; unresolved: UnresolvedGroup[] }> {
  const { series, unresolved } = await findSeries(listed, childrenOf, knownParents);
  const replaced = new Map<number, RemoteRecord>();
  for (const found of series)
    for (const record of seriesRecords(found, siteZone)) replaced.set(remoteIdOf(record), record);
  const left = new Set(unresolved.flatMap((group) => group.records.map(remoteIdOf)));
  const listedIds = new Set(listed.map(idOf));
  const events = listed.filter((item) => !left.has(idOf(item))).map((item) => replaced.get(idOf(item)) ?? item);
  const unlisted = [...replaced.values()].filter((record) => !listedIds.has(remoteIdOf(record)));
  return { events: [...events, ...unlisted], unresolved };
}
