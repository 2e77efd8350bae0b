import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/rest.js';
import { runSql } from './support/database.js';
import { createCategory, createEvent, createTag, createVenue } from './support/factories.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// The change feed: GET /changes and GraphQL `changes`. The property-based sync test is in changes-sync.test.ts.

let server: TestServer;

beforeAll(async () => {
  // Pruning every second, so that the test of an expired cursor sees the periodic pruning do it.
  server = await startServer({ CHANGES_PRUNE_INTERVAL_MS: '1000' });
});

afterAll(async () => {
  await server?.close();
});

const changes = (query: Record<string, unknown> = {}, authorization?: string) =>
  call(server, 'GET', '/changes', { query, headers: authorization ? { authorization } : {} });

async function cursorNow(): Promise<string> {
  const response = await changes();
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ changes: [], next: expect.any(String), more: false });
  return response.body.next;
}

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /changes', () => {
  it('answers an empty page and a cursor without since, then the changes after it in commit order', async () => {
    const since = await cursorNow();
    const venue = await createVenue(server);
    const tag = await createTag(server);
    await server.gqlOk(`mutation ($id: ID!) { updateVenue(id: $id, input: { city: "Linz" }) { id } }`, {
      id: String(venue.id),
    });
    const response = await changes({ since });
    expect(response.status).toBe(200);
    expect(response.body.more).toBe(false);
    // The venue's create and update in one page are one change, at the place of its last.
    expect(response.body.changes.map((c: any) => `${c.type} ${c.id} ${c.action}`)).toEqual([
      `tag ${tag.id} created`,
      `venue ${venue.id} created`,
    ]);
    for (const change of response.body.changes) {
      expect(Object.keys(change)).toEqual(['type', 'id', 'action', 'modified_utc']);
      expect(change.modified_utc).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    }
    const again = await changes({ since: response.body.next });
    expect(again.body).toEqual({ changes: [], next: response.body.next, more: false });
  });

  it('pages with per_page and more, and a cursor read twice answers the same page', async () => {
    const since = await cursorNow();
    const created = [];
    for (let i = 0; i < 5; i++) created.push((await createTag(server)).id);
    const seen: number[] = [];
    let cursor = since;
    for (let page = 0; page < 5; page++) {
      const response = await changes({ since: cursor, per_page: 2 });
      seen.push(...response.body.changes.map((c: any) => c.id));
      expect((await changes({ since: cursor, per_page: 2 })).body).toEqual(response.body);
      cursor = response.body.next;
      if (!response.body.more) break;
    }
    expect(seen).toEqual(created);
  });

  it('with include_data, carries each record as its list shows it (null when deleted), without a request per change', async () => {
    const since = await cursorNow();
    const venue = await createVenue(server, { city: 'Graz' });
    const category = await createCategory(server);
    const event = await createEvent(server, {
      title: 'Embedded in the feed',
      startDate: '2031-04-01 10:00:00',
      endDate: '2031-04-01 11:00:00',
      venues: [{ id: venue.id }],
      categories: [String(category.id)],
    });
    const gone = await createEvent(server, { title: 'Trashed in the feed' });
    await server.gqlOk(`mutation ($id: ID!) { deleteEvent(id: $id) { id } }`, { id: String(gone.id) });
    const plain = await changes({ since });
    const response = await changes({ since, include_data: true });
    expect(response.status).toBe(200);
    expect(plain.body.changes.every((change: any) => !('data' in change))).toBe(true);
    // The same changes, each with `data` besides.
    expect(response.body.changes.map(({ data: _data, ...change }: any) => change)).toEqual(plain.body.changes);
    const last = (type: string, id: number) =>
      response.body.changes.filter((change: any) => change.type === type && change.id === id).at(-1);
    const listedEvent = await call(server, 'GET', '/events', {
      query: { include: String(event.id), start_date: '2031-01-01', end_date: '2031-12-31' },
    });
    expect(last('event', event.id).data).toEqual(listedEvent.body.events[0]);
    const listedVenue = (await call(server, 'GET', '/venues', { query: { search: venue.slug } })).body.venues.find(
      (shown: any) => shown.id === venue.id,
    );
    expect(last('venue', venue.id).data).toEqual(listedVenue);
    expect(last('category', category.id).data).toEqual((await call(server, 'GET', `/categories/${category.id}`)).body);
    expect(last('event', gone.id)).toMatchObject({ action: 'deleted', data: null });
    const refused = await changes({ since, include_data: 'sometimes' });
    expect(refused.status).toBe(400);
  });

  it('shows a record that left an anonymous reader’s view as deleted, while an administrator sees it updated', async () => {
    const event = await createEvent(server);
    const since = await cursorNow();
    await server.gqlOk(`mutation ($id: ID!) { updateEvent(id: $id, input: { status: DRAFT }) { id } }`, {
      id: String(event.id),
    });
    expect((await changes({ since })).body.changes).toEqual([
      expect.objectContaining({ type: 'event', id: event.id, action: 'deleted' }),
    ]);
    expect((await changes({ since }, ADMIN_AUTHORIZATION)).body.changes).toEqual([
      expect.objectContaining({ type: 'event', id: event.id, action: 'updated' }),
    ]);
    const protectedSince = (await changes()).body.next;
    await server.gqlOk(
      `mutation ($id: ID!) { updateEvent(id: $id, input: { status: PUBLISH, password: "pw" }) { id } }`,
      { id: String(event.id) },
    );
    expect((await changes({ since: protectedSince })).body.changes).toEqual([
      expect.objectContaining({ id: event.id, action: 'deleted' }),
    ]);
    expect((await changes({ since: protectedSince }, ADMIN_AUTHORIZATION)).body.changes).toEqual([
      expect.objectContaining({ id: event.id, action: 'updated' }),
    ]);
  });

  it('answers 410 rest_changes_resync_required with a fresh cursor for garbage and tampered cursors', async () => {
    const since = await cursorNow();
    const decoded = Buffer.from(since, 'base64url').toString();
    const [epoch, position] = decoded.split(':');
    const [version, seq] = position!.split('.');
    const tampered = [
      'garbage',
      '',
      'x'.repeat(5000),
      '%00%ff',
      Buffer.from(`${epoch}:${BigInt(version!) + 1000n}.${seq}`).toString('base64url'), // a future position
      Buffer.from(`other0epoch0:${version}.${seq}`).toString('base64url'), // another database's
      Buffer.from(`${epoch}:-1.${seq}`).toString('base64url'),
      Buffer.from(`${epoch}:${version}.99999999999`).toString('base64url'),
      Buffer.from(`${epoch}:${version}`).toString('base64url'),
      `${since}A`,
    ];
    for (const cursor of tampered) {
      const response = await call(server, 'GET', `/changes?since=${encodeURIComponent(cursor)}`);
      if (cursor === '') {
        expect(response.status, 'an empty since is a bad parameter').toBe(400);
        continue;
      }
      expect(response.status, cursor.slice(0, 40)).toBe(410);
      expect(response.body.code).toBe('rest_changes_resync_required');
      expect(response.body.data).toEqual({ status: 410, reason: 'invalid', next: expect.any(String) });
      expect((await changes({ since: response.body.data.next })).status).toBe(200);
    }
  });

  it('clamps a huge per_page to 50 and refuses zero, negative and non-numeric ones', async () => {
    const since = await cursorNow();
    for (let i = 0; i < 55; i++)
      await runSql(
        server.databaseUrl,
        `INSERT INTO "Term" ("taxonomy", "name", "slug") VALUES ('tag', 'bulk ${i} ${since.slice(-6)}', 'bulk-${i}-${since
          .slice(-6)
          .toLowerCase()
          .replace(/[^a-z0-9]/g, '')}')`,
      );
    const huge = await changes({ since, per_page: 1_000_000_000 });
    expect(huge.status).toBe(200);
    expect(huge.body.changes).toHaveLength(50);
    expect(huge.body.more).toBe(true);
    for (const perPage of [0, -1, 'abc', '1e9']) {
      const response = await changes({ since, per_page: perPage });
      expect(response.status, String(perPage)).toBe(400);
      expect(response.body.code).toBe('rest_invalid_param');
    }
  });

  it('answers 410 for a cursor older than the retention once the periodic pruning removed its changes', async () => {
    const since = await cursorNow();
    await createVenue(server);
    const after = (await changes({ since })).body.next;
    // Backdate everything recorded so far beyond the default 30 days; the next pruning (every second here) removes it.
    const old = server.app.config.engine === 'sqlite' ? `'2000-01-01T00:00:00.000+00:00'` : `'2000-01-01 00:00:00'`;
    await runSql(server.databaseUrl, `UPDATE "Change" SET "changedAt" = ${old}`);
    await idle(2500);
    const expired = await changes({ since });
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({
      code: 'rest_changes_resync_required',
      data: { status: 410, reason: 'expired', next: expect.any(String) },
    });
    // The cursor at the last pruned change is still whole.
    expect((await changes({ since: after })).status).toBe(200);
  });
});

