// Writes schema.graphql, the printed GraphQL schema (committed; a test fails when it differs from the code).
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { sortedSchema } from '../src/graphql/schema.js';

writeFileSync(new URL('../schema.graphql', import.meta.url), `${printSchema(sortedSchema)}\n`);
console.log('Wrote schema.graphql');
