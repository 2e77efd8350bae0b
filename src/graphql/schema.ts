import { isObjectType, lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { builder, TOTAL_COUNT_DESCRIPTION } from './builder.js';
import './users/index.js';
import './media/index.js';
import './terms/types.js';
import './terms/queries.js';
import './terms/mutations.js';
import './venues/index.js';
import './organizers/index.js';
import './events/index.js';
import './events/linked-events.js';
import './webhooks/index.js';
import './imports/index.js';
import './changes/index.js';
import './shared/node.js';
import './shared/uri.js';
import './shared/record-kind.js';
import { resolveWithPathLinks } from './shared/path-links.js';

/**
 * plugin-prisma adds the `totalCount` of a `relatedConnection` (a category's `children`) itself, with no option for its
 * description, and the relay plugin's global `totalCount` (builder.ts) leaves a connection that already has one alone.
 * So the built schema gets that one description here, and only that: everything else is described where it is defined.
 */
function describePluginTotalCounts(built: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(built.getTypeMap())) {
    const totalCount = isObjectType(type) && type.name.endsWith('Connection') ? type.getFields().totalCount : undefined;
    if (totalCount && !totalCount.description) totalCount.description = TOTAL_COUNT_DESCRIPTION;
  }
  return built;
}

/** The one schema every request runs against (REST operations included). */
export const schema = resolveWithPathLinks(describePluginTotalCounts(builder.toSchema()));

/** The printed form committed as schema.graphql, sorted so that the file only changes when the schema does. */
export const sortedSchema = lexicographicSortSchema(schema);
