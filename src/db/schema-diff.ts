import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../config.js';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SCHEMA_PATH = join(PROJECT_ROOT, 'prisma/schema.prisma');
export const MIGRATIONS_DIR: Record<Engine, string> = {
  sqlite: join(PROJECT_ROOT, 'prisma/migrations'),
  postgres: join(PROJECT_ROOT, 'prisma/postgres/migrations'),
};

export interface MigrationFolder {
  name: string;
  sql: string;
}

/** The migration folders of an engine, oldest first, in Prisma's layout (`<timestamp>_<name>/migration.sql`). */
export function readMigrations(engine: Engine): MigrationFolder[] {
  const dir = MIGRATIONS_DIR[engine];
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name, 'migration.sql'), 'utf8') }));
}

interface WasmApi {
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: object } }>;
}

type WasmModule = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

async function loadSchemaEngineWasm(): Promise<WasmModule> {
  // The package imports its .wasm as an ES module, which Node 20 cannot do; instantiate it by hand instead.
  const bindings = await import('@prisma/schema-engine-wasm/schema_engine_bg');
  const require = createRequire(import.meta.url);
  const wasmPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm');
  const { instance } = await (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly.instantiate(readFileSync(wasmPath), { './schema_engine_bg.js': bindings as never });
  bindings.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
  return bindings;
}

type SqliteFactory = InstanceType<typeof import('@prisma/adapter-better-sqlite3').PrismaBetterSqlite3>;
type SqliteAdapter = Awaited<ReturnType<SqliteFactory['connect']>>;

/**
 * The wasm engine replays each migration file through `executeRaw`, which better-sqlite3 limits to one statement;
 * a parameterless multi-statement call is sent through `executeScript` instead.
 */
function withMultiStatementScripts(factory: SqliteFactory): SqliteFactory {
  const wrap = (adapter: SqliteAdapter): SqliteAdapter => {
    const executeRaw = adapter.executeRaw.bind(adapter);
    adapter.executeRaw = async (query) => {
      if (query.args.length > 0 || !query.sql.includes(';')) return executeRaw(query);
      await adapter.executeScript(query.sql);
      return 0;
    };
    return adapter;
  };
  const connectToShadowDb = factory.connectToShadowDb.bind(factory);
  factory.connectToShadowDb = async () => wrap(await connectToShadowDb());
  return factory;
}

/** SQL that would bring a database migrated with the existing migrations up to prisma/schema.prisma ('' when none). */
export async function diffMigrationsAgainstSchema(engine: Engine): Promise<string> {
  if (engine !== 'sqlite') throw new Error(`schema diff for ${engine} is not supported yet`);
  const { PrismaBetterSqlite3 } = await import('@prisma/adapter-better-sqlite3');
  const { bindMigrationAwareSqlAdapterFactory } = await import('@prisma/driver-adapter-utils');
  const wasm = await loadSchemaEngineWasm();
  const schema = readFileSync(SCHEMA_PATH, 'utf8');
  const factory = bindMigrationAwareSqlAdapterFactory(withMultiStatementScripts(new PrismaBetterSqlite3({ url: ':memory:' })));
  const engineInstance = await wasm.SchemaEngine.new({ datamodels: [['schema.prisma', schema]] }, () => {}, factory);
  const migrations = readMigrations(engine).map((m) => ({
    path: m.name,
    migrationFile: { path: 'migration.sql', content: { tag: 'ok' as const, value: m.sql } },
  }));
  const result = await engineInstance.diff({
    from: {
      tag: 'migrations',
      baseDir: MIGRATIONS_DIR[engine],
      lockfile: { path: 'migration_lock.toml', content: `provider = "${engine}"\n` },
      migrationDirectories: migrations,
      shadowDbInitScript: '',
    },
    to: { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: schema }] },
    script: true,
    exitCode: null,
    filters: { externalTables: [], externalEnums: [] },
  } as never);
  const script = (result.stdout ?? '').trim();
  return script === '-- This is an empty migration.' ? '' : script;
}
