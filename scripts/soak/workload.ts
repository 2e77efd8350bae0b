import type { Api, Reply } from './api.js';
import type { Ledger } from './ledger.js';
import {
  acknowledgedStatus,
  createdId,
  createRecord,
  deletedState,
  deleteRecord,
  hasTrash,
  newFields,
  pick,
  updateRecord,
  writtenState,
  type Kind,
  type LinkTargets,
  type Via,
} from './records.js';

/**
 * One soak client: a closed loop of reads (anonymous, REST and GraphQL, lists and single records) and writes (as the
 * administrator: creates, updates, deletes of every kind, each over REST or GraphQL). Each client writes only records
 * it created, so the ledger knows what every acknowledged write left behind.
 */

export interface Failure {
  operation: string;
  status: number | string;
  detail: string;
}

/** Counts, latencies and failures per operation. */
export class Stats {
  readonly latencies = new Map<string, number[]>();
  readonly failures: Failure[] = [];
  failureCount = 0;

  record(operation: string, ms: number, failure?: Omit<Failure, 'operation'>): void {
    const list = this.latencies.get(operation) ?? [];
    list.push(ms);
    this.latencies.set(operation, list);
    if (!failure) return;
    this.failureCount++;
    if (this.failures.length < 20) this.failures.push({ operation, ...failure });
  }

  get requests(): number {
    let total = 0;
    for (const list of this.latencies.values()) total += list.length;
    return total;
  }
}

export interface Client {
  worker: number;
  /** Anonymous reader. */
  reader: Api;
  /** The administrator. */
  writer: Api;
  ledger: Ledger;
  links: LinkTargets;
  stats: Stats;
  /** Unique per run, in every name written. */
  token: string;
}

const KIND_WEIGHTS: Array<[Kind, number]> = [
  ['event', 50],
  ['venue', 15],
  ['organizer', 15],
  ['category', 10],
  ['tag', 10],
];
/** Live records a client keeps per kind; at the limit it deletes one, so the data set stays about the same size. */
const POOL_LIMIT: Record<Kind, number> = { event: 8, venue: 3, organizer: 3, category: 3, tag: 3 };
const READ_SHARE = 0.55;

function weighted<T>(choices: Array<[T, number]>): T {
  let roll = Math.random() * choices.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [choice, weight] of choices) if ((roll -= weight) < 0) return choice;
  return choices[0]![0];
}

const via = (): Via => (Math.random() < 0.5 ? 'rest' : 'graphql');

/** Runs `request`, timing it, and records a failure unless it answers `expected`. */
async function measured(
  client: Client,
  operation: string,
  expected: number,
  request: () => Promise<Reply>,
): Promise<Reply | null> {
  const started = performance.now();
  try {
    const reply = await request();
    const failure =
      reply.status === expected
        ? undefined
        : { status: reply.status, detail: JSON.stringify(reply.body).slice(0, 300) };
    client.stats.record(operation, performance.now() - started, failure);
    return reply;
  } catch (error) {
    client.stats.record(operation, performance.now() - started, { status: 'no answer', detail: String(error) });
    return null;
  }
}

const EVENTS_LIST = `{ events(first: 10) { totalCount edges { node { id title startsAt venues { name } organizers { name } categories { name } tags { name } } } } }`;
const EVENT_BY_ID = `query ($id: ID!) { event(id: $id) { id title description startsAtLocal timezone cost venues { name city } organizers { name } categories { name } tags { name } } }`;
const VENUES_LIST = `{ venues(first: 10) { totalCount edges { node { id name city } } } }`;

const LIST_ROUTES = ['venues', 'organizers', 'categories', 'tags'];

function read(client: Client, ownEvents: number[]): Promise<Reply | null> {
  const { reader } = client;
  const list = pick(LIST_ROUTES);
  const reads: Array<[string, () => Promise<Reply>]> = [
    ['REST events list', () => reader.rest('GET', '/events?per_page=10')],
    ['GraphQL events list', () => reader.graphql(EVENTS_LIST)],
    ['GraphQL venues list', () => reader.graphql(VENUES_LIST)],
    [`REST ${list} list`, () => reader.rest('GET', `/${list}?per_page=10`)],
  ];
  if (ownEvents.length) {
    const id = pick(ownEvents);
    reads.push(['REST event by ID', () => reader.rest('GET', `/events/${id}`)]);
    reads.push(['GraphQL event by ID', () => reader.graphql(EVENT_BY_ID, { id })]);
  }
  const [operation, request] = pick(reads);
  return measured(client, operation, 200, request);
}

type Action = 'create' | 'update' | 'delete';

function actionFor(pool: number[], kind: Kind): Action {
  if (pool.length === 0) return 'create';
  if (pool.length >= POOL_LIMIT[kind]) return 'delete';
  return weighted<Action>([
    ['create', 30],
    ['update', 50],
    ['delete', 20],
  ]);
}

async function write(client: Client, pools: Record<Kind, number[]>, sequence: number): Promise<void> {
  const kind = weighted(KIND_WEIGHTS);
  const pool = pools[kind];
  const action = actionFor(pool, kind);
  const how = via();
  const operation = `${how === 'rest' ? 'REST' : 'GraphQL'} ${action} ${kind}`;
  const expected = acknowledgedStatus(action, how);
  const send = (request: () => Promise<Reply>) => measured(client, operation, expected, request);
  const fields = newFields(kind, `${client.token}-w${client.worker}-${sequence}`, client.links);
  if (action === 'create') {
    const id = await client.ledger.create(kind, writtenState(kind, fields), async () => {
      const reply = await send(() => createRecord(client.writer, kind, fields, how));
      return reply?.status === expected ? createdId(reply) : null;
    });
    if (id !== null) pool.push(id);
    return;
  }
  const id = pick(pool);
  const force = !hasTrash(kind) || Math.random() < 0.5;
  const next =
    action === 'update' ? writtenState(kind, fields) : deletedState(kind, client.ledger.stateOf(kind, id), force);
  await client.ledger.write(kind, id, next, async () => {
    const request =
      action === 'update'
        ? () => updateRecord(client.writer, kind, id, fields, how)
        : () => deleteRecord(client.writer, kind, id, force, how);
    return (await send(request))?.status === expected;
  });
  // Trashed and deleted records leave the pool: only their final state is checked.
  if (action === 'delete') pool.splice(pool.indexOf(id), 1);
}

/** Runs one client until `stop()` answers true; `readShare` of its requests are reads, the others writes. */
export async function runClient(client: Client, stop: () => boolean, readShare = READ_SHARE): Promise<void> {
  const pools: Record<Kind, number[]> = { event: [], venue: [], organizer: [], category: [], tag: [] };
  for (let sequence = 0; !stop(); sequence++) {
    if (Math.random() < readShare) await read(client, pools.event);
    else await write(client, pools, sequence);
  }
}
