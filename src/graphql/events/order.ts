/** The order of every list of events: by start, then ID. The iCalendar feed keeps it. */
export const EVENT_ORDER = [{ startsAt: 'asc' as const }, { id: 'asc' as const }];
