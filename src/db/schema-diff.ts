import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Engine } from '../config.js';
import { MIGRATIONS_DIR, schemaSource } from './provider-schemas.js';

export { MIGRATIONS_DIR } from './provider-schemas.js';
export { PROJECT_ROOT } from '../project-files.js';

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

let loaded: Promise<WasmModule> | undefined;

/** The wasm module binds to one instance per process, so it is loaded once. */
function loadSchemaEngineWasm(): Promise<WasmModule> {
  return (loaded ??= instantiateSchemaEngineWasm());
}

async function instantiateSchemaEngineWasm(): Promise<WasmModule> {
  // The package imports its .wasm as an ES module, which Node 20 cannot do; instantiate it by hand instead.
  const bindings = await import('@prisma/schema-engine-wasm/schema_engine_bg');
  // The engine reports a panic's message through this global before it throws.
  (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY ??= {
    set_message: (message: string) => console.error(`schema engine panic: ${message}`),
  };
  const require = createRequire(import.meta.url);
  const wasmPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm');
  const { instance } = await (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly.instantiate(
    readFileSync(wasmPath),
    { './schema_engine_bg.js': bindings as never },
  );
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

/** The database PostgreSQL diffs create their throw-away shadow databases on (needs CREATE DATABASE). */
export function postgresAdminUrl(): string {
  return (
    process.env.PRISMA_SHADOW_ADMIN_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test'
  );
}

async function migrationAdapterFactory(engine: Engine) {
  const { bindMigrationAwareSqlAdapterFactory } = await import('@prisma/driver-adapter-utils');
  if (engine === 'sqlite') {
    const { PrismaBetterSqlite3 } = await import('@prisma/adapter-better-sqlite3');
    return bindMigrationAwareSqlAdapterFactory(withMultiStatementScripts(new PrismaBetterSqlite3({ url: ':memory:' })));
  }
  const { PrismaPg } = await import('@prisma/adapter-pg');
  // Fields, not a connection string: the adapter makes its shadow pool by overriding `database`, which a
  // connection string would win over.
  const url = new URL(postgresAdminUrl());
  const config = {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password) || undefined,
    database: url.pathname.slice(1),
    max: 2,
  };
  const factory = new PrismaPg(config);
  // The adapter's own shadow database is dropped while its pool still holds a connection, which PostgreSQL
  // refuses; this one ends the pool first.
  factory.connectToShadowDb = async () => {
    const admin = await factory.connect();
    const name = `prisma_migrate_shadow_db_${randomUUID().replace(/-/g, '')}`;
    await admin.executeScript(`CREATE DATABASE "${name}"`);
    const shadow = await new PrismaPg({ ...config, database: name }).connect();
    // The adapter splits scripts at every semicolon, which breaks function bodies ($$ … ; … $$) in migrations;
    // PostgreSQL runs a parameterless multi-statement script as sent.
    const pool = (shadow as unknown as { client: { query(sql: string): Promise<unknown> } }).client;
    shadow.executeScript = async (script: string) => void (await pool.query(script));
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await admin.executeScript(`DROP DATABASE "${name}"`);
      await admin.dispose();
    };
    return shadow;
  };
  return bindMigrationAwareSqlAdapterFactory(withCharColumnsAsText(factory));
}

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

type PgFactory = InstanceType<typeof import('@prisma/adapter-pg').PrismaPg>;
type PgQueryable = { performIO(query: unknown): Promise<{ fields: { dataTypeID: number }[] }> };

/**
 * The engine describes a schema through catalog queries whose `"char"` columns (pg_class.relkind …) the pg adapter
 * refuses to map, though they arrive as one-letter strings. Announcing them as text lets the diff run. This patches
 * the adapter's query class in this process only, which is a tooling process (scripts, the drift test).
 */
function withCharColumnsAsText(factory: PgFactory): PgFactory {
  const patch = (adapter: object) => {
    const queryable = Object.getPrototypeOf(Object.getPrototypeOf(adapter)) as PgQueryable & { charAsText?: true };
    if (queryable.charAsText) return adapter;
    const performIO = queryable.performIO;
    queryable.performIO = async function (this: PgQueryable, query: unknown) {
      const result = await performIO.call(this, query);
      for (const field of result?.fields ?? []) if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
      return result;
    };
    queryable.charAsText = true;
    return adapter;
  };
  const connect = factory.connect.bind(factory);
  const connectToShadowDb = factory.connectToShadowDb.bind(factory);
  factory.connect = async () => patch(await connect()) as Awaited<ReturnType<PgFactory['connect']>>;
  factory.connectToShadowDb = async () => patch(await connectToShadowDb()) as Awaited<ReturnType<PgFactory['connect']>>;
  return factory;
}

/**
 * SQL that would bring a database migrated with an engine's migrations up to prisma/schema.prisma ('' when none).
 * The migrations are replayed on a shadow database: in memory for SQLite, a throw-away database for PostgreSQL.
 */
export async function diffMigrationsAgainstSchema(engine: Engine): Promise<string> {
  const wasm = await loadSchemaEngineWasm();
  const schema = schemaSource(engine);
  const factory = await migrationAdapterFactory(engine);
  const engineInstance = await wasm.SchemaEngine.new({ datamodels: [['schema.prisma', schema]] }, () => {}, factory);
  const migrations = readMigrations(engine).map((m) => ({
    path: m.name,
    migrationFile: { path: 'migration.sql', content: { tag: 'ok' as const, value: m.sql } },
  }));
  const lockProvider = engine === 'sqlite' ? 'sqlite' : 'postgresql';
  const result = await engineInstance.diff({
    from: {
      tag: 'migrations',
      baseDir: MIGRATIONS_DIR[engine],
      lockfile: { path: 'migration_lock.toml', content: `provider = "${lockProvider}"\n` },
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
