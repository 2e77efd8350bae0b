import { ROLE_CAPABILITIES, type Capability } from '../src/auth/capabilities.js';
import type { Role } from '../src/db/generated/prisma/enums.js';
import { dayAt } from './support/rest.js';
import { ADMIN_AUTHORIZATION, basicAuthorization, type TestServer } from './support/server.js';

// What the permission matrix tests share: the people (one user per role, plus "other", whose records are everyone's
// "others' record"), the records they own, and the expected outcome of each cell, derived from ROLE_CAPABILITIES (the
// one role table the code and docs/authentication.md use) by WordPress's meta-capability rules. The tests assert concrete HTTP
// statuses and codes for each cell; the rules below only say which cells are allowed.

export const ROLES = Object.keys(ROLE_CAPABILITIES) as Role[];
export type ViewerName = Role | 'anonymous';
export const VIEWERS: ViewerName[] = ['anonymous', ...ROLES];
/** Every status a record may have apart from trash (trash is covered separately). */
export const STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;
export type Status = (typeof STATUSES)[number];
export const KINDS = ['event', 'venue', 'organizer'] as const;
export type Kind = (typeof KINDS)[number];
export type Ownership = 'own' | 'others';
/** Whose record it is: a viewer's own, or the `other` user's. */
export type OwnerKey = Role | 'other';

// --- expectations, from the role table -------------------------------------------------------------------------

export const roleOf = (viewer: ViewerName): Role | null => (viewer === 'anonymous' ? null : viewer);

export function has(role: Role | null, capability: Capability): boolean {
  return role !== null && ROLE_CAPABILITIES[role].includes(capability);
}

/**
 * The statuses each protocol's write matrix covers per kind: every status for events; for venues and organizers (whose
 * rules are the same code) each protocol takes both permission classes (published-like and unpublished) and together
 * they cover every status, which keeps the suite at hundreds of requests (each signed-in request costs a scrypt check).
 */
export const WRITE_STATUSES: Record<'rest' | 'graphql', Record<Kind, readonly Status[]>> = {
  rest: { event: STATUSES, venue: ['publish', 'draft'], organizer: ['publish', 'draft'] },
  graphql: { event: STATUSES, venue: ['future', 'private', 'pending'], organizer: ['future', 'private', 'pending'] },
};

/** Statuses WordPress treats as published for edit and delete (`*_published_posts`). */
const PUBLISHED_CLASS: readonly Status[] = ['publish', 'future', 'private'];

/** read_post: published for all; otherwise readers of private posts, or the author when they write records. */
export function mayRead(role: Role | null, own: boolean, status: Status): boolean {
  if (status === 'publish') return true;
  return has(role, 'read_private_posts') || (own && has(role, 'edit_posts'));
}

/** edit_post: others' records need edit_others_posts; published ones need edit_published_posts, others edit_posts. */
export function mayEdit(role: Role | null, own: boolean, status: Status): boolean {
  if (!own && !has(role, 'edit_others_posts')) return false;
  return has(role, PUBLISHED_CLASS.includes(status) ? 'edit_published_posts' : 'edit_posts');
}

/** delete_post, in the same manner with the delete capabilities. */
export function mayDelete(role: Role | null, own: boolean, status: Status): boolean {
  if (!own && !has(role, 'delete_others_posts')) return false;
  return has(role, PUBLISHED_CLASS.includes(status) ? 'delete_published_posts' : 'delete_posts');
}

export const mayCreate = (role: Role | null) => has(role, 'edit_posts');
export const mayManageTerms = (role: Role | null) => has(role, 'edit_posts') && has(role, 'manage_terms');
/** Whether a list may be asked for statuses other than publish (users who write records). */
export const mayListUnpublished = (role: Role | null) => has(role, 'edit_posts');

/** The status a create ends with: as asked for users who may publish, else scaled back (WordPress's rule). */
export function createdStatus(role: Role, requested: Status | undefined): Status {
  if (has(role, 'publish_posts')) return requested ?? 'publish';
  if (requested === undefined) return 'draft';
  return PUBLISHED_CLASS.includes(requested) ? 'pending' : requested;
}

// --- cells -------------------------------------------------------------------------------------------------------

export interface Cell {
  viewer: ViewerName;
  kind: Kind;
  owner: Ownership;
  status: Status;
}

/** Every viewer × kind × own/others' × status (anonymous readers own nothing). */
export function matrixCells(kinds: readonly Kind[] = KINDS, statuses: readonly Status[] = STATUSES): Cell[] {
  const cells: Cell[] = [];
  for (const viewer of VIEWERS) {
    for (const kind of kinds) {
      for (const owner of (viewer === 'anonymous' ? ['others'] : ['own', 'others']) as Ownership[]) {
        for (const status of statuses) cells.push({ viewer, kind, owner, status });
      }
    }
  }
  return cells;
}

