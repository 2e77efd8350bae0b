/**
 * Prisma tooling that works without network access (see DESIGN.md, "Offline facts").
 *
 *   tsx scripts/prisma-offline.ts generate        prisma generate (the native schema engine is not needed for it)
 *   tsx scripts/prisma-offline.ts migrate-new X   write prisma/migrations/<timestamp>_X from the schema diff
 *   tsx scripts/prisma-offline.ts migrate-check   exit 1 when the migrations and prisma/schema.prisma disagree
 *
 * Diffs use @prisma/schema-engine-wasm over the better-sqlite3 driver adapter (shadow database in memory).
 * Migrations keep Prisma's folder layout, so `prisma migrate deploy` works wherever the native engine exists.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffMigrationsAgainstSchema, MIGRATIONS_DIR, PROJECT_ROOT } from '../src/db/schema-diff.js';

const STAND_IN = fileURLToPath(new URL('./schema-engine-stand-in.sh', import.meta.url));

function generate(): void {
  execFileSync(join(PROJECT_ROOT, 'node_modules/.bin/prisma'), ['generate'], {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: STAND_IN, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
}

async function migrateNew(name: string | undefined): Promise<void> {
  if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('usage: migrate-new <name in snake_case>');
  const sql = await diffMigrationsAgainstSchema('sqlite');
  if (sql.trim() === '') {
    console.log('The migrations already match prisma/schema.prisma; nothing to write.');
    return;
  }
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = join(MIGRATIONS_DIR.sqlite, `${stamp}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'migration.sql'), sql);
  writeFileSync(join(MIGRATIONS_DIR.sqlite, 'migration_lock.toml'), 'provider = "sqlite"\n');
  console.log(`Wrote ${dir}/migration.sql`);
}

async function migrateCheck(): Promise<void> {
  const sql = await diffMigrationsAgainstSchema('sqlite');
  if (sql.trim() !== '') {
    console.error('The migrations disagree with prisma/schema.prisma. Missing steps:\n' + sql);
    process.exit(1);
  }
  console.log('Migrations match prisma/schema.prisma.');
}

const [command, arg] = process.argv.slice(2);
if (command === 'generate') generate();
else if (command === 'migrate-new') await migrateNew(arg);
else if (command === 'migrate-check') await migrateCheck();
else {
  console.error('usage: prisma-offline.ts generate | migrate-new <name> | migrate-check');
  process.exit(2);
}