describe('GraphQL changes', () => {
  it('answers the same changes as REST, and RESYNC_REQUIRED for a bad cursor', async () => {
    const start = await server.gqlOk(`{ changes { nodes { type } next more } }`);
    expect(start.changes).toEqual({ nodes: [], next: expect.any(String), more: false });
    const venue = await createVenue(server);
    const page = await server.gqlOk(
      `query ($since: String) { changes(since: $since, first: 5) { nodes { type databaseId action modifiedAt } next more } }`,
      {
        since: start.changes.next,
      },
    );
    expect(page.changes.nodes).toEqual([
      { type: 'VENUE', databaseId: venue.id, action: 'CREATED', modifiedAt: expect.any(String) },
    ]);
    const rest = await changes({ since: start.changes.next });
    expect(rest.body.next).toBe(page.changes.next);
    const bad = await server.gql(`{ changes(since: "nonsense") { next } }`);
    expect(bad.errors?.[0]?.extensions).toMatchObject({
      code: 'RESYNC_REQUIRED',
      reason: 'invalid',
      next: expect.any(String),
    });
    for (const first of [0, -5, 101]) {
      const refused = await server.gql(`query ($first: Int) { changes(since: null, first: $first) { next } }`, {
        first,
      });
      expect(refused.errors?.[0]?.extensions?.code, String(first)).toBe('BAD_USER_INPUT');
    }
  });

  it('gives each change the record’s global ID, the one its own `id` answers, for a client cache to evict by', async () => {
    const start = await server.gqlOk(`{ changes { next } }`);
    const venue = await createVenue(server);
    const category = await createCategory(server);
    const page = await server.gqlOk(`query ($since: String) { changes(since: $since) { nodes { type nodeId } } }`, {
      since: start.changes.next,
    });
    const byType = Object.fromEntries(page.changes.nodes.map((change: any) => [change.type, change.nodeId]));
    const refetched = await server.gqlOk(`query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, {
      ids: [byType.VENUE, byType.CATEGORY],
    });
    expect(refetched.nodes).toEqual([
      { __typename: 'Venue', id: venue.globalId },
      { __typename: 'EventCategory', id: category.globalId },
    ]);
  });

  it('answers each changed record in the page as it is now (node), with a statement per type, not per change', async () => {
    const start = (await server.gqlOk(`{ changes { next } }`)).changes.next;
    const venues = [];
    for (let n = 0; n < 12; n++) venues.push(await createVenue(server, { city: `City ${n}` }));
    const events = [];
    for (let n = 0; n < 12; n++) events.push(await createEvent(server, { title: `Changed ${n}` }));
    const trashed = await createEvent(server, { title: 'Gone soon' });
    await server.gqlOk(`mutation ($id: ID!) { deleteEvent(id: $id) { id } }`, { id: String(trashed.id) });
    const feed = (node: string) =>
      `query ($since: String) { changes(since: $since, first: 100) { nodes { type action nodeId ${node} } } }`;
    const query = feed('node { __typename id ... on Venue { city } ... on Event { title venues { name } } }');
    let page: any;
    // The count includes the server's background work (pruning every second here): the least of three reads is the
    // read's own.
    const leastOf = async (read: () => Promise<unknown>) => {
      let least = Number.POSITIVE_INFINITY;
      for (let tries = 0; tries < 3; tries++) least = Math.min(least, await server.countQueries(read));
      return least;
    };
    const statements = await leastOf(async () => {
      page = await server.gqlOk(query, { since: start }, null);
    });
    const withoutNodes = await leastOf(() => server.gqlOk(feed(''), { since: start }, null));
    const nodes = page.changes.nodes;
    expect(nodes).toHaveLength(25);
    for (const change of nodes.filter((c: any) => c.action !== 'DELETED')) expect(change.node.id).toBe(change.nodeId);
    expect(nodes.filter((c: any) => c.type === 'VENUE').map((c: any) => c.node.city)).toEqual(
      venues.map((_, n) => `City ${n}`),
    );
    expect(nodes.filter((c: any) => c.type === 'EVENT' && c.node).map((c: any) => c.node.title)).toEqual(
      events.map((_, n) => `Changed ${n}`),
    );
    // The trashed event is gone for an anonymous reader: deleted, without a node.
    expect(nodes.find((c: any) => c.nodeId === trashed.globalId)).toMatchObject({ action: 'DELETED', node: null });
    // The records of 25 changes, their venue links and venues: a few batched reads more than the feed itself.
    expect(statements - withoutNodes).toBeLessThanOrEqual(6);
  });
});