export const cellLabel = (cell: Cell) => `${cell.viewer} ${cell.owner} ${cell.status} ${cell.kind}`;

// --- people ------------------------------------------------------------------------------------------------------

export interface Actor {
  name: ViewerName | 'other';
  role: Role | null;
  id: number | null;
  login: string;
  /** The Authorization header value, null for anonymous. */
  authorization: string | null;
}

export interface People {
  actors: Record<ViewerName, Actor>;
  other: Actor;
  /** The owner of a cell's record. */
  ownerKey(cell: Pick<Cell, 'viewer' | 'owner'>): OwnerKey;
  idOf(owner: OwnerKey): number;
}

export interface HttpGraphQL<T = any> {
  status: number;
  body: { data?: T; errors?: Array<{ message: string; path?: (string | number)[]; extensions?: Record<string, any> }> };
  text: string;
}

/** A GraphQL request over HTTP as `authorization` (null: anonymous), answering the HTTP status with the body. */
export async function graphql<T = any>(
  server: TestServer,
  query: string,
  variables: Record<string, unknown> = {},
  authorization: string | null = null,
): Promise<HttpGraphQL<T>> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text };
}

/** Like graphql, but as the administrator and failing on any error. */
export async function adminData<T = any>(
  server: TestServer,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const result = await graphql<T>(server, query, variables, ADMIN_AUTHORIZATION);
  if (result.status !== 200 || result.body.errors?.length)
    throw new Error(`admin operation failed: ${result.status} ${result.text.slice(0, 2000)}`);
  return result.body.data!;
}

/** One user per role besides the administrator (the test server's admin), plus `other` (an author), each with an application password. */
export async function createPeople(server: TestServer, prefix = 'matrix'): Promise<People> {
  const others = ROLES.filter((role) => role !== 'administrator');
  const users = [...others.map((role) => ({ key: role, role })), { key: 'other', role: 'author' as Role }];
  const created = await adminData<Record<string, { id: number; login: string }>>(
    server,
    `mutation { ${users.map((user) => `${user.key}: createUser(input: { login: "${prefix}-${user.key}", role: ${user.role.toUpperCase()} }) { id: databaseId login }`).join(' ')} }`,
  );
  const admin = (
    await adminData<{ viewer: { id: number; login: string } }>(server, '{ viewer { id: databaseId login } }')
  ).viewer;
  const secrets = await adminData<Record<string, { secret: string }>>(
    server,
    `mutation { ${users.map((user) => `${user.key}: createApplicationPassword(name: "matrix", userId: ${created[user.key]!.id}) { secret }`).join(' ')} }`,
  );
  const actor = (name: ViewerName | 'other', role: Role, id: number, login: string, authorization: string): Actor => ({
    name,
    role,
    id,
    login,
    authorization,
  });
  const actors = {
    anonymous: { name: 'anonymous', role: null, id: null, login: '', authorization: null },
    administrator: actor('administrator', 'administrator', admin.id, admin.login, ADMIN_AUTHORIZATION),
  } as Record<ViewerName, Actor>;
  for (const role of others)
    actors[role] = actor(
      role,
      role,
      created[role]!.id,
      created[role]!.login,
      basicAuthorization(created[role]!.login, secrets[role]!.secret),
    );
  const other = actor(
    'other',
    'author',
    created.other!.id,
    created.other!.login,
    basicAuthorization(created.other!.login, secrets.other!.secret),
  );
  return {
    actors,
    other,
    ownerKey: (cell) => (cell.owner === 'own' ? (cell.viewer as Role) : 'other'),
    idOf: (owner) => (owner === 'other' ? other.id! : actors[owner].id!),
  };
}

// --- records -----------------------------------------------------------------------------------------------------

export interface RecordSpec {
  kind: Kind;
  status: Status | 'trash';
  owner: OwnerKey;
  /** Unique text in the title or name, so a search finds the record (and no other set's). */
  token: string;
  /** Extra GraphQL input fields, written as GraphQL literals. */
  extra?: string;
}

const MUTATION: Record<Kind, string> = { event: 'createEvent', venue: 'createVenue', organizer: 'createOrganizer' };

