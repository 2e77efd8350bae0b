import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/client.js';
import { unfinishedSeries } from '../src/graphql/events/series-sync.js';
import { sqlitePlan, TEST_ENGINE } from './support/database.js';
import { createEvent } from './support/factories.js';
import { startServer, type TestServer } from './support/server.js';

// Series upkeep asks for unfinished series syncs at every round, in every process. A statement that walks every
// event held the event loop for 26–39 ms a round at 100,000 events (bench/results.md, History 13).

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.close();
});

describe('series upkeep reads', () => {
  it('finds unfinished series syncs through the syncedThrough index, not by walking the events', async () => {
    const events = await Promise.all(Array.from({ length: 3 }, () => createEvent(server)));
    const statements: Array<{ query: string; params: string }> = [];
    const db = createDb(loadConfig({ DATABASE_URL: server.databaseUrl }), { counter: { count: 0 } });
    db.$on('query' as never, (event: { query: string; params: string }) => void statements.push(event));
    try {
      await db.event.update({ where: { id: events[1]!.id }, data: { syncedThrough: new Date() } });
      expect(await unfinishedSeries(db)).toEqual([{ id: events[1]!.id }]);
    } finally {
      await db.event.update({ where: { id: events[1]!.id }, data: { syncedThrough: null } });
      await db.$disconnect();
    }
    if (TEST_ENGINE !== 'sqlite') return;
    const read = statements.find(({ query }) => /^SELECT .*syncedThrough\W* IS NOT NULL/.test(query))!;
    expect(await sqlitePlan(server.databaseUrl, read)).toMatch(
      /^SEARCH main\.Event USING (COVERING )?INDEX Event_syncedThrough_idx/,
    );
  });
});
