import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_CAPABILITIES } from '../src/auth/capabilities.js';
import {
  adminData,
  cellLabel,
  createdStatus,
  createPeople,
  createRecords,
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
  tableDiff,
  VIEWERS,
  WRITE_STATUSES,
  type Kind,
  type People,
  type RecordSet,
  type Status,
  type ViewerName,
} from './auth-fixtures.js';
import { unique } from './support/factories.js';
import { call, dayAt, type RestResponse } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';
import { startImageServer, type ImageServer } from './support/image-server.js';

// Images given by URL are fetched: they come from a local image server.
let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
});
afterAll(() => images?.close());

// The permission matrix over the REST API (docs/rest-compatibility.md, docs/authentication.md): every viewer (anonymous and each role) × operation
// × own/others' record × status, for events, venues and organizers, plus categories and tags. Which cells are allowed
// comes from the role table (auth-fixtures.ts); each cell asserts the concrete HTTP status and WordPress error code.
// Events take every status; venues and organizers take the statuses of WRITE_STATUSES.rest here and the others in
// auth-matrix-graphql.test.ts (the same permission code serves both), so every status is covered over HTTP.

let server: TestServer;
let people: People;
let shared: RecordSet;
let deletions: Record<ViewerName, RecordSet>;

const ROUTE: Record<Kind, string> = { event: '/events', venue: '/venues', organizer: '/organizers' };
const PLURAL: Record<Kind, string> = { event: 'events', venue: 'venues', organizer: 'organizers' };
/** Each kind is edited with a different one of the edit methods, so all three are covered. */
const EDIT_METHOD: Record<Kind, string> = { event: 'POST', venue: 'PUT', organizer: 'PATCH' };
const EDIT_BODY: Record<Kind, Record<string, unknown>> = {
  event: { excerpt: 'edited' },
  venue: { phone: '555-0100' },
  organizer: { phone: '555-0100' },
};
const CONCURRENCY = 4;

beforeAll(async () => {
  server = await startServer({ SITE_URL: 'http://calendar.test' });
  people = await createPeople(server);
  shared = await sharedRecordSet(server, people, 'rmxshared');
  deletions = await perViewerRecordSets(server, people, 'rmxdel', (kind) => WRITE_STATUSES.rest[kind]);
});
afterAll(() => server?.close());

/** A request as a viewer: `''` (no Authorization header) for anonymous. */
function as(viewer: ViewerName) {
  return { authorization: people.actors[viewer].authorization ?? '' };
}

function send(
  viewer: ViewerName,
  method: string,
  route: string,
  options: { json?: unknown; query?: Record<string, unknown> } = {},
) {
  return call(server, method, route, { ...options, headers: as(viewer) });
}

/** `401 rest_forbidden` for anonymous viewers, `403 rest_forbidden` for signed-in ones. */
const refusal = (viewer: ViewerName) => (viewer === 'anonymous' ? '401 rest_forbidden' : '403 rest_forbidden');

/** An error answer as `<status> <code>`, flagging a body whose data.status disagrees with the HTTP status. */
function errorOutcome(response: RestResponse): string {
  const body = response.body ?? {};
  const flag = body?.data?.status === response.status ? '' : ` (data.status ${body?.data?.status})`;
  return `${response.status} ${body?.code}${flag}`;
}

