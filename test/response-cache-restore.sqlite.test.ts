import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

// A SQLite database restored from a backup while the service runs (SQLite's online backup, as `sqlite3 .restore`
// does it): the data version goes back to an earlier one, and the response cache must forget what it kept rather
// than serve answers that show records the restored database no longer has. SQLite only: PostgreSQL's data version
// is a sequence, which a restore of the tables does not turn back (a `*.sqlite.test.ts` file runs on SQLite only).

let service: TestServer;
let databasePath: string;

beforeAll(async () => {
  service = await startServer({ RESPONSE_CACHE_MB: '16' });
  databasePath = service.databaseUrl.replace(/^file:/, '');
});
afterAll(() => service?.close());

const titles = async () => {
  const list = await call(service, 'GET', '/events', { query: { start_date: '2031-01-01', end_date: '2031-12-31' } });
  expect(list.status).toBe(200);
  return (list.body.events as { title: string }[]).map((event) => event.title);
};

async function createEvent(title: string): Promise<number> {
  const created = await call(service, 'POST', '/events', {
    json: { title, status: 'publish', start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00' },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe('a database restored from a backup while the service runs', () => {
  it('is what the service answers next, not what its response cache kept from before', async () => {
    await createEvent('Kept in the backup');
    const backupPath = join(databasePath, '..', 'backup.db');
    const live = new Database(databasePath, { readonly: true });
    await live.backup(backupPath);
    live.close();

    const lost = await createEvent('Written after the backup');
    expect(await titles()).toEqual(['Kept in the backup', 'Written after the backup']);
    expect(await titles()).toEqual(['Kept in the backup', 'Written after the backup']); // now answered from memory

    const backup = new Database(backupPath, { readonly: true });
    await backup.backup(databasePath);
    backup.close();

    expect(await titles()).toEqual(['Kept in the backup']);
    expect((await call(service, 'GET', `/events/${lost}`)).status).toBe(404);
  });
});
