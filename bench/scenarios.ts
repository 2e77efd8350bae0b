/**
 * What the benchmark asks: REST routes as integrations call them, and the GraphQL queries that answer the same
 * (the fields the REST serializers read, from src/read/operations/fragments.graphql).
 */
import { readFileSync } from 'node:fs';
import { Kind, parse, print, visit, type DefinitionNode, type FragmentDefinitionNode } from 'graphql';
import { DateTime } from 'luxon';
import type { GeneratedData } from './generate.js';
import type { LoadRequest } from './load.js';
import { REALISTIC_SCENARIOS } from './realistic.js';

export const REST = '/wp-json/calendar/events/v1';

export interface Scenario {
  id: string;
  title: string;
  api: 'REST' | 'GraphQL';
  /** Each connection cycles through these (single-record scenarios rotate over many records). */
  requests: LoadRequest[];
  /** Measured on a server with the response cache on; every other scenario runs with it off (RESPONSE_CACHE_MB=0). */
  cached?: boolean;
  /** Server processes sharing the port (WORKERS); one unless set. */
  workers?: number;
  /** The status every response must have (200 unless set); any other fails the scenario. */
  expectStatus?: number;
  /**
   * Conditional: before measuring, the harness sends the request once and adds `If-None-Match` with the ETag it
   * answered; a server that sends no ETag fails the scenario (bench/run.ts) rather than measuring 200s.
   */
  conditional?: boolean;
  /** The floor scenario its "vs floor" divides by: the one answering the same page size (floor-list-10 unless set). */
  floor?: string;
  /** The anonymous scenario reading the same URL (authenticated scenarios are judged against it). */
  anonymousOf?: string;
  /** Realistic traffic (bench/realistic.ts): its requests are sampled from the running server's records. */
  realistic?: boolean;
  /** A realistic scenario's distinct requests, each asked once before it is measured. */
  distinct?: LoadRequest[];
  /** Writes made during the measurement at `writesPerSecond`, in turn (an editor retitling sample events). */
  writesPerSecond?: number;
  writes?: LoadRequest[];
}

/** Authorization header values of a reader (a subscriber) the harness creates in each database. */
export interface Credentials {
  basic: string;
  bearer: string;
  /** An editor's HTTP Basic authorization, for the writes of the realistic scenario with writes. */
  editor: string;
}

const FRAGMENTS_FILE = new URL('../src/read/operations/fragments.graphql', import.meta.url);

/** An operation with the fragments it spreads (transitively) from the REST layer's fragment file. */
function withFragments(operation: string): string {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of parse(readFileSync(FRAGMENTS_FILE, 'utf8')).definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const used = new Set<string>();
  const collect = (node: DefinitionNode) =>
    visit(node, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        if (used.has(name)) return;
        used.add(name);
        const fragment = fragments.get(name);
        if (!fragment) throw new Error(`fragment ${name} is not in ${FRAGMENTS_FILE.pathname}`);
        collect(fragment);
      },
    });
  const document = parse(operation);
  for (const definition of document.definitions) collect(definition);
  return [print(document), ...[...used].map((name) => print(fragments.get(name)!))].join('\n\n');
}

const EVENT_LIST = withFragments(`query BenchEventList($filter: EventsFilter, $first: Int!) {
  events(filter: $filter, first: $first) { totalCount edges { node { ...RestEvent } } }
}`);
const EVENT_BY_ID = withFragments(`query BenchEventById($id: ID!) { event(id: $id) { ...RestEvent } }`);
const EVENT_BY_SLUG = withFragments(
  `query BenchEventBySlug($slug: String!) { eventBySlug(slug: $slug) { ...RestEvent } }`,
);
/**
 * What a front end's month view asks (issue 28): up to 100 events of a calendar month, each with its image, venues,
 * organizers, categories and tags, the fields a month grid and its pop-overs show.
 */
const MONTH_VIEW = `query BenchMonthView($filter: EventsFilter, $first: Int!) {
  events(filter: $filter, first: $first) {
    totalCount
    edges {
      node {
        id title slug startsAt endsAt startsAtLocal endsAtLocal allDay timezone featured excerpt
        image { url width height }
        venues { id name city }
        organizers { id name }
        categories { id name slug }
        tags { id name slug }
      }
    }
  }
}`;
const VENUE_LIST = withFragments(`query BenchVenueList($first: Int!) {
  venues(first: $first) { totalCount edges { node { ...RestVenue } } }
}`);

const graphql = (query: string, variables: Record<string, unknown>): LoadRequest => ({
  method: 'POST',
  path: '/graphql',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ query, variables }),
});

