import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSchema } from '../src/db/client.js';
import { listenerName } from '../src/db/data-version.js';
import { TEST_POSTGRES_URL } from './support/database.js';
import { readUntil, startInstance, stop, type Instance } from './support/processes.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// A PostgreSQL server process learns of other processes' writes from LISTEN/NOTIFY. When its LISTEN connection is
// killed it reads the data version every DATA_VERSION_POLL_MS, so it is never staler than that, and it listens again.

const POLL_MS = 300;
/** The poll interval, with room for a loaded machine. */
const POLL_BOUND_MS = POLL_MS * 5;

let reader: TestServer;
let writer: Instance;
let admin: pg.Client;
const log: string[] = [];

beforeAll(async () => {
  reader = await startServer(
    { RESPONSE_CACHE_TTL_MS: '600000', DATA_VERSION_POLL_MS: String(POLL_MS) },
    { logTo: { write: (line) => void log.push(line) } },
  );
  writer = await startInstance(reader.app.config.databaseUrl, { RESPONSE_CACHE_TTL_MS: '600000' });
  admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
}, 120_000);

afterAll(async () => {
  await admin?.end();
  if (writer) await stop(writer);
  await reader?.close();
});

/** The backends LISTENing for the reader (in this process) on its schema. */
async function listeners(): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query = 'LISTEN data_version'`,
    [listenerName(postgresSchema(reader.app.config.databaseUrl))],
  );
  return rows.map((row) => row.pid);
}

async function createOrganizer(name: string) {
  const response = await fetch(`${writer.base}/wp-json/calendar/events/v1/organizers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: ADMIN_AUTHORIZATION },
    body: JSON.stringify({ organizer: name }),
  });
  expect(response.status).toBe(201);
}

async function organizers(): Promise<string[]> {
  const response = await fetch(`${reader.url}/wp-json/calendar/events/v1/organizers?per_page=50`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { organizers: { organizer: string }[] }).organizers
    .map((one) => one.organizer)
    .sort();
}

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the data version on PostgreSQL when the LISTEN connection is lost', () => {
  it('listens with no statement while idle, polls within DATA_VERSION_POLL_MS once killed, then listens again', async () => {
    const [listening] = await listeners();
    expect(listening).toBeDefined();
    expect(await organizers()).toEqual([]);
    expect(await reader.countQueries(() => idle(POLL_MS * 3))).toBe(0);

    const { rows } = await admin.query<{ done: boolean }>('SELECT pg_terminate_backend($1) AS done', [listening]);
    expect(rows[0]!.done).toBe(true);
    expect(
      await readUntil(
        async () => log.join(''),
        (lines) => lines.includes('not listening'),
        POLL_BOUND_MS,
      ),
    ).toContain('"level":"warn"');
    await createOrganizer('Dock choir');
    expect(await readUntil(organizers, (names) => names.length > 0, POLL_BOUND_MS)).toEqual(['Dock choir']);

    // A new LISTEN connection, and no more polling: idle again costs no statement, and a write is still seen.
    const relistening = await readUntil(
      listeners,
      (pids) => pids.length === 1 && pids[0] !== listening,
      POLL_BOUND_MS * 4,
    );
    expect(relistening).toHaveLength(1);
    expect(relistening[0]).not.toBe(listening);
    await idle(POLL_MS * 2);
    expect(await reader.countQueries(() => idle(POLL_MS * 3))).toBe(0);
    await createOrganizer('Pier band');
    expect(await readUntil(organizers, (names) => names.length > 1)).toEqual(['Dock choir', 'Pier band']);
  });
});

describe('the data version on PostgreSQL with no LISTEN connection at all', () => {
  // The LISTEN address refuses connections and polling is rare: only the process's own commits can tell it of a change.
  let alone: TestServer;
  beforeAll(async () => {
    alone = await startServer(
      {
        RESPONSE_CACHE_TTL_MS: '600000',
        DATA_VERSION_POLL_MS: '600000',
        DATA_VERSION_LISTEN_URL: 'postgresql://postgres@127.0.0.1:1/test',
      },
      { logTo: { write: () => undefined } },
    );
  }, 120_000);
  afterAll(() => alone?.close());

  const names = async () => {
    const response = await fetch(`${alone.url}/wp-json/calendar/events/v1/organizers?per_page=50`);
    return ((await response.json()) as { organizers: { organizer: string }[] }).organizers.map((one) => one.organizer);
  };

  it('still sees its own writes at the very next read', async () => {
    expect(await names()).toEqual([]);
    expect(await alone.countQueries(async () => expect(await names()).toEqual([]))).toBe(0);
    await alone.gqlOk(`mutation($input: OrganizerInput!) { createOrganizer(input: $input) { id } }`, {
      input: { name: 'Ferry fiddlers' },
    });
    expect(await names()).toEqual(['Ferry fiddlers']);
  });
});
