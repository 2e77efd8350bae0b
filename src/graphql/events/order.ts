import { listOrder, orderArgs, type SortOrder } from '../shared/ordering.js';

export const EventOrderByEnum = orderArgs('EventOrderBy', 'What a list of events is sorted by (then by ID).', {
  START: { value: 'startsAt', description: 'The start instant (the default; the listing index walks it).' },
  END: { value: 'endsAt', description: 'The end instant.' },
  TITLE: { value: 'title', description: 'The title (the database collation).' },
  PUBLISHED: { value: 'publishedAt', description: 'The publication date.' },
  MODIFIED: { value: 'modifiedAt', description: 'The last change.' },
});

/** The order of a list of events: by start unless asked otherwise, then by ID. The iCalendar feed keeps it. */
export function eventOrder(orderBy: string | null | undefined, order: SortOrder | null | undefined) {
  return listOrder(orderBy ?? 'startsAt', order ?? 'asc');
}
