/**
 * Realistic traffic (issue 27): hundreds of distinct REST URLs and GraphQL POST queries with variables, asked with a
 * Zipf-like popularity (the r-th most popular asked in proportion to 1/r), as a site's readers and front ends ask
 * them; optionally with a steady trickle of writes (an editor retitling an event, WRITES_PER_SECOND).
 *
 * The catalogue is built from the running server (its venues, organizers and terms) and the data set's sample events.
 */
import { randomSequence } from '../src/random.js';
import type { LoadRequest } from './load.js';
import { REST, type Scenario } from './scenarios.js';

/** Requests in the sampled sequence each connection cycles through. */
const SEQUENCE_LENGTH = 20_000;

const EVENT_BY_ID = `query RealisticEvent($id: ID!) {
  event(id: $id) { id title startsAt endsAt venues { name city } organizers { name } categories { name } }
}`;
const EVENT_WINDOW = `query RealisticWindow($filter: EventsFilter, $first: Int!) {
  events(filter: $filter, first: $first) { totalCount edges { node { id title startsAt venues { name } } } }
}`;

const graphql = (query: string, variables: Record<string, unknown>): LoadRequest => ({
  method: 'POST',
  path: '/graphql',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ query, variables }),
});

/** The IDs of the records a REST list answers (the first 50). */
async function ids(base: string, list: string): Promise<string[]> {
  const response = await fetch(`${base}${REST}/${list}?per_page=50`);
  if (!response.ok) throw new Error(`/${list} answered ${response.status}`);
  const body = (await response.json()) as Record<string, Array<{ id: number }>>;
  return (body[list] ?? []).map((record) => String(record.id));
}

/** The distinct requests, most popular first (list pages and filters before single records deep in the tail). */
export async function catalogue(base: string, sampleEventIds: number[], today: string): Promise<LoadRequest[]> {
  const venues = await ids(base, 'venues');
  const organizers = await ids(base, 'organizers');
  const categories = await ids(base, 'categories');
  const tags = await ids(base, 'tags');
  const get = (path: string): LoadRequest => ({ path: `${REST}${path}` });
  const requests: LoadRequest[] = [
    get('/events'),
    graphql(EVENT_WINDOW, { filter: { startDate: today }, first: 10 }),
    ...Array.from({ length: 10 }, (_, page) => get(`/events?page=${page + 2}`)),
    ...categories.map((id) => get(`/events?categories=${id}`)),
    get('/venues'),
    get('/organizers'),
    get('/categories'),
    get('/tags'),
    ...tags.map((id) => get(`/events?tags=${id}`)),
    ...sampleEventIds.slice(0, 100).map((id) => get(`/events/${id}`)),
    ...Array.from({ length: 12 }, (_, month) =>
      graphql(EVENT_WINDOW, { filter: { startDate: monthsAfter(today, month) }, first: 10 }),
    ),
    ...venues.map((id) => get(`/events?venue=${id}`)),
    ...organizers.map((id) => get(`/events?organizer=${id}`)),
    ...venues.map((id) => get(`/venues/${id}`)),
    ...organizers.map((id) => get(`/organizers/${id}`)),
    ...sampleEventIds.slice(0, 100).map((id) => graphql(EVENT_BY_ID, { id: String(id) })),
    ...['music', 'film', 'walk', 'night', 'family', 'free', 'talk', 'art'].map((word) => get(`/events?search=${word}`)),
    ...Array.from({ length: 10 }, (_, page) => get(`/events?per_page=5&page=${page + 1}`)),
    ...sampleEventIds.slice(100).map((id) => get(`/events/${id}`)),
    ...categories.map((id) => get(`/events?categories=${id}&page=2`)),
    ...Array.from({ length: 52 }, (_, week) =>
      get(`/events?start_date=${daysAfter(today, 7 * week)}&end_date=${daysAfter(today, 7 * week + 6)}`),
    ),
    ...Array.from({ length: 52 }, (_, week) =>
      graphql(EVENT_WINDOW, {
        filter: { startDate: daysAfter(today, 7 * week), endDate: daysAfter(today, 7 * week + 6) },
        first: 20,
      }),
    ),
    // Day views, the long tail.
    ...Array.from({ length: 120 }, (_, day) =>
      get(`/events?start_date=${daysAfter(today, day)}&end_date=${daysAfter(today, day)}`),
    ),
    ...Array.from({ length: 60 }, (_, day) =>
      graphql(EVENT_WINDOW, {
        filter: { startDate: daysAfter(today, day), endDate: daysAfter(today, day) },
        first: 20,
      }),
    ),
  ];
  return requests;
}

function daysAfter(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function monthsAfter(day: string, months: number): string {
  const [year, month] = day.split('-').map(Number) as [number, number];
  const date = new Date(Date.UTC(year, month - 1 + months, 1));
  return date.toISOString().slice(0, 10);
}

/** A sequence of `length` requests drawn with Zipf-like popularity (weight 1/rank) from `distinct`. */
export function zipfSequence(distinct: LoadRequest[], length = SEQUENCE_LENGTH): LoadRequest[] {
  const cumulative: number[] = [];
  let total = 0;
  distinct.forEach((_, rank) => {
    total += 1 / (rank + 1);
    cumulative.push(total);
  });
  const { next } = randomSequence(20261127);
  return Array.from({ length }, () => {
    const target = next() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return distinct[low]!;
  });
}

/**
 * The realistic scenarios; their requests are filled in from the running server (`prepareRealistic`). Each is
 * measured in a site's steady state: every distinct request is asked once before the warm-up (bench/run.ts).
 */
export const REALISTIC_SCENARIOS: Scenario[] = [
  {
    id: 'realistic-read',
    title: 'Realistic traffic: ≥ 500 distinct REST URLs and GraphQL POST queries, Zipf popularity, response cache on',
    api: 'REST',
    cached: true,
    realistic: true,
    requests: [],
  },
  {
    id: 'realistic-write',
    title: 'Realistic traffic with 1 write/s (an event retitled), response cache on',
    api: 'REST',
    cached: true,
    realistic: true,
    writesPerSecond: 1,
    requests: [],
  },
];

/** The scenario with its sampled requests; throws when the catalogue holds fewer than 500 distinct requests. */
export async function prepareRealistic(
  base: string,
  scenario: Scenario,
  sampleEventIds: number[],
  editor: string,
  today: string,
): Promise<Scenario> {
  const distinct = await catalogue(base, sampleEventIds, today);
  if (distinct.length < 500) throw new Error(`${scenario.id}: only ${distinct.length} distinct requests (goal ≥ 500)`);
  const writes = scenario.writesPerSecond ? retitles(sampleEventIds, editor) : undefined;
  return { ...scenario, distinct, requests: zipfSequence(distinct), writes };
}

/** An editor retitling the sample events in turn (the title changes each time, so every write is a change). */
function retitles(eventIds: number[], editor: string): LoadRequest[] {
  return Array.from({ length: 600 }, (_, index) => ({
    method: 'POST',
    path: `${REST}/events/${eventIds[index % eventIds.length]}`,
    headers: { 'content-type': 'application/json', authorization: editor },
    body: JSON.stringify({ title: `Retitled by the benchmark (${index})` }),
  }));
}
