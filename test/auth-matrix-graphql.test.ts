import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminData,
  cellLabel,
  createdStatus,
  createPeople,
  createRecords,
  graphql,
  KINDS,
  mapLimit,
  matrixCells,
  mayCreate,
  mayDelete,
  mayEdit,
  mayListUnpublished,
  mayManageTerms,
  mayRead,
  perViewerRecordSets,
  roleOf,
  sharedRecordSet,
  STATUSES,
  tableDiff,
  VIEWERS,
  WRITE_STATUSES,
  type HttpGraphQL,
  type Kind,
  type People,
  type RecordSet,
  type Status,
  type ViewerName,
} from './auth-fixtures.js';
import { unique } from './support/factories.js';
import { dayAt } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

// The permission matrix over GraphQL (POST /graphql): every viewer (anonymous and each role) × operation ×
// own/others' record × status. Reads take every kind and status in one request per viewer (by ID and by slug); writes
// are one request each (a refused non-null mutation field would stop the ones after it). Refusals answer HTTP 200 with
// `extensions.code` UNAUTHENTICATED (anonymous) or FORBIDDEN (+ `reason`); only credentials that do not verify are an
// HTTP 401 (auth-credentials.test.ts). Events take every status; venues and organizers take WRITE_STATUSES.graphql
// here and the rest in auth-matrix-rest.test.ts.

let server: TestServer;
let people: People;
let shared: RecordSet;
let deletions: Record<ViewerName, RecordSet>;
const slugs = new Map<string, string>();
/** A published venue and organizer linked to every shared event and to a trashed one. */
let hub: { venue: number; organizer: number; trashed: number };

const TYPE: Record<Kind, string> = { event: 'Event', venue: 'Venue', organizer: 'Organizer' };
const LIST: Record<Kind, string> = { event: 'events', venue: 'venues', organizer: 'organizers' };
const EDIT_INPUT: Record<Kind, string> = {
  event: '{ excerpt: "edited" }',
  venue: '{ phone: "555-0100" }',
  organizer: '{ phone: "555-0100" }',
};
const CONCURRENCY = 4;

beforeAll(async () => {
  server = await startServer();
  people = await createPeople(server);
  shared = await sharedRecordSet(server, people, 'gmxshared');
  deletions = await perViewerRecordSets(server, people, 'gmxdel', (kind) => WRITE_STATUSES.graphql[kind]);
  const fields = KINDS.flatMap((kind) =>
    shared.entries(kind).map((record) => `${kind[0]}${record.id}: ${kind}(id: ${record.id}) { slug }`),
  );
  const data = await adminData(server, `{ ${fields.join(' ')} }`);
  for (const kind of KINDS)
    for (const record of shared.entries(kind)) slugs.set(`${kind} ${record.id}`, data[`${kind[0]}${record.id}`].slug);
  const [venue, organizer, trashed] = await createRecords(server, people, [
    { kind: 'venue', status: 'publish', owner: 'other', token: 'gmxhub' },
    { kind: 'organizer', status: 'publish', owner: 'other', token: 'gmxhub' },
    { kind: 'event', status: 'trash', owner: 'other', token: 'gmxhub' },
  ]);
  hub = { venue: venue!, organizer: organizer!, trashed: trashed! };
  const events = [...shared.entries('event').map((record) => record.id), hub.trashed];
  await adminData(
    server,
    `mutation { ${events.map((id) => `l${id}: updateEvent(id: ${id}, input: { venues: [{ id: ${venue} }], organizers: [{ id: ${organizer} }] }) { id }`).join(' ')} }`,
  );
});
afterAll(() => server?.close());

const run = (viewer: ViewerName, query: string, variables: Record<string, unknown> = {}) =>
  graphql(server, query, variables, people.actors[viewer].authorization);

