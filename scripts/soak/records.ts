import type { Api, Reply } from './api.js';

/**
 * The record kinds the soak and the crash test write, each over REST or GraphQL, and read back for checking. A
 * record's `State` is what the API answers for it, in the shape the writer sent it; `null` once deleted for good.
 */

export type Kind = 'event' | 'venue' | 'organizer' | 'category' | 'tag';
export type Via = 'rest' | 'graphql';
export type Fields = Record<string, unknown>;
export type State = Fields | null;

/** Records events link to. They are never deleted, so an event's links only change when the event is written. */
export interface LinkTargets {
  venues: number[];
  organizers: number[];
  categories: number[];
  tags: number[];
}

interface KindSpec {
  route: string;
  /** Mutation suffix (`createEvent`) and single query field (`event`). */
  typeName: string;
  query: string;
  inputType: string;
  selection: string;
  hasTrash: boolean;
  restBody(fields: Fields): Fields;
  graphqlInput(fields: Fields): Fields;
  /** A GraphQL read → State, key for key like the writer's fields (plus `status` for posts). */
  stateOf(read: Fields): Fields;
}

// Linked records are read by `databaseId` without an alias: aliases count against the limit per document (100).
const sortedIds = (records: Array<{ databaseId: number }>) =>
  records.map((record) => record.databaseId).sort((a, b) => a - b);
const ids = (values: unknown) => values as number[];

const EVENT: KindSpec = {
  route: '/events',
  typeName: 'Event',
  query: 'event',
  inputType: 'EventInput',
  selection:
    'status title description(format: RAW) cost startsAtLocal endsAtLocal timezone venues { databaseId } organizers { databaseId } categories { databaseId } tags { databaseId }',
  hasTrash: true,
  restBody: (f) => ({
    title: f.title,
    description: f.description,
    cost: f.cost,
    start_date: f.startsAtLocal,
    end_date: f.endsAtLocal,
    timezone: f.timezone,
    venue: ids(f.venues)[0],
    organizer: f.organizers,
    categories: f.categories,
    tags: f.tags,
  }),
  graphqlInput: (f) => ({
    title: f.title,
    description: f.description,
    cost: f.cost,
    startDate: f.startsAtLocal,
    endDate: f.endsAtLocal,
    timezone: f.timezone,
    venues: ids(f.venues).map((id) => ({ id })),
    organizers: ids(f.organizers).map((id) => ({ id })),
    categories: ids(f.categories).map(String),
    tags: ids(f.tags).map(String),
  }),
  stateOf: (r) => ({
    ...r,
    venues: sortedIds(r.venues as []),
    organizers: sortedIds(r.organizers as []),
    categories: sortedIds(r.categories as []),
    tags: sortedIds(r.tags as []),
  }),
};

const VENUE: KindSpec = {
  route: '/venues',
  typeName: 'Venue',
  query: 'venue',
  inputType: 'VenueInput',
  selection: 'status name city address',
  hasTrash: true,
  restBody: (f) => ({ venue: f.name, city: f.city, address: f.address }),
  graphqlInput: (f) => ({ name: f.name, city: f.city, address: f.address }),
  stateOf: (r) => r,
};

const ORGANIZER: KindSpec = {
  route: '/organizers',
  typeName: 'Organizer',
  query: 'organizer',
  inputType: 'OrganizerInput',
  selection: 'status name email phone',
  hasTrash: true,
  restBody: (f) => ({ organizer: f.name, email: f.email, phone: f.phone }),
  graphqlInput: (f) => ({ name: f.name, email: f.email, phone: f.phone }),
  stateOf: (r) => r,
};

const term = (route: string, typeName: string): KindSpec => ({
  route,
  typeName,
  query: typeName[0]!.toLowerCase() + typeName.slice(1),
  inputType: 'TermInput',
  selection: 'name description',
  hasTrash: false,
  restBody: (f) => ({ name: f.name, description: f.description }),
  graphqlInput: (f) => ({ name: f.name, description: f.description }),
  stateOf: (r) => r,
});

const KINDS: Record<Kind, KindSpec> = {
  event: EVENT,
  venue: VENUE,
  organizer: ORGANIZER,
  category: term('/categories', 'EventCategory'),
  tag: term('/tags', 'EventTag'),
};

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney'];

/** A random element of a non-empty list. */
export const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const pickSome = (items: number[], count: number) =>
  [...new Set(Array.from({ length: count }, () => pick(items)))].sort((a, b) => a - b);
const two = (n: number) => String(n).padStart(2, '0');