describe('the role table', () => {
  it("is WordPress's default roles for posts (the table of docs/authentication.md is this one)", () => {
    const author = [
      'read',
      'edit_posts',
      'edit_published_posts',
      'publish_posts',
      'delete_posts',
      'delete_published_posts',
      'upload_files',
    ];
    const editor = [...author, 'edit_others_posts', 'delete_others_posts', 'read_private_posts', 'manage_terms'];
    const sorted = (list: readonly string[]) => [...list].sort();
    expect(Object.fromEntries(Object.entries(ROLE_CAPABILITIES).map(([role, caps]) => [role, sorted(caps)]))).toEqual({
      administrator: sorted([...editor, 'manage_users', 'manage_webhooks', 'manage_imports']),
      editor: sorted(editor),
      author: sorted(author),
      contributor: sorted(['read', 'edit_posts', 'delete_posts']),
      subscriber: ['read'],
    });
  });

  it('yields the outcomes the issue names', () => {
    expect(mayCreate('contributor')).toBe(true);
    expect(createdStatus('contributor', 'publish')).toBe('pending');
    expect(createdStatus('contributor', undefined)).toBe('draft');
    expect(mayEdit('contributor', true, 'draft')).toBe(true);
    expect(mayEdit('contributor', true, 'publish')).toBe(false);
    expect(mayDelete('author', false, 'publish')).toBe(false);
    expect(mayDelete('author', true, 'publish')).toBe(true);
    expect(mayCreate('subscriber')).toBe(false);
    expect(mayCreate(null)).toBe(false);
    expect(mayManageTerms('editor')).toBe(true);
    expect(mayManageTerms('author')).toBe(false);
    expect(mayRead('editor', false, 'draft')).toBe(true);
    expect(mayRead('author', false, 'draft')).toBe(false);
    expect(mayRead(null, false, 'future')).toBe(false);
    expect(mayListUnpublished(null)).toBe(false);
  });
});