/** The scenarios over a generated data set; `today` fixes the dates of the filtered list and the GraphQL window. */
export function scenariosFor(
  data: Pick<GeneratedData, 'sampleEventIds' | 'sampleEventSlugs' | 'filterCategory' | 'filterSearch'>,
  credentials: Credentials,
  today = DateTime.utc(),
): Scenario[] {
  return [...listedScenarios(data, credentials, today), ...REALISTIC_SCENARIOS];
}

function listedScenarios(
  data: Pick<GeneratedData, 'sampleEventIds' | 'sampleEventSlugs' | 'filterCategory' | 'filterSearch'>,
  credentials: Credentials,
  today: DateTime,
): Scenario[] {
  const day = (offset: { days?: number; years?: number }) => today.plus(offset).toFormat('yyyy-MM-dd');
  const from = day({});
  const filteredTo = day({ days: 180 });
  const defaultTo = day({ years: 2 });
  const monthStart = today.startOf('month').toFormat('yyyy-MM-dd');
  const monthEnd = today.endOf('month').toFormat('yyyy-MM-dd');
  const filter = `categories=${encodeURIComponent(data.filterCategory)}&search=${encodeURIComponent(data.filterSearch)}&start_date=${from}&end_date=${filteredTo}`;
  return [
    { id: 'rest-list-10', title: 'REST events list, per_page 10', api: 'REST', requests: [{ path: `${REST}/events` }] },
    {
      id: 'rest-list-10-workers',
      title: 'REST events list, per_page 10, two server processes (WORKERS=2)',
      api: 'REST',
      workers: 2,
      requests: [{ path: `${REST}/events` }],
    },
    {
      id: 'rest-list-10-cached',
      title: 'REST events list, per_page 10, response cache on',
      api: 'REST',
      cached: true,
      requests: [{ path: `${REST}/events` }],
    },
    {
      id: 'rest-list-10-basic',
      title: 'REST events list, per_page 10, HTTP Basic (application password)',
      api: 'REST',
      anonymousOf: 'rest-list-10',
      requests: [{ path: `${REST}/events`, headers: { authorization: credentials.basic } }],
    },
    {
      id: 'rest-list-10-bearer',
      title: 'REST events list, per_page 10, bearer token',
      api: 'REST',
      anonymousOf: 'rest-list-10',
      requests: [{ path: `${REST}/events`, headers: { authorization: credentials.bearer } }],
    },
    {
      id: 'rest-list-10-304',
      title: 'REST events list, per_page 10, If-None-Match (304)',
      api: 'REST',
      conditional: true,
      expectStatus: 304,
      requests: [{ path: `${REST}/events` }],
    },
    {
      id: 'rest-list-50',
      title: 'REST events list, per_page 50',
      api: 'REST',
      floor: FLOOR_50_SCENARIO.id,
      requests: [{ path: `${REST}/events?per_page=50` }],
    },
    {
      id: 'rest-filtered',
      title: 'REST events list, category + search + dates',
      api: 'REST',
      requests: [{ path: `${REST}/events?${filter}` }],
    },
    // On the `series` data this window holds 100,000 occurrences (bench/generate.ts, report.ts's series targets).
    {
      id: 'rest-list-window',
      title: 'REST events list, a two-year window',
      api: 'REST',
      requests: [{ path: `${REST}/events?start_date=${from}&end_date=${defaultTo}` }],
    },
    {
      id: 'rest-event-id',
      title: 'REST single event by ID',
      api: 'REST',
      requests: data.sampleEventIds.map((id) => ({ path: `${REST}/events/${id}` })),
    },
    {
      id: 'rest-event-slug',
      title: 'REST single event by slug',
      api: 'REST',
      requests: data.sampleEventSlugs.map((slug) => ({ path: `${REST}/events/by-slug/${encodeURIComponent(slug)}` })),
    },
    { id: 'rest-venues', title: 'REST venues list', api: 'REST', requests: [{ path: `${REST}/venues` }] },
    {
      id: 'gql-list-10-cached',
      title: 'GraphQL events, first 10, by POST, response cache on',
      api: 'GraphQL',
      cached: true,
      requests: [graphql(EVENT_LIST, { filter: { startDate: from, endDate: defaultTo }, first: 10 })],
    },
    {
      id: 'gql-list-10',
      title: 'GraphQL events, first 10',
      api: 'GraphQL',
      requests: [graphql(EVENT_LIST, { filter: { startDate: from, endDate: defaultTo }, first: 10 })],
    },
    {
      id: 'gql-list-50',
      title: 'GraphQL events, first 50',
      api: 'GraphQL',
      floor: FLOOR_50_SCENARIO.id,
      requests: [graphql(EVENT_LIST, { filter: { startDate: from, endDate: defaultTo }, first: 50 })],
    },
    {
      id: 'gql-filtered',
      title: 'GraphQL events, category + search + dates',
      api: 'GraphQL',
      requests: [
        graphql(EVENT_LIST, {
          filter: {
            startDate: from,
            endDate: filteredTo,
            categories: [data.filterCategory],
            search: data.filterSearch,
          },
          first: 10,
        }),
      ],
    },
    {
      id: 'gql-month-view',
      title: 'GraphQL month view: events of this month, first 100, with images, venues, organizers and terms',
      api: 'GraphQL',
      requests: [graphql(MONTH_VIEW, { filter: { startDate: monthStart, endDate: monthEnd }, first: 100 })],
    },
    {
      id: 'gql-event-id',
      title: 'GraphQL event by ID',
      api: 'GraphQL',
      requests: data.sampleEventIds.map((id) => graphql(EVENT_BY_ID, { id })),
    },
    {
      id: 'gql-event-slug',
      title: 'GraphQL event by slug',
      api: 'GraphQL',
      requests: data.sampleEventSlugs.map((slug) => graphql(EVENT_BY_SLUG, { slug })),
    },
    {
      id: 'gql-venues',
      title: 'GraphQL venues, first 10',
      api: 'GraphQL',
      requests: [graphql(VENUE_LIST, { first: 10 })],
    },
  ];
}