/** Fresh field values for a write; `label` makes names unique (terms refuse a duplicate name). */
export function newFields(kind: Kind, label: string, links: LinkTargets): Fields {
  const n = Math.floor(Math.random() * 1000);
  switch (kind) {
    case 'event': {
      const day = `2032-${two(1 + (n % 12))}-${two(1 + (n % 28))}`;
      return {
        title: `Soak event ${label}`,
        description: `Written as ${label}`,
        cost: String(5 + (n % 95)),
        startsAtLocal: `${day} ${two(8 + (n % 10))}:${two(n % 60)}:00`,
        endsAtLocal: `${day} 21:30:00`,
        timezone: pick(ZONES),
        venues: [pick(links.venues)],
        organizers: pickSome(links.organizers, 2),
        categories: pickSome(links.categories, 2),
        tags: pickSome(links.tags, 3),
      };
    }
    case 'venue':
      return { name: `Soak venue ${label}`, city: `City ${n}`, address: `${n} Soak Street` };
    case 'organizer':
      return { name: `Soak organizer ${label}`, email: `organizer-${n}@example.org`, phone: `+49 30 ${1000 + n}` };
    default:
      return { name: `Soak ${kind} ${label}`, description: `Described as ${label}` };
  }
}

/** The state a record has after a successful create or update with `fields` (statuses as GraphQL answers them). */
export function writtenState(kind: Kind, fields: Fields): Fields {
  return KINDS[kind].hasTrash ? { ...fields, status: 'PUBLISH' } : { ...fields };
}

/** The state after a delete: trashed (fields kept) or gone. */
export function deletedState(kind: Kind, before: State, force: boolean): State {
  return KINDS[kind].hasTrash && !force && before ? { ...before, status: 'TRASH' } : null;
}

export function hasTrash(kind: Kind): boolean {
  return KINDS[kind].hasTrash;
}

/** The status that acknowledges a write: 201 for a REST create, 200 for everything else. */
export const acknowledgedStatus = (action: 'create' | 'update' | 'delete', via: Via) =>
  action === 'create' && via === 'rest' ? 201 : 200;

/** The database ID a create answered (REST record, or the GraphQL `result` alias). */
export const createdId = (reply: Reply): number => Number(reply.body?.result?.id ?? reply.body?.id);

export async function createRecord(api: Api, kind: Kind, fields: Fields, via: Via): Promise<Reply> {
  const spec = KINDS[kind];
  if (via === 'rest') return api.rest('POST', spec.route, spec.restBody(fields));
  return api.graphql(
    `mutation ($input: ${spec.inputType}!) { result: create${spec.typeName}(input: $input) { id: databaseId } }`,
    {
      input: spec.graphqlInput(fields),
    },
  );
}

const EDIT_METHODS = ['POST', 'PUT', 'PATCH'];

export async function updateRecord(api: Api, kind: Kind, id: number, fields: Fields, via: Via): Promise<Reply> {
  const spec = KINDS[kind];
  if (via === 'rest') return api.rest(pick(EDIT_METHODS), `${spec.route}/${id}`, spec.restBody(fields));
  return api.graphql(
    `mutation ($id: ID!, $input: ${spec.inputType}!) { result: update${spec.typeName}(id: $id, input: $input) { id } }`,
    {
      id,
      input: spec.graphqlInput(fields),
    },
  );
}

export async function deleteRecord(api: Api, kind: Kind, id: number, force: boolean, via: Via): Promise<Reply> {
  const spec = KINDS[kind];
  if (via === 'rest') return api.rest('DELETE', `${spec.route}/${id}${force && spec.hasTrash ? '?force=true' : ''}`);
  const forceArgument = spec.hasTrash ? `, force: ${force}` : '';
  return api.graphql(`mutation { result: delete${spec.typeName}(id: ${id}${forceArgument}) { id } }`);
}

/** Reads the current state of many records of one kind, in GraphQL requests of `batch` aliased fields each. */
export async function readStates(api: Api, kind: Kind, idList: number[], batch = 40): Promise<Map<number, State>> {
  const spec = KINDS[kind];
  const states = new Map<number, State>();
  for (let start = 0; start < idList.length; start += batch) {
    const chunk = idList.slice(start, start + batch);
    const fields = chunk.map((id) => `r${id}: ${spec.query}(id: ${id}) { ${spec.selection} }`).join(' ');
    const reply = await api.graphql(`{ ${fields} }`);
    if (reply.status !== 200)
      throw new Error(`reading ${kind} records answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 500)}`);
    for (const id of chunk) {
      const read = reply.body[`r${id}`] as Fields | null;
      states.set(id, read ? spec.stateOf(read) : null);
    }
  }
  return states;
}

/** A stable text of a state (keys sorted), for comparing two states. */
export function stateKey(state: State): string {
  return JSON.stringify(state, (_key, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
}