describe('spot checks named by the issue (REST)', () => {
  const newEvent = (extra: Record<string, unknown> = {}) => ({
    title: unique('Spot'),
    start_date: dayAt(5),
    end_date: dayAt(5, '12:00:00'),
    ...extra,
  });

  it('contributor creating an event → 201, status forced to pending (asked publish) or draft (asked nothing)', async () => {
    const asked = await send('contributor', 'POST', '/events', { json: newEvent({ status: 'publish' }) });
    expect(asked.status, asked.text).toBe(201);
    expect(asked.body.status).toBe('pending');
    expect(asked.body.author).toBe(String(people.actors.contributor.id));
    const plain = await send('contributor', 'POST', '/events', { json: newEvent() });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.status).toBe('draft');
  });

  it('contributor editing own draft → 200, own published → 403 rest_forbidden', async () => {
    const draft = await send('contributor', 'POST', `/events/${shared.id('event', 'draft', 'contributor')}`, {
      json: { description: 'Own draft, edited' },
    });
    expect(draft.status, draft.text).toBe(200);
    expect(draft.body.description).toBe('<p>Own draft, edited</p>');
    expect(draft.body.status).toBe('draft');
    const published = await send('contributor', 'POST', `/events/${shared.id('event', 'publish', 'contributor')}`, {
      json: { title: 'nope' },
    });
    expect(errorOutcome(published)).toBe('403 rest_forbidden');
    expect(published.body.message).toBe('Sorry, you are not allowed to do that.');
  });

  it('contributor asking to publish their own draft gets pending', async () => {
    const [id] = await createRecords(server, people, [
      { kind: 'event', status: 'draft', owner: 'contributor', token: 'rmxspot' },
    ]);
    const response = await send('contributor', 'PUT', `/events/${id}`, { json: { status: 'publish' } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.status).toBe('pending');
  });

  it("author deleting others' → 403 rest_forbidden", async () => {
    const response = await send('author', 'DELETE', `/events/${shared.id('event', 'publish', 'other')}`);
    expect(errorOutcome(response)).toBe('403 rest_forbidden');
  });

  it('subscriber create → 403, anonymous create → 401, both rest_forbidden', async () => {
    expect(errorOutcome(await send('subscriber', 'POST', '/events', { json: newEvent() }))).toBe('403 rest_forbidden');
    const anonymous = await send('anonymous', 'POST', '/events', { json: newEvent() });
    expect(errorOutcome(anonymous)).toBe('401 rest_forbidden');
    expect(anonymous.body).toEqual({
      code: 'rest_forbidden',
      message: 'Sorry, you are not allowed to do that.',
      data: { status: 401 },
    });
  });

  it('bad input is answered before permissions: anonymous create without a title → 400', async () => {
    const response = await send('anonymous', 'POST', '/events', {
      json: { start_date: dayAt(5), end_date: dayAt(5, '12:00:00') },
    });
    expect(errorOutcome(response)).toBe('400 rest_missing_callback_param');
  });

  it('editor manages terms → 201, author → 403 rest_forbidden', async () => {
    const editor = await send('editor', 'POST', '/categories', { json: { name: unique('EditorCat') } });
    expect(editor.status, editor.text).toBe(201);
    expect(errorOutcome(await send('author', 'POST', '/categories', { json: { name: unique('AuthorCat') } }))).toBe(
      '403 rest_forbidden',
    );
  });

  it("editor reads others' drafts → 200; author → 403 event-not-accessible by ID, 400 like an unknown slug by slug", async () => {
    const id = shared.id('event', 'draft', 'other');
    const { event } = await adminData(server, `{ event(id: ${id}) { slug } }`);
    for (const route of [`/events/${id}`, `/events/by-slug/${event.slug}`]) {
      const editor = await send('editor', 'GET', route);
      expect(editor.status, editor.text).toBe(200);
      expect(editor.body.id).toBe(id);
    }
    const author = await send('author', 'GET', `/events/${id}`);
    expect(errorOutcome(author)).toBe('403 event-not-accessible');
    expect(author.body.message).toBe('The requested event is not accessible');
    const bySlug = await send('author', 'GET', `/events/by-slug/${event.slug}`);
    expect(errorOutcome(bySlug)).toBe('400 rest_invalid_param');
    expect(bySlug.body).toEqual((await send('author', 'GET', '/events/by-slug/no-such-slug-anywhere')).body);
  });

  it("writes by slug to others' drafts: 401 anonymous, 403 author (rest_forbidden), 200 editor", async () => {
    const [id] = await createRecords(server, people, [
      { kind: 'event', status: 'draft', owner: 'other', token: 'rmxslug' },
    ]);
    const { event } = await adminData(server, `{ event(id: ${id}) { slug } }`);
    const route = `/events/by-slug/${event.slug}`;
    expect(errorOutcome(await send('anonymous', 'PUT', route, { json: { excerpt: 'x' } }))).toBe('401 rest_forbidden');
    expect(errorOutcome(await send('author', 'PUT', route, { json: { excerpt: 'x' } }))).toBe('403 rest_forbidden');
    expect(errorOutcome(await send('author', 'DELETE', route))).toBe('403 rest_forbidden');
    const editor = await send('editor', 'PUT', route, { json: { excerpt: 'by editor' } });
    expect(editor.status, editor.text).toBe(200);
    expect(editor.body).toMatchObject({ id, status: 'draft', excerpt: expect.stringContaining('by editor') });
  });

  it('anonymous list with status=draft → 400 rest_invalid_param naming status; status=publish → 200', async () => {
    for (const status of ['draft', 'publish,draft', 'any']) {
      const response = await send('anonymous', 'GET', '/events', { query: { status } });
      expect(errorOutcome(response), status).toBe('400 rest_invalid_param');
      expect(Object.keys(response.body.data.params)).toEqual(['status']);
    }
    expect((await send('anonymous', 'GET', '/events', { query: { status: 'publish' } })).status).toBe(200);
  });

  it('trashed records: single GET answers 403 event-no-longer-available, even to an administrator', async () => {
    const [event, venue] = await createRecords(server, people, [
      { kind: 'event', status: 'trash', owner: 'other', token: 'rmxtrash' },
      { kind: 'venue', status: 'trash', owner: 'other', token: 'rmxtrash' },
    ]);
    for (const viewer of ['anonymous', 'author', 'administrator'] as const) {
      expect(errorOutcome(await send(viewer, 'GET', `/events/${event}`)), viewer).toBe('403 event-no-longer-available');
    }
    expect(errorOutcome(await send('anonymous', 'GET', `/venues/${venue}`))).toBe('403 venue-not-accessible');
    expect(errorOutcome(await send('author', 'GET', `/venues/${venue}`))).toBe('403 venue-not-accessible');
  });

  it('an event ID that does not exist: 401 anonymous, 403 without edit_posts, 404 rest-event-not-found otherwise', async () => {
    for (const method of ['DELETE', 'POST']) {
      const json = method === 'POST' ? { title: 'x' } : undefined;
      expect(errorOutcome(await send('anonymous', method, '/events/999999', { json })), method).toBe(
        '401 rest_forbidden',
      );
      expect(errorOutcome(await send('subscriber', method, '/events/999999', { json })), method).toBe(
        '403 rest_forbidden',
      );
      expect(errorOutcome(await send('contributor', method, '/events/999999', { json })), method).toBe(
        '404 rest-event-not-found',
      );
    }
  });

  it.each(['venue', 'organizer'] as const)(
    '%s duplicate avoidance never answers a record the creator may not read',
    async (kind) => {
      const name = unique(`Hidden ${kind}`);
      const [hidden] = await createRecords(server, people, [
        { kind, status: 'draft', owner: 'other', token: 'rmxdup' },
      ]);
      await adminData(
        server,
        `mutation { r: update${kind === 'venue' ? 'Venue' : 'Organizer'}(id: ${hidden}, input: { name: "${name}" }) { id } }`,
      );
      const contributor = await send('contributor', 'POST', ROUTE[kind], { json: { [kind]: name } });
      expect(contributor.status, contributor.text).toBe(201);
      expect(contributor.body.id).not.toBe(hidden);
      expect(contributor.body.author).toBe(String(people.actors.contributor.id));
      // Editors may read others' drafts, so for them the draft is the duplicate.
      const editor = await send('editor', 'POST', ROUTE[kind], { json: { [kind]: name } });
      expect(editor.status, editor.text).toBe(201);
      expect(editor.body.id).toBe(hidden);
    },
  );

  it('only users with edit_others_posts write as another author; only upload_files gives images by URL', async () => {
    const other = people.other.id;
    expect(errorOutcome(await send('contributor', 'POST', '/events', { json: newEvent({ author: other }) }))).toBe(
      '403 rest_forbidden',
    );
    expect(errorOutcome(await send('author', 'POST', '/venues', { json: { venue: unique('V'), author: other } }))).toBe(
      '403 rest_forbidden',
    );
    const editor = await send('editor', 'POST', '/events', { json: newEvent({ author: other }) });
    expect(editor.status, editor.text).toBe(201);
    expect(editor.body.author).toBe(String(other));
    const image = await send('contributor', 'POST', '/events', { json: newEvent({ image: images.at('/a.jpg') }) });
    expect(errorOutcome(image)).toBe('400 rest_invalid_param');
    expect(Object.keys(image.body.data.params)).toEqual(['image']);
    const authorImage = await send('author', 'POST', '/events', { json: newEvent({ image: images.at('/a.jpg') }) });
    expect(authorImage.status, authorImage.text).toBe(201);
  });
});

