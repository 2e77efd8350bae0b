import { builder } from '../builder.js';
import { databaseIdField, globalIdField, NodeInterface } from '../shared/node.js';

const countDescription = 'How many published events carry this term.';

export const EventCategoryType = builder.prismaObject('Term', {
  name: 'EventCategory',
  description: 'An event category (hierarchical).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('EventCategory')),
    databaseId: t.exposeInt('id', databaseIdField('EventCategory')),
    name: t.exposeString('name', { description: 'The name shown to people.' }),
    slug: t.exposeString('slug', { description: 'The name in URLs; unique among categories.' }),
    description: t.exposeString('description', { description: 'HTML.' }),
    count: t.exposeInt('eventCount', { description: countDescription }),
    parentId: t.exposeInt('parentId', { nullable: true, description: 'The database ID of the parent category; null at the top.' }),
    parent: t.relation('parent', { nullable: true, description: 'The parent category; null at the top.' }),
    children: t.relatedConnection('children', {
      cursor: 'id',
      totalCount: true,
      description: 'The categories directly beneath this one, by name.',
      query: { orderBy: [{ name: 'asc' }, { id: 'asc' }] },
    },
    { description: 'A page of the categories directly beneath a category, with their number.' },
    { description: 'A child category in a page, with its cursor.' }),
  }),
});

export const EventTagType = builder.prismaObject('Term', {
  variant: 'EventTag',
  description: 'An event tag.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('EventTag')),
    databaseId: t.exposeInt('id', databaseIdField('EventTag')),
    name: t.exposeString('name', { description: 'The name shown to people.' }),
    slug: t.exposeString('slug', { description: 'The name in URLs; unique among tags.' }),
    description: t.exposeString('description', { description: 'HTML.' }),
    count: t.exposeInt('eventCount', { description: countDescription }),
  }),
});