function recordInput(spec: RecordSpec, authorId: number, n: number): string {
  const name = `"${spec.token} ${spec.status} ${spec.owner} ${n}"`;
  const common = `status: ${spec.status.toUpperCase()}, authorId: ${authorId}${spec.extra ? `, ${spec.extra}` : ''}`;
  if (spec.kind === 'event')
    return `{ title: ${name}, startDate: "${dayAt(10)}", endDate: "${dayAt(10, '12:00:00')}", timezone: "UTC", ${common} }`;
  return `{ name: ${name}, ${common} }`;
}

/** Creates the records as the administrator (in batches of one request each) and answers their IDs in order. */
export async function createRecords(server: TestServer, people: People, specs: RecordSpec[]): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < specs.length; start += 80) {
    const batch = specs.slice(start, start + 80);
    const fields = batch.map(
      (spec, i) =>
        `r${i}: ${MUTATION[spec.kind]}(input: ${recordInput(spec, people.idOf(spec.owner), start + i)}) { databaseId status authorId }`,
    );
    const data = await adminData<Record<string, { databaseId: number; status: string; authorId: number }>>(
      server,
      `mutation { ${fields.join(' ')} }`,
    );
    batch.forEach((spec, i) => {
      const record = data[`r${i}`]!;
      if (record.status !== spec.status.toUpperCase() || record.authorId !== people.idOf(spec.owner))
        throw new Error(`fixture not as asked: ${JSON.stringify({ spec, record })}`);
      ids.push(record.databaseId);
    });
  }
  return ids;
}

/** Records keyed by `kind status owner`. */
export class RecordSet {
  private readonly ids = new Map<string, number>();
  constructor(
    readonly token: string,
    readonly specs: RecordSpec[],
    ids: number[],
  ) {
    specs.forEach((spec, i) => this.ids.set(RecordSet.key(spec.kind, spec.status, spec.owner), ids[i]!));
  }
  static key = (kind: Kind, status: string, owner: OwnerKey) => `${kind} ${status} ${owner}`;
  id(kind: Kind, status: string, owner: OwnerKey): number {
    const id = this.ids.get(RecordSet.key(kind, status, owner));
    if (id === undefined) throw new Error(`no record ${RecordSet.key(kind, status, owner)} in set ${this.token}`);
    return id;
  }
  entries(kind: Kind) {
    return this.specs
      .filter((spec) => spec.kind === kind)
      .map((spec) => ({ ...spec, id: this.id(spec.kind, spec.status, spec.owner) }));
  }
}

/** One record per kind × status × owner (every role and `other`): what every viewer reads, lists and edits. */
export async function sharedRecordSet(
  server: TestServer,
  people: People,
  token: string,
  kinds: readonly Kind[] = KINDS,
): Promise<RecordSet> {
  const owners: OwnerKey[] = [...ROLES, 'other'];
  const specs: RecordSpec[] = [];
  for (const kind of kinds)
    for (const status of STATUSES) for (const owner of owners) specs.push({ kind, status, owner, token });
  return new RecordSet(token, specs, await createRecords(server, people, specs));
}

/**
 * For operations that change what they touch (delete): for each viewer, its own records and `other`'s, of each kind and
 * status, so no cell sees another cell's effect. Keyed by viewer.
 */
export async function perViewerRecordSets(
  server: TestServer,
  people: People,
  token: string,
  statusesOf: (kind: Kind) => readonly Status[] = () => STATUSES,
): Promise<Record<ViewerName, RecordSet>> {
  const specs: { viewer: ViewerName; spec: RecordSpec }[] = [];
  for (const viewer of VIEWERS) {
    const owners: OwnerKey[] = viewer === 'anonymous' ? ['other'] : [viewer, 'other'];
    for (const kind of KINDS)
      for (const status of statusesOf(kind))
        for (const owner of owners) specs.push({ viewer, spec: { kind, status, owner, token: `${token}-${viewer}` } });
  }
  const ids = await createRecords(
    server,
    people,
    specs.map((entry) => entry.spec),
  );
  const sets = {} as Record<ViewerName, RecordSet>;
  for (const viewer of VIEWERS) {
    const mine = specs.map((entry, i) => ({ ...entry, id: ids[i]! })).filter((entry) => entry.viewer === viewer);
    sets[viewer] = new RecordSet(
      `${token}-${viewer}`,
      mine.map((entry) => entry.spec),
      mine.map((entry) => entry.id),
    );
  }
  return sets;
}

/** Runs `fn` over `items` with at most `limit` in flight, answering results in order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Compares two label → outcome tables, so a failure lists every wrong cell at once. */
export function tableDiff(expected: Record<string, string>, actual: Record<string, string>): string[] {
  return Object.keys(expected)
    .filter((label) => expected[label] !== actual[label])
    .map((label) => `${label}: expected ${expected[label]}, got ${actual[label]}`);
}
