import { builder } from '../builder.js';
import { connectionNodes, loadedConnection, plannedRelation, type PageArgs } from '../shared/connections.js';
import { databaseIdField, globalIdField, NodeInterface } from '../shared/node.js';
import { pageFields } from '../shared/uri.js';

const countDescription = 'How many published events carry this term.';

export const EventCategoryType = builder.prismaObject('Term', {
  name: 'EventCategory',
  description: 'An event category (hierarchical).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('EventCategory')),
    databaseId: t.exposeInt('id', databaseIdField('EventCategory')),
    ...pageFields(t, 'category'),
    name: t.exposeString('name', { description: 'The name shown to people.' }),
    slug: t.exposeString('slug', { description: 'The name in URLs; unique among categories.' }),
    description: t.exposeString('description', { description: 'HTML.' }),
    count: t.exposeInt('eventCount', { description: countDescription }),
    parentId: t.exposeInt('parentId', {
      nullable: true,
      description: 'The database ID of the parent category; null at the top.',
    }),
    parent: t.relation('parent', { nullable: true, description: 'The parent category; null at the top.' }),
  }),
});

// Planned into the parent's query, a page per category (see shared/connections.ts), like a venue's events.
builder.prismaObjectField(EventCategoryType, 'children', (t) =>
  t.connection(
    {
      type: EventCategoryType,
      description: 'The categories directly beneath this one, by name.',
      select: ((args: PageArgs, _ctx: unknown, nested: (selection: true, path: unknown) => unknown) => ({
        children: plannedRelation(args, nested(true, connectionNodes('EventCategory')), {
          orderBy: [{ name: 'asc' }, { id: 'asc' }],
        }),
        _count: { select: { children: true } },
      })) as never,
      resolve: (category, args) => {
        const loaded = category as unknown as { children: unknown[]; _count: { children: number } };
        return loadedConnection(args, loaded.children, loaded._count.children) as never;
      },
    },
    { description: 'A page of the categories directly beneath a category, with their number.' },
    { description: 'A child category in a page, with its cursor.' },
  ),
);

export const EventTagType = builder.prismaObject('Term', {
  variant: 'EventTag',
  description: 'An event tag.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('EventTag')),
    databaseId: t.exposeInt('id', databaseIdField('EventTag')),
    ...pageFields(t, 'tag'),
    name: t.exposeString('name', { description: 'The name shown to people.' }),
    slug: t.exposeString('slug', { description: 'The name in URLs; unique among tags.' }),
    description: t.exposeString('description', { description: 'HTML.' }),
    count: t.exposeInt('eventCount', { description: countDescription }),
  }),
});
