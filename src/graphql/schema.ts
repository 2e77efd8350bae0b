import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './users/index.js';
import './media/index.js';
import './terms/types.js';
import './terms/queries.js';
import './terms/mutations.js';
import './venues/index.js';
import './venues/duplicates.js';
import './organizers/index.js';
import './organizers/duplicates.js';
import './events/index.js';
import './events/links.js';
import './shared/node.js';

/** The one schema every request runs against (REST operations included). */
export const schema = builder.toSchema();

/** The printed form committed as schema.graphql, sorted so that the file only changes when the schema does. */
export const sortedSchema = lexicographicSortSchema(schema);
