/**
 * The benchmark's PostgreSQL engine: a copy of a SQLite data set in a PostgreSQL schema of its own, migrated as the
 * service migrates it, so the same scenarios run on both engines over the same rows (issue 28: "the same list on
 * PostgreSQL within 1.5× of SQLite").
 *
 * The copy goes table by table with triggers and foreign-key checks off (`session_replication_role = replica`): the
 * rows are already consistent, and the change-log and data-version triggers must not record a copy as writes. Then
 * the ID sequences continue after the copied IDs and ANALYZE gives the planner the statistics autovacuum would.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { postgresConnectionString } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';

/** The PostgreSQL server the benchmark copies its data sets into (BENCH_POSTGRES_URL), a database it may write. */
export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** PostgreSQL's limit of bound parameters in one statement. */
const MAX_PARAMETERS = 65_535;

interface Column {
  name: string;
  type: string;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const qualified = (schema: string, table: string) => `${quote(schema)}.${quote(table)}`;

/** A SQLite value as PostgreSQL takes it in a column of `type` (SQLite keeps booleans as 0/1). */
function converted(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'boolean') return value === 1 || value === true;
  if (type.startsWith('timestamp') && typeof value === 'number') return new Date(value).toISOString();
  return value;
}

async function columnsByTable(client: pg.Client, schema: string): Promise<Map<string, Column[]>> {
  const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
      WHERE table_schema = $1 AND table_name <> '_prisma_migrations' ORDER BY table_name, ordinal_position`,
    [schema],
  );
  const tables = new Map<string, Column[]>();
  for (const row of rows) {
    const columns = tables.get(row.table_name) ?? [];
    columns.push({ name: row.column_name, type: row.data_type });
    tables.set(row.table_name, columns);
  }
  return tables;
}

async function copyTable(
  source: Database.Database,
  client: pg.Client,
  schema: string,
  table: string,
  columns: Column[],
) {
  const target = qualified(schema, table);
  const names = columns.map((column) => column.name);
  const batch = Math.floor(MAX_PARAMETERS / names.length);
  const read = source.prepare(`SELECT ${names.map(quote).join(', ')} FROM ${quote(table)}`).raw();
  let rows: unknown[][] = [];
  const flush = async () => {
    if (!rows.length) return;
    const values = rows.map(
      (_, row) => `(${names.map((__, column) => `$${row * names.length + column + 1}`).join(', ')})`,
    );
    const parameters = rows.flatMap((row) => row.map((value, column) => converted(value, columns[column]!.type)));
    await client.query(
      `INSERT INTO ${target} (${names.map(quote).join(', ')}) VALUES ${values.join(', ')}`,
      parameters,
    );
    rows = [];
  };
  for (const row of read.iterate() as Iterable<unknown[]>) {
    rows.push(row);
    if (rows.length === batch) await flush();
  }
  await flush();
}

/**
 * Moves the ID sequences past the copied IDs, as if the rows had been inserted one by one. Events, venues and
 * organizers take their IDs from one shared sequence (the shared_post_ids migration's trigger, off during the copy);
 * their own sequences count down and stay as they are.
 */
async function continueSequences(client: pg.Client, schema: string) {
  const { rows } = await client.query<{ table_name: string; column_name: string; sequence: string }>(
    `SELECT c.table_name, c.column_name, c.sequence FROM (
        SELECT table_name, column_name, pg_get_serial_sequence(format('%I.%I', table_schema, table_name), column_name) AS sequence
          FROM information_schema.columns WHERE table_schema = $1) c
       JOIN pg_sequences s ON format('%I.%I', s.schemaname, s.sequencename) = c.sequence
      WHERE s.increment_by > 0`,
    [schema],
  );
  const next = (sequence: string, maximum: string) =>
    client.query(`SELECT setval($1, COALESCE((${maximum}), 0) + 1, false)`, [sequence]);
  for (const { table_name: table, column_name: column, sequence } of rows)
    await next(sequence, `SELECT max(${quote(column)}) FROM ${qualified(schema, table)}`);
  const posts = ['Event', 'Venue', 'Organizer'].map((table) => `SELECT max("id") FROM ${qualified(schema, table)}`);
  await next(qualified(schema, 'Post_id_seq'), `SELECT max(m) FROM (${posts.join(' UNION ALL ')}) AS ids(m)`);
}

/**
 * Copies the SQLite database at `sqliteFile` into the PostgreSQL schema `schema` (dropped first) and answers the
 * DATABASE_URL of the copy.
 */
export async function copyToPostgres(
  sqliteFile: string,
  schema: string,
  server = BENCH_POSTGRES_URL,
): Promise<{ url: string; seconds: number }> {
  const started = performance.now();
  const url = new URL(server);
  url.searchParams.set('schema', schema);
  const client = new pg.Client({ connectionString: postgresConnectionString(url.toString()) });
  await client.connect().catch((error: Error) => {
    throw new Error(
      `PostgreSQL is unreachable at ${server} (${error.message}): point BENCH_POSTGRES_URL at one, or ` +
        'measure SQLite only with BENCH_ENGINES=sqlite.',
    );
  });
  const source = new Database(sqliteFile, { readonly: true });
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${quote(schema)} CASCADE`);
    await migrate(loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' }));
    const tables = await columnsByTable(client, schema);
    const targets = [...tables.keys()].map((table) => qualified(schema, table));
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(`TRUNCATE ${targets.join(', ')}`);
    for (const [table, columns] of tables) {
      const sourceColumns = new Set(
        source.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[],
      );
      const missing = columns.filter((column) => !sourceColumns.has(column.name));
      if (missing.length)
        throw new Error(`${table}: the SQLite copy has no ${missing.map((column) => column.name).join(', ')}`);
      await copyTable(source, client, schema, table, columns);
    }
    await client.query('COMMIT');
    await continueSequences(client, schema);
    await client.query(`ANALYZE ${targets.join(', ')}`);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    source.close();
    await client.end();
  }
  return { url: url.toString(), seconds: (performance.now() - started) / 1000 };
}

/** Drops a copy made by copyToPostgres. */
export async function dropPostgresCopy(schema: string, server = BENCH_POSTGRES_URL) {
  const client = new pg.Client({ connectionString: postgresConnectionString(server) });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${quote(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}
