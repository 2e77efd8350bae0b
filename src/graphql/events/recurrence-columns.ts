// How an event's recurrence is stored: its lines joined by newlines in `recurrence` ('' for an event on its own and
// for an occurrence), and `isSeriesMaster`, which lists filter and index on since `recurrence` may outgrow an index
// entry. Every write of `recurrence` takes both columns from recurrenceColumns, so they cannot disagree.
//
// Not a database trigger: SQLite's triggers cannot set the row being written (only update it again afterwards), and
// a generated column cannot be declared in the Prisma schema, so `migrate:check` would see it as drift.

/** The columns that store a series' recurrence lines; no lines make an event that is not a series master. */
export function recurrenceColumns(lines: readonly string[]): { recurrence: string; isSeriesMaster: boolean } {
  const recurrence = lines.join('\n');
  return { recurrence, isSeriesMaster: recurrence !== '' };
}

/** The lines of a stored `recurrence`. */
export const recurrenceLines = (stored: string): string[] => (stored === '' ? [] : stored.split('\n'));
