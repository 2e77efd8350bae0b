/**
 * Prisma tooling that works without network access (see DESIGN.md, "Offline facts").
 *
 *   tsx scripts/prisma-offline.ts generate        derive prisma/postgres/schema.prisma, then prisma generate for both
 *                                                 engines (the native schema engine is not needed for it)
 *   tsx scripts/prisma-offline.ts migrate-new X   write <timestamp>_X migrations for SQLite and PostgreSQL
 *   tsx scripts/prisma-offline.ts migrate-check   exit 1 when either engine's migrations disagree with the schema
 *
 * Diffs use @prisma/schema-engine-wasm over the driver adapters: SQLite's shadow database lives in memory,
 * PostgreSQL's is a throw-away database on PRISMA_SHADOW_ADMIN_URL (default: the local test server).
 * Migrations keep Prisma's folder layout, so `prisma migrate deploy` works wherever the native engine exists.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../src/config.js';
import { MIGRATIONS_DIR, POSTGRES_SCHEMA_PATH, SCHEMA_PATHS, schemaSource } from '../src/db/provider-schemas.js';
import { PROJECT_ROOT } from '../src/project-files.js';
import { diffMigrationsAgainstSchema } from '../src/db/schema-diff.js';

const STAND_IN = fileURLToPath(new URL('./schema-engine-stand-in.sh', import.meta.url));

const ENGINES: Engine[] = ['sqlite', 'postgres'];

function generate(): void {
  mkdirSync(dirname(POSTGRES_SCHEMA_PATH), { recursive: true });
  writeFileSync(POSTGRES_SCHEMA_PATH, schemaSource('postgres'));
  for (const engine of ENGINES) {
    execFileSync(join(PROJECT_ROOT, 'node_modules/.bin/prisma'), ['generate', '--schema', SCHEMA_PATHS[engine]], {
      cwd: PROJECT_ROOT,
      stdio: 'inherit',
      env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: STAND_IN, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
    });
  }
}

async function migrateNew(name: string | undefined): Promise<void> {
  if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('usage: migrate-new <name in snake_case>');
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  for (const engine of ENGINES) {
    const sql = await diffMigrationsAgainstSchema(engine);
    if (sql.trim() === '') {
      console.log(`${engine}: the migrations already match prisma/schema.prisma; nothing to write.`);
      continue;
    }
    const dir = join(MIGRATIONS_DIR[engine], `${stamp}_${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'migration.sql'), `${sql}\n`);
    writeFileSync(
      join(MIGRATIONS_DIR[engine], 'migration_lock.toml'),
      `provider = "${engine === 'sqlite' ? 'sqlite' : 'postgresql'}"\n`,
    );
    console.log(`${engine}: wrote ${dir}/migration.sql`);
  }
}

async function migrateCheck(): Promise<void> {
  let drift = false;
  for (const engine of ENGINES) {
    const sql = await diffMigrationsAgainstSchema(engine);
    if (sql.trim() === '') console.log(`${engine}: migrations match prisma/schema.prisma.`);
    else {
      drift = true;
      console.error(`${engine}: the migrations disagree with prisma/schema.prisma. Missing steps:\n${sql}`);
    }
  }
  if (drift) process.exit(1);
}

const [command, arg] = process.argv.slice(2);
if (command === 'generate') generate();
else if (command === 'migrate-new') await migrateNew(arg);
else if (command === 'migrate-check') await migrateCheck();
else {
  console.error('usage: prisma-offline.ts generate | migrate-new <name> | migrate-check');
  process.exit(2);
}
