import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import type PrismaTypes from '../db/generated/pothos-types.js';
import { getDatamodel } from '../db/generated/pothos-types.js';
import type { Context } from './context.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './shared/page-size.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Connection: { totalCount: () => Promise<number> };
  DefaultInputFieldRequiredness: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    DateInput: { Input: string; Output: string };
    WallClock: { Input: string; Output: string };
    HTML: { Input: string; Output: string };
    PlainText: { Input: string; Output: string };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    defaultConnectionSize: DEFAULT_PAGE_SIZE,
    maxConnectionSize: MAX_PAGE_SIZE,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'warn',
  },
  relay: {
    cursorType: 'String',
    clientMutationId: 'omit',
    edgesFieldOptions: {
      nullable: false,
      description: 'The records of this page, in the order of the list, each with its cursor.',
    },
    nodeFieldOptions: { nullable: false, description: 'The record.' },
    // WPGraphQL's shortcut: `events { nodes { title } }` when the cursors are not needed.
    nodesOnConnection: { description: 'The records of this page without their cursors (the `node` of each edge).' },
    cursorFieldOptions: {
      description: 'Where this record stands in the list (opaque): pass it as `after` or `before` to page from here.',
    },
    pageInfoFieldOptions: {
      description: 'Whether there are pages before and after this one, and the cursors to reach them.',
    },
    hasNextPageFieldOptions: {
      description: 'Whether more records follow this page: ask for them with `after: endCursor`.',
    },
    hasPreviousPageFieldOptions: {
      description: 'Whether records come before this page: ask for them with `before: startCursor` and `last`.',
    },
    startCursorFieldOptions: {
      description: 'The cursor of the first record of this page; null when the page is empty.',
    },
    endCursorFieldOptions: {
      description:
        'The cursor of the last record of this page; pass it as `after` for the next page. Null when the page is empty.',
    },
    firstArgOptions: {
      description: `At most this many records from the start of the list (or after \`after\`): 0 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when neither \`first\` nor \`last\` is given.`,
    },
    afterArgOptions: { description: 'Only records after this cursor (an `endCursor` or `cursor` of the same list).' },
    lastArgOptions: {
      description: `At most this many records from the end of the list (or before \`before\`): 0 to ${MAX_PAGE_SIZE}.`,
    },
    beforeArgOptions: {
      description: 'Only records before this cursor (a `startCursor` or `cursor` of the same list).',
    },
    idFieldOptions: { description: 'The global ID (opaque; use it with `node(id:)` and as a client cache key).' },
    // node and nodes are defined in shared/node.ts, so that they apply each type's visibility and error codes.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodeTypeOptions: { description: 'A record with a global ID (Relay’s object identification).' },
    pageInfoTypeOptions: { description: 'Where a page stands in its list (Relay cursor connections).' },
  },
});

builder.queryType({
  description:
    'Reads. Anyone may read published records; drafts, pending, private and trashed ones need a user who may see them.',
});
/** The description of every connection's `totalCount` (schema.ts gives it to the one plugin-prisma defines itself). */
export const TOTAL_COUNT_DESCRIPTION = 'How many records match, over all pages.';

builder.globalConnectionField('totalCount', (t) =>
  t.int({ description: TOTAL_COUNT_DESCRIPTION, resolve: (connection) => connection.totalCount() }),
);
builder.mutationType({
  description: 'Writes. Each needs a signed-in user whose role allows it (README, "Authentication and roles").',
});
