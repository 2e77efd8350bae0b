// Recurring series on the source. A source that exposes them (this service) lists each occurrence with
// `recurring_event_id` (its series) and `original_start_date`, and answers the series itself by ID with its
// `recurrence` lines; The Events Calendar Pro's series are found and given the same shape (src/import/pro-series.ts).
// The series is imported as a series: its master with the same `recurrence`, whose occurrences this service makes
// itself; a listed occurrence then only maps to the local occurrence of the same original start, and is written only
// when it differs from its series (an exception on the source).
import { MalformedRecord, text, type RemoteRecord } from './remote.js';
import type { Input } from './writer.js';

export interface RemoteOccurrence {
  /** The series' ID on the source. */
  seriesId: number;
  /** The occurrence's start as the rule gave it, wall clock in the series' zone. */
  originalStart: string;
}

/** The source's recurrence lines of a series master, or undefined for an event on its own. */
export function recurrenceOf(remote: RemoteRecord): string[] | undefined {
  const lines = remote.recurrence;
  if (lines === undefined || lines === null) return undefined;
  if (!Array.isArray(lines) || lines.some((line) => typeof line !== 'string'))
    throw new MalformedRecord('"recurrence" is not a list of lines');
  return lines.length ? (lines as string[]) : undefined;
}

/** The series an occurrence belongs to, or null for an event on its own (or a series master). */
export function occurrenceOf(remote: RemoteRecord): RemoteOccurrence | null {
  const series = remote.recurring_event_id;
  if (series === undefined || series === null || series === 0) return null;
  if (typeof series !== 'number' || !Number.isInteger(series) || series < 1)
    throw new MalformedRecord('"recurring_event_id" is not an event ID');
  const originalStart = text(remote, 'original_start_date');
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(originalStart))
    throw new MalformedRecord('"original_start_date" is not a date and time');
  return { seriesId: series, originalStart };
}

/** Fields that say nothing about whether an occurrence differs from its series. */
const OWN_FIELDS = ['slug', 'startDate', 'endDate', 'dateUtc', 'recurrence'];

const lengthOf = (input: Input) =>
  Date.parse(`${String(input.endDate).replace(' ', 'T')}Z`) -
  Date.parse(`${String(input.startDate).replace(' ', 'T')}Z`);

const shared = (input: Input) => Object.entries(input).filter(([key]) => !OWN_FIELDS.includes(key));

/**
 * Whether an occurrence is what its series makes of it: at its original start, as long as the series, and with the
 * series' fields and links. Otherwise it was changed on the source, and is imported as an exception.
 */
export function followsSeries(occurrence: Input, master: Input, originalStart: string): boolean {
  if (occurrence.startDate !== originalStart || lengthOf(occurrence) !== lengthOf(master)) return false;
  return JSON.stringify(shared(occurrence)) === JSON.stringify(shared(master));
}

/**
 * What of its series an occurrence is compared with (followsSeries), for its content hash: an occurrence is looked at
 * again when its series changes that way on the source, not only when it changes itself (a Pro parent edited alone).
 */
export function seriesFacts(master: Input): Input {
  return { fields: Object.fromEntries(shared(master)), length: lengthOf(master) };
}
