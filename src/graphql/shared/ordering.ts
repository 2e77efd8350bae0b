import { builder } from '../builder.js';

export const SortOrderEnum = builder.enumType('SortOrder', {
  description: 'The direction of a list order (REST `order=asc|desc`).',
  values: {
    ASC: { value: 'asc', description: 'Ascending: A to Z, smallest first.' },
    DESC: { value: 'desc', description: 'Descending: Z to A, largest first.' },
  } as const,
});

export type SortOrder = 'asc' | 'desc';

/**
 * An `orderBy` argument of a list: the columns a client may sort by (each GraphQL value names its column) and the
 * list's default. The ID breaks ties in the same direction, so pages never overlap.
 */
export function orderArgs<Column extends string>(
  name: string,
  description: string,
  columns: Record<string, { value: Column; description: string }>,
) {
  return builder.enumType(name, {
    description,
    values: columns as Record<string, { value: Column; description: string }>,
  });
}

export function listOrder(column: string, order: SortOrder): Array<Record<string, SortOrder>> {
  return [{ [column]: order }, { id: order }];
}