describe.each(KINDS)('REST matrix: %s records', (kind) => {
  const cells = matrixCells([kind], WRITE_STATUSES.rest[kind]);
  const singular = kind;

  it(`single GET: readable → 200, else 403 ${kind}-not-accessible`, async () => {
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    await mapLimit(cells, CONCURRENCY, async (cell) => {
      const id = shared.id(kind, cell.status, people.ownerKey(cell));
      const label = cellLabel(cell);
      expected[label] = mayRead(roleOf(cell.viewer), cell.owner === 'own', cell.status)
        ? `200 ${cell.status}`
        : `403 ${singular}-not-accessible`;
      const response = await send(cell.viewer, 'GET', `${ROUTE[kind]}/${id}`);
      actual[label] =
        response.status === 200
          ? `200 ${response.body.status}${response.body.id === id ? '' : ' (wrong id)'}`
          : errorOutcome(response);
    });
    expect(tableDiff(expected, actual)).toEqual([]);
  });

  it(`update (${EDIT_METHOD[kind]}): allowed → 200 with the status kept, else 401/403 rest_forbidden`, async () => {
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    await mapLimit(cells, CONCURRENCY, async (cell) => {
      const id = shared.id(kind, cell.status, people.ownerKey(cell));
      const label = cellLabel(cell);
      expected[label] = mayEdit(roleOf(cell.viewer), cell.owner === 'own', cell.status)
        ? `200 ${cell.status}`
        : refusal(cell.viewer);
      const response = await send(cell.viewer, EDIT_METHOD[kind], `${ROUTE[kind]}/${id}`, { json: EDIT_BODY[kind] });
      actual[label] =
        response.status === 200
          ? `200 ${response.body.status}${response.body.id === id ? '' : ' (wrong id)'}`
          : errorOutcome(response);
    });
    expect(tableDiff(expected, actual)).toEqual([]);
  });

  it('DELETE: allowed → 200 with status trash, else 401/403 rest_forbidden (and the record stays)', async () => {
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    const refused: number[] = [];
    await mapLimit(cells, CONCURRENCY, async (cell) => {
      const id = deletions[cell.viewer].id(kind, cell.status, people.ownerKey(cell));
      const label = cellLabel(cell);
      const allowed = mayDelete(roleOf(cell.viewer), cell.owner === 'own', cell.status);
      expected[label] = allowed ? '200 trash' : refusal(cell.viewer);
      if (!allowed) refused.push(id);
      const response = await send(cell.viewer, 'DELETE', `${ROUTE[kind]}/${id}`);
      actual[label] =
        response.status === 200
          ? `200 ${response.body.status}${response.body.id === id ? '' : ' (wrong id)'}`
          : errorOutcome(response);
    });
    expect(tableDiff(expected, actual)).toEqual([]);
    // A refused delete changed nothing.
    const data = await adminData(
      server,
      `{ ${refused.map((id) => `r${id}: ${kind}(id: ${id}) { status }`).join(' ')} }`,
    );
    expect(refused.filter((id) => data[`r${id}`].status === 'TRASH')).toEqual([]);
  });

  it('create: users with edit_posts → 201 (status scaled back without publish_posts), else 401/403 rest_forbidden', async () => {
    // Every requested status is scaled back in auth-matrix-graphql.test.ts; here the REST mapping of the two cases.
    const requests: (Status | undefined)[] = kind === 'event' ? [undefined, 'publish'] : [undefined];
    const rows = VIEWERS.flatMap((viewer) => requests.map((requested) => ({ viewer, requested })));
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    await mapLimit(rows, CONCURRENCY, async ({ viewer, requested }) => {
      const role = roleOf(viewer);
      const label = `${viewer} creates ${kind} asking ${requested ?? 'no status'}`;
      expected[label] =
        role && mayCreate(role)
          ? `201 ${createdStatus(role, requested as Status | undefined)} by ${people.actors[viewer].id}`
          : refusal(viewer);
      const name = unique(`Created ${kind}`);
      const json: Record<string, unknown> =
        kind === 'event' ? { title: name, start_date: dayAt(6), end_date: dayAt(6, '12:00:00') } : { [kind]: name };
      if (requested) json.status = requested;
      const response = await send(viewer, 'POST', ROUTE[kind], { json });
      actual[label] =
        response.status === 201 ? `201 ${response.body.status} by ${response.body.author}` : errorOutcome(response);
    });
    expect(tableDiff(expected, actual)).toEqual([]);
  });

  it('archive: each viewer sees exactly the records it may read (published, plus own or all unpublished)', async () => {
    const records = shared.entries(kind);
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    await mapLimit(VIEWERS, CONCURRENCY, async (viewer) => {
      const role = roleOf(viewer);
      expected[viewer] = records
        .filter(
          (record) => record.status !== 'trash' && mayRead(role, record.owner === viewer, record.status as Status),
        )
        .map((record) => record.id)
        .sort((a, b) => a - b)
        .join(',');
      const response = await send(viewer, 'GET', ROUTE[kind], { query: { search: shared.token, per_page: 50 } });
      actual[viewer] =
        response.status === 200
          ? response.body[PLURAL[kind]]
              .map((record: { id: number }) => record.id)
              .sort((a: number, b: number) => a - b)
              .join(',')
          : errorOutcome(response);
      if (response.status === 200)
        expect(response.body.rest_url, viewer).toContain(`status=${mayListUnpublished(role) ? 'any' : 'publish'}`);
    });
    expect(tableDiff(expected, actual)).toEqual([]);
  });

  it('archive with status=draft: 400 rest_invalid_param naming status for readers; writers get the drafts they may read', async () => {
    const drafts = shared.entries(kind).filter((record) => record.status === 'draft');
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    await mapLimit(VIEWERS, CONCURRENCY, async (viewer) => {
      const role = roleOf(viewer);
      expected[viewer] = mayListUnpublished(role)
        ? drafts
            .filter((record) => mayRead(role, record.owner === viewer, 'draft'))
            .map((record) => record.id)
            .sort((a, b) => a - b)
            .join(',')
        : '400 rest_invalid_param [status]';
      const response = await send(viewer, 'GET', ROUTE[kind], {
        query: { search: shared.token, per_page: 50, status: 'draft' },
      });
      actual[viewer] =
        response.status === 200
          ? response.body[PLURAL[kind]]
              .map((record: { id: number }) => record.id)
              .sort((a: number, b: number) => a - b)
              .join(',')
          : `${errorOutcome(response)} [${Object.keys(response.body?.data?.params ?? {}).join(',')}]`;
    });
    expect(tableDiff(expected, actual)).toEqual([]);
  });
});

