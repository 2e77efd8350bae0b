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
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    // node and nodes are defined in shared/node.ts, so that they apply each type's visibility and error codes.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodeTypeOptions: { description: 'A record with a global ID (Relay’s object identification).' },
    pageInfoTypeOptions: { description: 'Where a page stands in its list (Relay cursor connections).' },
  },
});

builder.queryType({});
builder.globalConnectionField('totalCount', (t) =>
  t.int({ description: 'How many records match, over all pages.', resolve: (connection) => connection.totalCount() }),
);
builder.mutationType({});
