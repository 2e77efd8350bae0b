import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../config.js';
import { PROJECT_ROOT } from '../project-files.js';

// prisma/schema.prisma is the one data model. Prisma needs the provider written in the schema, so the PostgreSQL
// copy is derived from it here, by rule, and never edited by hand.

export const SCHEMA_PATH = join(PROJECT_ROOT, 'prisma/schema.prisma');
export const POSTGRES_SCHEMA_PATH = join(PROJECT_ROOT, 'prisma/postgres/schema.prisma');

export const SCHEMA_PATHS: Record<Engine, string> = { sqlite: SCHEMA_PATH, postgres: POSTGRES_SCHEMA_PATH };

export const MIGRATIONS_DIR: Record<Engine, string> = {
  sqlite: join(PROJECT_ROOT, 'prisma/migrations'),
  postgres: join(PROJECT_ROOT, 'prisma/postgres/migrations'),
};

/** The PostgreSQL schema: same models, provider postgresql, its own generated client, no second Pothos output. */
export function derivePostgresSchema(source: string): string {
  const withoutPothos = source.replace(/generator pothos \{[^}]*\}\n\n?/, '');
  const derived = withoutPothos
    .replace(/provider = "sqlite"/, 'provider = "postgresql"')
    .replace(/(output\s*=\s*)"\.\.\/src\/db\/generated\/prisma"/, '$1"../../src/db/generated/prisma-postgres"');
  if (derived === withoutPothos)
    throw new Error('prisma/schema.prisma no longer has the expected datasource/generator lines');
  return `// GENERATED from prisma/schema.prisma by scripts/prisma-offline.ts generate. Do not edit.\n\n${derived}`;
}

export function schemaSource(engine: Engine): string {
  const source = readFileSync(SCHEMA_PATH, 'utf8');
  return engine === 'sqlite' ? source : derivePostgresSchema(source);
}