describe.each(['categories', 'tags'] as const)('REST matrix: %s', (route) => {
  const mutation = route === 'categories' ? 'createEventCategory' : 'createEventTag';
  let targets: Record<ViewerName, { update: number; remove: number }>;

  beforeAll(async () => {
    const fields = VIEWERS.flatMap((viewer) =>
      (['update', 'remove'] as const).map(
        (use) =>
          `${viewer}_${use}: ${mutation}(input: { name: "${unique(`${route} ${viewer} ${use}`)}" }) { id: databaseId }`,
      ),
    );
    const data = await adminData(server, `mutation { ${fields.join(' ')} }`);
    targets = Object.fromEntries(
      VIEWERS.map((viewer) => [viewer, { update: data[`${viewer}_update`].id, remove: data[`${viewer}_remove`].id }]),
    ) as typeof targets;
  });

  it('create, update and delete: edit_posts + manage_terms → 201/200/200, else 401/403 rest_forbidden', async () => {
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    const outcome = (response: RestResponse) => (response.status < 300 ? `${response.status}` : errorOutcome(response));
    const rows = VIEWERS.flatMap((viewer) =>
      (
        [
          ['create', 'POST', `/${route}`, { name: unique(`${route} new`) }, 201],
          ['update', 'PUT', `/${route}/${targets[viewer].update}`, { description: 'edited' }, 200],
          ['delete', 'DELETE', `/${route}/${targets[viewer].remove}`, undefined, 200],
        ] as const
      ).map(([operation, method, path, json, success]) => ({ viewer, operation, method, path, json, success })),
    );
    await mapLimit(rows, CONCURRENCY, async ({ viewer, operation, method, path, json, success }) => {
      expected[`${viewer} ${operation}`] = mayManageTerms(roleOf(viewer)) ? `${success}` : refusal(viewer);
      actual[`${viewer} ${operation}`] = outcome(await send(viewer, method, path, { json }));
    });
    expect(tableDiff(expected, actual)).toEqual([]);
  });
});
