import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDatabase } from '../bench/generate.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/client.js';
import { sqlitePlan } from './support/database.js';
import { startServer, type TestServer } from './support/server.js';

// SQLite plans from the statistics ANALYZE keeps in the file (src/db/planner-statistics.ts). Without them, the total of
// a search list over a wide window walked Event_endLocal_idx row by row: 280 ms at 100,000 events against 52 ms for
// reading the table (bench/results.md, History 15).

const EVENTS = 3000;
let dir: string;
let databaseUrl: string;
let server: TestServer | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'planner-statistics-'));
  // The generator migrates an empty database, then fills it: the statistics, if any, describe empty tables.
  const data = await generateDatabase(join(dir, 'calendar.db'), EVENTS);
  databaseUrl = `file:${data.path}`;
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The statement of a search list's total as the service sends it, with the plan SQLite makes for it. */
async function searchTotalPlan(): Promise<{ total: number; plan: string }> {
  const statements: Array<{ query: string; params: string }> = [];
  const db = createDb(loadConfig({ DATABASE_URL: databaseUrl }), { counter: { count: 0 } });
  db.$on('query' as never, (event: { query: string; params: string }) => void statements.push(event));
  const now = new Date();
  const local = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');
  try {
    const total = await db.event.count({
      where: {
        hideFromListings: false,
        isSeriesMaster: false,
        status: { in: ['publish'] },
        startLocal: { gte: local(now) },
        startsAt: { gte: now },
        endLocal: { lte: local(new Date(now.getTime() + 2 * 365 * 86_400_000)) },
        OR: [
          { title: { contains: 'music' } },
          {
            AND: [
              { OR: [{ description: { contains: 'music' } }, { excerpt: { contains: 'music' } }] },
              { password: '' },
            ],
          },
        ],
      },
    });
    const read = statements.find(({ query }) => /COUNT/.test(query))!;
    return { total, plan: await sqlitePlan(databaseUrl, read) };
  } finally {
    await db.$disconnect();
  }
}

describe('SQLite planner statistics', () => {
  it('are gathered when the service starts, so a search total reads the table instead of walking an index', async () => {
    const before = await searchTotalPlan();
    // Without statistics the end bound looks selective: the walk this test guards against.
    expect(before.plan).toMatch(/USING INDEX Event_endLocal_idx/);

    server = await startServer({}, { databaseOf: { databaseUrl } });
    const after = await searchTotalPlan();
    expect(after.plan).not.toMatch(/Event_endLocal_idx/);
    expect(after.total).toBe(before.total);
    expect(after.total).toBeGreaterThan(0);

    // The service's own list agrees with the statement's total.
    const response = await fetch(`${server.url}/wp-json/calendar/events/v1/events?search=music&per_page=1`);
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('x-tec-total'))).toBeGreaterThan(0);
  });
});
