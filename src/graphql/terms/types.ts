import { builder } from '../builder.js';

const countDescription = 'How many published events carry this term.';

export const EventCategoryType = builder.prismaObject('Term', {
  name: 'EventCategory',
  description: 'An event category (hierarchical).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    description: t.exposeString('description'),
    count: t.exposeInt('eventCount', { description: countDescription }),
    parentId: t.exposeInt('parentId', { nullable: true }),
    parent: t.relation('parent', { nullable: true }),
    children: t.relation('children', { query: { orderBy: [{ name: 'asc' }, { id: 'asc' }] } }),
  }),
});

export const EventTagType = builder.prismaObject('Term', {
  variant: 'EventTag',
  description: 'An event tag.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    description: t.exposeString('description'),
    count: t.exposeInt('eventCount', { description: countDescription }),
  }),
});
