import { builder } from '../builder.js';

export const SortOrderEnum = builder.enumType('SortOrder', {
  values: { ASC: { value: 'asc' }, DESC: { value: 'desc' } } as const,
});

export type SortOrder = 'asc' | 'desc';
