import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationNames } from '../src/db/migrate.js';
import { freshDatabase, querySql, type TestDatabase } from './support/database.js';
import { readUntil, rest, startInstance, stop, type Instance } from './support/processes.js';

// Two server processes on one PostgreSQL database, as behind a load balancer: whatever one writes the other reads
// within the staleness bound (the change notification's delay), and concurrent writes through both keep slugs unique
// and counts right.

let database: TestDatabase;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  database = await freshDatabase('');
  // Both start at once: the migration runs under an advisory lock, once.
  [a, b] = await Promise.all([startInstance(database.url), startInstance(database.url)]);
}, 120_000);

afterAll(async () => {
  const codes = await Promise.all([a, b].filter(Boolean).map(stop));
  await database?.drop();
  expect(codes.every((code) => code === 0)).toBe(true);
});

const tomorrow = (hour: number) =>
  `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)} ${String(hour).padStart(2, '0')}:00:00`;

describe('two server processes on one PostgreSQL database', () => {
  it('started at once on an empty database, applied each migration once (an advisory lock; issue 30, point 5)', async () => {
    const rows = await querySql(
      database.url,
      'SELECT migration_name AS name, count(*)::int AS times FROM _prisma_migrations GROUP BY migration_name ORDER BY migration_name',
    );
    expect(rows).toEqual(
      migrationNames('postgres')
        .sort()
        .map((name) => ({ name, times: 1 })),
    );
    for (const instance of [a, b]) expect((await fetch(`${instance.base}/readyz`)).status).toBe(200);
  });

  it('reads through one process what the other just wrote, and sees updates and deletes within the bound', async () => {
    const created = await rest(a, 'POST', '/events', {
      title: 'Cross-process concert',
      start_date: tomorrow(19),
      end_date: tomorrow(21),
    });
    expect(created.status).toBe(201);
    const read = await rest(b, 'GET', `/events/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.title).toBe('Cross-process concert');

    const updated = await rest(b, 'POST', `/events/${created.body.id}`, { title: 'Cross-process concert (moved)' });
    expect(updated.status).toBe(200);
    expect((await rest(a, 'GET', `/events/${created.body.id}`)).body.title).toBe('Cross-process concert (moved)');

    expect((await rest(a, 'DELETE', `/events/${created.body.id}`)).status).toBe(200);
    expect(
      (
        await readUntil(
          () => rest(b, 'GET', `/events/${created.body.id}`),
          (read) => read.status === 403,
        )
      ).status,
    ).toBe(403);
  });

  it('gives concurrent creates with the same title distinct slugs, with no duplicate-key errors', async () => {
    const writes = Array.from({ length: 12 }, (_, n) =>
      rest(n % 2 ? a : b, 'POST', '/events', {
        title: 'Same title everywhere',
        start_date: tomorrow(10),
        end_date: tomorrow(11),
      }),
    );
    const results = await Promise.all(writes);
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const slugs = results.map((r) => r.body.slug as string);
    expect(new Set(slugs).size).toBe(12);
    expect(slugs).toContain('same-title-everywhere');
    for (const slug of slugs) expect(slug).toMatch(/^same-title-everywhere(-\d+)?$/);
  });

  it('keeps totals and term counts right under concurrent writes through both processes', async () => {
    const category = await rest(a, 'POST', '/categories', { name: 'Concurrent Jazz' });
    expect(category.status).toBe(201);
    const writes = Array.from({ length: 10 }, (_, n) =>
      rest(n % 2 ? a : b, 'POST', '/events', {
        title: `Concurrent jam ${n}`,
        start_date: tomorrow(12),
        end_date: tomorrow(13),
        categories: [category.body.id, 'Concurrent Tag Made Twice'],
      }),
    );
    expect((await Promise.all(writes)).map((r) => r.status)).toEqual(Array(10).fill(201));

    for (const instance of [a, b]) {
      const term = await rest(instance, 'GET', `/categories/${category.body.id}`);
      expect(term.body.count).toBe(10);
      const list = await rest(instance, 'GET', `/events?categories=${category.body.id}&per_page=50`);
      expect(list.body.total).toBe(10);
      expect(list.headers.get('x-tec-total')).toBe('10');
      // The category named in every concurrent write exists once.
      const named = await rest(instance, 'GET', '/categories?search=Concurrent%20Tag%20Made%20Twice&hide_empty=false');
      expect(named.body.total).toBe(1);
      expect(named.body.categories[0].count).toBe(10);
    }
  });
});
