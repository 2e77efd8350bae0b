import pg from 'pg';
import { TEST_POSTGRES_URL } from './database.js';

/** Fails the PostgreSQL run at once, with the reason, when the server cannot be reached. */
export default async function checkPostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(
      `PostgreSQL is unreachable at ${TEST_POSTGRES_URL} (${(error as Error).message}). Start it, point TEST_POSTGRES_URL ` +
        'at one, or run SQLite only with TEST_ENGINES=sqlite.',
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