/** The refusal a viewer gets for a write it may not make. */
const refusal = (viewer: ViewerName) => (viewer === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN NOT_ALLOWED');

/** One mutation's outcome: `ok [status]` or `<code> [reason]`, flagging an HTTP status other than 200. */
function outcome(result: HttpGraphQL, field: string, id?: number): string {
  const http = result.status === 200 ? '' : ` (HTTP ${result.status})`;
  const error = result.body.errors?.[0];
  if (error) return `${[error.extensions?.code, error.extensions?.reason].filter(Boolean).join(' ')}${http}`;
  return `${recordOutcome(result.body.data?.[field], id)}${http}`;
}

/** A record answered by a write: `ok [status] [by <authorId>]`, from the fields selected. */
function recordOutcome(record: any, id?: number): string {
  if (!record) return `no record: ${JSON.stringify(record)}`;
  return [
    'ok',
    record.status,
    record.authorId !== undefined ? `by ${record.authorId}` : undefined,
    id !== undefined && record.id !== id ? '(wrong id)' : undefined,
  ]
    .filter(Boolean)
    .join(' ');
}

describe('GraphQL matrix: single reads (event, venue, organizer by ID and by slug)', () => {
  it('readable → the record; otherwise null with FORBIDDEN NOT_ACCESSIBLE at its path; viewer is the signed-in user', async () => {
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    await mapLimit(VIEWERS, 3, async (viewer) => {
      // `databaseId` unaliased: the document holds 60 aliased reads, and armor counts every alias (at most 100).
      const fields: string[] = ['viewer { databaseId login role }'];
      const aliases: { alias: string; label: string; id: number; allowed: boolean }[] = [];
      for (const cell of matrixCells(KINDS).filter((c) => c.viewer === viewer)) {
        const id = shared.id(cell.kind, cell.status, people.ownerKey(cell));
        const allowed = mayRead(roleOf(viewer), cell.owner === 'own', cell.status);
        const slug = slugs.get(`${cell.kind} ${id}`)!;
        aliases.push({ alias: `i${id}${cell.kind[0]}`, label: `${cellLabel(cell)} by ID`, id, allowed });
        aliases.push({ alias: `s${id}${cell.kind[0]}`, label: `${cellLabel(cell)} by slug`, id, allowed });
        fields.push(`i${id}${cell.kind[0]}: ${cell.kind}(id: ${id}) { databaseId status }`);
        fields.push(`s${id}${cell.kind[0]}: ${cell.kind}BySlug(slug: "${slug}") { databaseId status }`);
      }
      const result = await run(viewer, `{ ${fields.join(' ')} }`);
      expect(result.status, result.text).toBe(200);
      const actor = people.actors[viewer];
      expect(result.body.data?.viewer, viewer).toEqual(
        actor.id === null ? null : { databaseId: actor.id, login: actor.login, role: actor.role!.toUpperCase() },
      );
      const errors = new Map((result.body.errors ?? []).map((error) => [String(error.path?.[0]), error]));
      for (const { alias, label, id, allowed } of aliases) {
        expected[label] = allowed ? `ok ${id}` : `null FORBIDDEN NOT_ACCESSIBLE`;
        const record = result.body.data?.[alias];
        const error = errors.get(alias);
        actual[label] = record
          ? `ok ${record.databaseId}`
          : `${record} ${error?.extensions?.code} ${error?.extensions?.reason}`;
      }
    });
    expect(Object.keys(expected)).toHaveLength(2 * matrixCells(KINDS).length);
    expect(tableDiff(expected, actual)).toEqual([]);
  });

  it("a venue's and an organizer's events are those the viewer may read (never trashed ones)", async () => {
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    const EVENT_IDS = 'totalCount edges { node { id: databaseId } }';
    const ids = (events: { edges: { node: { id: number } }[] }) =>
      events.edges
        .map((edge) => edge.node.id)
        .sort((a, b) => a - b)
        .join(',');
    await mapLimit(VIEWERS, 3, async (viewer) => {
      const result = await run(
        viewer,
        `{ venue(id: ${hub.venue}) { events(first: 100) { ${EVENT_IDS} } } organizer(id: ${hub.organizer}) { events(first: 100) { ${EVENT_IDS} } } }`,
      );
      const readable = shared
        .entries('event')
        .filter((record) => mayRead(roleOf(viewer), record.owner === viewer, record.status as Status));
      const readableIds = readable
        .map((record) => record.id)
        .sort((a, b) => a - b)
        .join(',');
      for (const kind of ['venue', 'organizer'] as const) {
        // The whole connection fits one page (first: 100), and totalCount counts the same events.
        expected[`${viewer} ${kind}.events`] = `${readable.length}: ${readableIds}`;
        const events = result.body.data?.[kind]?.events;
        actual[`${viewer} ${kind}.events`] = events ? `${events.totalCount}: ${ids(events)}` : result.text;
      }
    });
    expect(tableDiff(expected, actual)).toEqual([]);
  });

  it('trashed records: those who may edit them read them; others get FORBIDDEN NO_LONGER_AVAILABLE', async () => {
    const [id] = await createRecords(server, people, [
      { kind: 'event', status: 'trash', owner: 'other', token: 'gmxtrash' },
    ]);
    const query = `{ event(id: ${id}) { id: databaseId status } }`;
    const admin = await run('administrator', query);
    expect(admin.body.data?.event).toEqual({ id, status: 'TRASH' });
    for (const viewer of ['anonymous', 'author'] as const) {
      const refused = await run(viewer, query);
      expect(refused.body.data?.event, viewer).toBeNull();
      expect(refused.body.errors?.[0]?.extensions, viewer).toMatchObject({
        code: 'FORBIDDEN',
        reason: 'NO_LONGER_AVAILABLE',
      });
    }
  });
});

describe('GraphQL matrix: lists', () => {
  it('each viewer lists exactly the records it may read, of every kind', async () => {
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    const search = (kind: Kind) =>
      kind === 'event' ? `filter: { search: "${shared.token}" }` : `search: "${shared.token}"`;
    await mapLimit(VIEWERS, 3, async (viewer) => {
      const result = await run(
        viewer,
        `{ ${KINDS.map((kind) => `${kind}: ${LIST[kind]}(${search(kind)}, first: 100) { totalCount edges { node { id: databaseId } } }`).join(' ')} }`,
      );
      for (const kind of KINDS) {
        const label = `${viewer} ${LIST[kind]}`;
        expected[label] = shared
          .entries(kind)
          .filter((record) => mayRead(roleOf(viewer), record.owner === viewer, record.status as Status))
          .map((record) => record.id)
          .sort((a, b) => a - b)
          .join(',');
        const list = result.body.data?.[kind];
        actual[label] = list
          ? list.edges
              .map((edge: { node: { id: number } }) => edge.node.id)
              .sort((a: number, b: number) => a - b)
              .join(',')
          : `${result.status} ${JSON.stringify(result.body.errors)}`;
      }
    });
    expect(tableDiff(expected, actual)).toEqual([]);
  });

  it('asking for drafts: BAD_USER_INPUT naming statuses for readers; writers get the drafts they may read', async () => {
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    const rows = VIEWERS.flatMap((viewer) => KINDS.map((kind) => ({ viewer, kind })));
    await mapLimit(rows, CONCURRENCY, async ({ viewer, kind }) => {
      const role = roleOf(viewer);
      const label = `${viewer} ${LIST[kind]}`;
      expected[label] = mayListUnpublished(role)
        ? shared
            .entries(kind)
            .filter((record) => record.status === 'draft' && mayRead(role, record.owner === viewer, 'draft'))
            .map((record) => record.id)
            .sort((a, b) => a - b)
            .join(',')
        : 'BAD_USER_INPUT statuses';
      const args =
        kind === 'event'
          ? `filter: { search: "${shared.token}", statuses: [DRAFT] }`
          : `search: "${shared.token}", statuses: [DRAFT]`;
      const result = await run(
        viewer,
        `{ list: ${LIST[kind]}(${args}, first: 100) { edges { node { id: databaseId } } } }`,
      );
      const error = result.body.errors?.[0];
      actual[label] = error
        ? `${error.extensions?.code} ${Object.keys(error.extensions?.fields ?? {}).join(',')}`
        : result.body
            .data!.list.edges.map((edge: { node: { id: number } }) => edge.node.id)
            .sort((a: number, b: number) => a - b)
            .join(',');
    });
    expect(tableDiff(expected, actual)).toEqual([]);
  });
});

/** One write of the matrix: who makes it, the mutation field (with its selection), and whether it should succeed. */
interface WriteRow {
  viewer: ViewerName;
  label: string;
  field: string;
  allowed: boolean;
  expected: string;
  id?: number;
}

/**
 * Runs the rows and answers label → outcome. Writes expected to succeed go in one request per viewer (aliased fields
 * run one after the other), so a mistaken success costs little; a field that fails there stops the fields after it,
 * which then read "not run". Writes expected to be refused go one request each, as a refused non-null mutation field
 * would stop any that followed it.
 */
async function runWrites(rows: WriteRow[]): Promise<Record<string, string>> {
  const actual: Record<string, string> = {};
  const batches = new Map<ViewerName, WriteRow[]>();
  for (const row of rows.filter((r) => r.allowed)) batches.set(row.viewer, [...(batches.get(row.viewer) ?? []), row]);
  const jobs: (() => Promise<void>)[] = [];
  for (const [viewer, batch] of batches) {
    jobs.push(async () => {
      const result = await run(viewer, `mutation { ${batch.map((row, i) => `w${i}: ${row.field}`).join(' ')} }`);
      const errors = new Map((result.body.errors ?? []).map((error) => [String(error.path?.[0]), error]));
      batch.forEach((row, i) => {
        const record = result.body.data?.[`w${i}`];
        const error = errors.get(`w${i}`);
        const http = result.status === 200 ? '' : ` (HTTP ${result.status})`;
        actual[row.label] = record
          ? recordOutcome(record, row.id) + http
          : error
            ? [error.extensions?.code, error.extensions?.reason].filter(Boolean).join(' ') + http
            : 'not run';
      });
    });
  }
  for (const row of rows.filter((r) => !r.allowed)) {
    jobs.push(async () => {
      actual[row.label] = outcome(await run(row.viewer, `mutation { result: ${row.field} }`), 'result', row.id);
    });
  }
  await mapLimit(jobs, CONCURRENCY, (job) => job());
  return actual;
}

const expectedTable = (rows: WriteRow[]) => Object.fromEntries(rows.map((row) => [row.label, row.expected]));

describe.each(KINDS)('GraphQL matrix: %s writes', (kind) => {
  const cells = matrixCells([kind], WRITE_STATUSES.graphql[kind]);

  it(`update${TYPE[kind]}: allowed → the record, status kept; else UNAUTHENTICATED / FORBIDDEN`, async () => {
    const rows = cells.map((cell): WriteRow => {
      const id = shared.id(kind, cell.status, people.ownerKey(cell));
      const allowed = mayEdit(roleOf(cell.viewer), cell.owner === 'own', cell.status);
      const field = `update${TYPE[kind]}(id: ${id}, input: ${EDIT_INPUT[kind]}) { id: databaseId status }`;
      return {
        viewer: cell.viewer,
        label: cellLabel(cell),
        field,
        allowed,
        expected: allowed ? `ok ${cell.status.toUpperCase()}` : refusal(cell.viewer),
        id,
      };
    });
    expect(tableDiff(expectedTable(rows), await runWrites(rows))).toEqual([]);
  });

  it(`delete${TYPE[kind]}: allowed → status trash; else UNAUTHENTICATED / FORBIDDEN`, async () => {
    const rows = cells.map((cell): WriteRow => {
      const id = deletions[cell.viewer].id(kind, cell.status, people.ownerKey(cell));
      const allowed = mayDelete(roleOf(cell.viewer), cell.owner === 'own', cell.status);
      return {
        viewer: cell.viewer,
        label: cellLabel(cell),
        field: `delete${TYPE[kind]}(id: ${id}) { id: databaseId status }`,
        allowed,
        expected: allowed ? 'ok TRASH' : refusal(cell.viewer),
        id,
      };
    });
    expect(tableDiff(expectedTable(rows), await runWrites(rows))).toEqual([]);
  });

  it(`create${TYPE[kind]}: users with edit_posts, status scaled back without publish_posts; else UNAUTHENTICATED / FORBIDDEN`, async () => {
    const requests: (Status | undefined)[] = kind === 'event' ? [undefined, ...STATUSES] : [undefined, 'private'];
    const rows = VIEWERS.flatMap((viewer) =>
      requests.map((requested): WriteRow => {
        const role = roleOf(viewer);
        const allowed = !!role && mayCreate(role);
        const name = JSON.stringify(unique(`Created ${kind}`));
        const status = requested ? `, status: ${requested.toUpperCase()}` : '';
        const input =
          kind === 'event'
            ? `{ title: ${name}, startDate: "${dayAt(6)}", endDate: "${dayAt(6, '12:00:00')}"${status} }`
            : `{ name: ${name}${status} }`;
        return {
          viewer,
          label: `${viewer} creates ${kind} asking ${requested ?? 'no status'}`,
          field: `create${TYPE[kind]}(input: ${input}) { status authorId }`,
          allowed,
          expected: allowed
            ? `ok ${createdStatus(role!, requested).toUpperCase()} by ${people.actors[viewer].id}`
            : refusal(viewer),
        };
      }),
    );
    expect(tableDiff(expectedTable(rows), await runWrites(rows))).toEqual([]);
  });
});

describe.each([
  ['EventCategory', 'createEventCategory'],
  ['EventTag', 'createEventTag'],
] as const)('GraphQL matrix: %s writes', (type, create) => {
  let targets: Record<ViewerName, { update: number; remove: number }>;

  beforeAll(async () => {
    const fields = VIEWERS.flatMap((viewer) =>
      (['update', 'remove'] as const).map(
        (use) =>
          `${viewer}_${use}: ${create}(input: { name: "${unique(`${type} ${viewer} ${use}`)}" }) { id: databaseId }`,
      ),
    );
    const data = await adminData(server, `mutation { ${fields.join(' ')} }`);
    targets = Object.fromEntries(
      VIEWERS.map((viewer) => [viewer, { update: data[`${viewer}_update`].id, remove: data[`${viewer}_remove`].id }]),
    ) as typeof targets;
  });

  it('create, update and delete: edit_posts + manage_terms, else UNAUTHENTICATED / FORBIDDEN', async () => {
    const rows = VIEWERS.flatMap((viewer) => {
      const allowed = mayManageTerms(roleOf(viewer));
      return (
        [
          ['create', `create${type}(input: { name: "${unique(`${type} new`)}" }) { id: databaseId }`],
          [
            'update',
            `update${type}(id: ${targets[viewer].update}, input: { description: "edited" }) { id: databaseId }`,
          ],
          ['delete', `delete${type}(id: ${targets[viewer].remove}) { id: databaseId }`],
        ] as const
      ).map(
        ([operation, field]): WriteRow => ({
          viewer,
          label: `${viewer} ${operation}`,
          field,
          allowed,
          expected: allowed ? 'ok' : refusal(viewer),
        }),
      );
    });
    expect(tableDiff(expectedTable(rows), await runWrites(rows))).toEqual([]);
  });
});

describe('GraphQL spot checks', () => {
  it('a contributor asking to publish their own draft gets pending; editing a record of another author is FORBIDDEN', async () => {
    const [own] = await createRecords(server, people, [
      { kind: 'event', status: 'draft', owner: 'contributor', token: 'gmxspot' },
    ]);
    const published = await run(
      'contributor',
      `mutation { result: updateEvent(id: ${own}, input: { status: PUBLISH }) { id: databaseId status } }`,
    );
    expect(outcome(published, 'result', own)).toBe('ok PENDING');
    const reassign = await run(
      'author',
      `mutation { result: createEvent(input: { title: "x", startDate: "${dayAt(6)}", endDate: "${dayAt(6, '12:00:00')}", authorId: ${people.other.id} }) { id: databaseId } }`,
    );
    expect(outcome(reassign, 'result')).toBe('FORBIDDEN NOT_ALLOWED');
  });

  it('a write to a missing ID: UNAUTHENTICATED anonymous, FORBIDDEN without edit_posts, NOT_FOUND for writers', async () => {
    for (const kind of KINDS) {
      const mutation = `mutation { result: delete${TYPE[kind]}(id: 999999) { id: databaseId } }`;
      expect(outcome(await run('anonymous', mutation), 'result'), kind).toBe('UNAUTHENTICATED');
      expect(outcome(await run('subscriber', mutation), 'result'), kind).toBe('FORBIDDEN NOT_ALLOWED');
      expect(outcome(await run('contributor', mutation), 'result'), kind).toBe('NOT_FOUND');
    }
  });

  it('introspection works anonymously; no record type exposes a password, secret or hash (only hasPassword, and the secrets shown once at creation: IssuedCredential.secret, CreatedWebhook.secret)', async () => {
    const result = await run('anonymous', '{ __schema { types { name fields { name } inputFields { name } } } }');
    expect(result.status).toBe(200);
    const outputs: string[] = [];
    for (const type of result.body.data.__schema.types.filter((t: { name: string }) => t.name !== 'Mutation')) {
      for (const field of type.fields ?? [])
        if (/password|secret|hash/i.test(field.name)) outputs.push(`${type.name}.${field.name}`);
    }
    expect(outputs.sort()).toEqual([
      'CreatedWebhook.secret',
      'Event.hasPassword',
      'IssuedCredential.secret',
      'Organizer.hasPassword',
      'Venue.hasPassword',
    ]);
  });

  it('the matrix covers every post status (trash separately)', async () => {
    const result = await run('anonymous', '{ __type(name: "PostStatus") { enumValues { name } } }');
    const names = result.body.data.__type.enumValues.map((value: { name: string }) => value.name);
    expect([...names].sort()).toEqual([...STATUSES, 'trash'].map((status) => status.toUpperCase()).sort());
  });
});
