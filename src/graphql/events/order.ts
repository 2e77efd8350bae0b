import { listOrder, orderArgs, type SortOrder } from '../shared/ordering.js';

/** The order of every list of events unless asked otherwise: by start, then ID. The iCalendar feed keeps it. */
export const EVENT_ORDER = [{ startsAt: 'asc' as const }, { id: 'asc' as const }];

export const EventOrderByEnum = orderArgs('EventOrderBy', 'What a list of events is sorted by (then by ID).', {
  START: { value: 'startsAt', description: 'The start instant (the default; the listing index walks it).' },
  END: { value: 'endsAt', description: 'The end instant.' },
  TITLE: { value: 'title', description: 'The title (the database collation).' },
  PUBLISHED: { value: 'publishedAt', description: 'The publication date.' },
  MODIFIED: { value: 'modifiedAt', description: 'The last change.' },
});

export function eventOrder(orderBy: string | null | undefined, order: SortOrder | null | undefined) {
  return listOrder(orderBy ?? 'startsAt', order ?? 'asc');
}