/**
 * `BENCH_SCENARIOS`: IDs to run and `-ID`s to leave out, comma-separated (`rest-list-10,gql-list-10`,
 * `-rest-list-10-304`); every scenario when none is named to run. An unknown ID is an error.
 */
export function selectScenarios(all: Scenario[], spec: string | undefined): Scenario[] {
  const parts = (spec ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const excluded = parts.filter((part) => part.startsWith('-')).map((part) => part.slice(1));
  const included = parts.filter((part) => !part.startsWith('-'));
  const unknown = [...excluded, ...included].filter((id) => !all.some((scenario) => scenario.id === id));
  if (unknown.length)
    throw new Error(
      `BENCH_SCENARIOS names unknown scenarios: ${unknown.join(', ')} (known: ${all.map((scenario) => scenario.id).join(', ')})`,
    );
  return all.filter(
    (scenario) => (included.length === 0 || included.includes(scenario.id)) && !excluded.includes(scenario.id),
  );
}

/** The floor answers the default events list only. */
export const FLOOR_SCENARIO: Scenario = {
  id: 'floor-list-10',
  title: 'Floor: events list, per_page 10 (node:http, same SQL walk, hand-written JSON)',
  api: 'REST',
  requests: [{ path: `${REST}/events` }],
};

/** The floor answering a page of 50 (the bytes checked against the service's before the runs, as for 10). */
export const FLOOR_50_SCENARIO: Scenario = {
  id: 'floor-list-50',
  title: 'Floor: events list, per_page 50 (node:http, same SQL walk, hand-written JSON)',
  api: 'REST',
  requests: [{ path: `${REST}/events?per_page=50` }],
};

/** The static floor answers the service's events-list bytes from memory. */
export const STATIC_FLOOR_SCENARIO: Scenario = {
  id: 'static-floor',
  title: 'Static floor: the same bytes from memory (node:http)',
  api: 'REST',
  requests: [{ path: `${REST}/events` }],
};

/** What checkResponse says of a successful list with nothing in it. */
export const EMPTY_LIST = 'an empty list';

/** Checks one response the way the benchmark needs it: the expected status; for a 200, JSON, no GraphQL errors, something in it. */
export function checkResponse(scenario: Scenario, status: number, body: string): string | null {
  const expected = scenario.expectStatus ?? 200;
  if (status !== expected) return `status ${status} (expected ${expected}): ${body.slice(0, 300)}`;
  if (expected === 304) return body === '' ? null : `a 304 with a body: ${body.slice(0, 100)}`;
  let json: any;
  try {
    json = JSON.parse(body);
  } catch {
    return `not JSON: ${body.slice(0, 300)}`;
  }
  if (scenario.api === 'GraphQL') {
    if (json.errors?.length) return `GraphQL errors: ${JSON.stringify(json.errors).slice(0, 300)}`;
    const value = Object.values(json.data ?? {})[0] as any;
    if (!value) return 'no data';
    if (value.edges && value.edges.length === 0) return EMPTY_LIST;
    return null;
  }
  const list = json.events ?? json.venues;
  if (Array.isArray(list) && list.length === 0) return EMPTY_LIST;
  return null;
}

/** Where two response bodies first differ, or null when they are the same bytes. */
export function firstDifference(a: Buffer, b: Buffer): string | null {
  if (a.equals(b)) return null;
  const length = Math.min(a.length, b.length);
  let at = 0;
  while (at < length && a[at] === b[at]) at++;
  const around = (buffer: Buffer) => JSON.stringify(buffer.subarray(Math.max(0, at - 80), at + 80).toString('utf8'));
  return `lengths ${a.length} and ${b.length}, first difference at byte ${at}:\n  server: ${around(a)}\n  floor:  ${around(b)}`;
}
