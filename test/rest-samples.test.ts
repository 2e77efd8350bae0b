import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventKeys,
  inOrder,
  restClient,
  sampleBody,
  sampleHeaders,
  sampleRequest,
  TEC_EVENT_KEYS,
  type RestClient,
  type RestResponse,
} from './support/rest.js';
import { assertSchema, schemaErrors } from './support/schemas.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// Our answers next to the original's (test/fixtures/tec-samples: TEC 6.0.5 on a UTC site at
// http://127.0.0.1:8080).
// The samples' data is rebuilt here: the same venues, organizers, categories, tags and events (titles, texts, costs,
// flags, links), with dates at the same distance from "today" as in the samples, created in the samples' ID order.
// Each events request of tec-samples/INDEX.md is then replayed and compared: status, key order, JSON types, formatting
// and values. Where a decision of docs/rest-compatibility.md says otherwise, the exception names it; other deliberate
// differences say why.

const SITE = 'http://127.0.0.1:8080';
const API = `${SITE}/wp-json/calendar/events/v1`;
/** The samples were captured on 2026-11-21 (UTC), 04:24. */
const SAMPLE_TODAY = DateTime.fromISO('2026-11-21T00:00:00Z', { zone: 'utc' });
const WALL_CLOCK = 'yyyy-MM-dd HH:mm:ss';
const WALL_CLOCK_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

type Json = Record<string, any>;

let server: TestServer;
let rest: RestClient;
let today: DateTime;

/** Sample IDs → ours, per kind of record. */
const ids = {
  event: new Map<number, number>(),
  venue: new Map<number, number>(),
  organizer: new Map<number, number>(),
  term: new Map<number, number>(),
};

/** A sample wall-clock date moved to the same distance from our today, same time of day. */
function shift(wallClock: string): string {
  const moment = DateTime.fromFormat(wallClock, WALL_CLOCK, { zone: 'utc' });
  const days = Math.round(moment.startOf('day').diff(SAMPLE_TODAY, 'days').days);
  return today
    .plus({ days })
    .set({ hour: moment.hour, minute: moment.minute, second: moment.second })
    .toFormat(WALL_CLOCK);
}

function details(wallClock: string) {
  const [date, time] = wallClock.split(' ');
  const [year, month, day] = date!.split('-');
  const [hour, minutes, seconds] = time!.split(':');
  return { year, month, day, hour, minutes, seconds };
}

function mapped(kind: keyof typeof ids, sampleId: number): number {
  const id = ids[kind].get(sampleId);
  if (id === undefined) throw new Error(`no ${kind} for sample ID ${sampleId}`);
  return id;
}

/** The cost we send for a sample's displayed cost: its text with the symbol the sample site adds by default. */
function costInput(displayed: string): string {
  return displayed.replace(' – ', ' - ');
}

beforeAll(async () => {
  server = await startServer({ SITE_URL: SITE });
  rest = restClient(server);
  today = DateTime.utc().startOf('day');
  // The sample site's records all belong to user 1 (admin): so do ours, the test server's administrator is user 1.
  const { viewer } = await server.gqlOk(`{ viewer { id: databaseId login role } }`, {}, ADMIN_AUTHORIZATION);
  expect(viewer).toEqual({ id: 1, login: 'admin', role: 'ADMINISTRATOR' });

  for (const venue of [...sampleBody('14-venues-list').venues].sort((a: Json, b: Json) => a.id - b.id)) {
    const { result } = await server.gqlOk(
      `mutation ($input: VenueInput!) { result: createVenue(input: $input) { id: databaseId } }`,
      {
        input: {
          name: venue.venue,
          address: venue.address,
          city: venue.city,
          country: venue.country,
          state: venue.state,
          zip: venue.zip,
          phone: venue.phone,
          website: venue.website,
          stateProvince: venue.stateprovince,
          authorId: 1,
        },
      },
    );
    ids.venue.set(venue.id, result.id);
  }
  for (const organizer of [...sampleBody('16-organizers-list').organizers].sort((a: Json, b: Json) => a.id - b.id)) {
    const { result } = await server.gqlOk(
      `mutation ($input: OrganizerInput!) { result: createOrganizer(input: $input) { id: databaseId } }`,
      {
        input: {
          name: organizer.organizer,
          phone: organizer.phone,
          website: organizer.website,
          email: organizer.email,
          authorId: 1,
        },
      },
    );
    ids.organizer.set(organizer.id, result.id);
  }
  const terms = [
    ...sampleBody('18-categories-list').categories.map((term: Json) => ({ ...term, mutation: 'createEventCategory' })),
    ...sampleBody('20-tags-list').tags.map((term: Json) => ({ ...term, mutation: 'createEventTag' })),
  ].sort((a, b) => a.id - b.id);
  for (const term of terms) {
    const { result } = await server.gqlOk(
      `mutation ($input: TermInput!) { result: ${term.mutation}(input: $input) { id: databaseId } }`,
      {
        input: { name: term.name, description: term.description },
      },
    );
    ids.term.set(term.id, result.id);
  }

  // Events 46–75 from the 50-per-page list, then the draft (76) and the password-protected one (77), in ID order.
  const listed = sampleBody('40-protected-in-list').events as Json[];
  const draft = sampleBody('36-draft-get-as-admin');
  for (const event of [...listed, draft].sort((a, b) => a.id - b.id)) {
    if (event.id === 77) {
      // The REST API has no password parameter (as in the original): the protected event is made through GraphQL.
      const { result } = await server.gqlOk(
        `mutation ($input: EventInput!) { result: createEvent(input: $input) { id: databaseId } }`,
        {
          input: {
            title: event.title,
            description: event.description,
            excerpt: event.excerpt,
            startDate: shift(event.start_date),
            endDate: shift(event.end_date),
            timezone: 'UTC',
            password: 'letmein',
            showMap: false,
            showMapLink: false,
            authorId: 1,
            venues: [{ id: mapped('venue', event.venue.id) }],
          },
        },
      );
      ids.event.set(event.id, result.id);
      continue;
    }
    const response = await rest.post('/events', {
      json: {
        author: 1,
        title: event.title,
        description: event.description,
        excerpt: event.excerpt,
        status: event.status,
        start_date: shift(event.start_date),
        end_date: shift(event.end_date),
        all_day: event.all_day,
        timezone: event.timezone,
        cost: costInput(event.cost),
        ...(event.website.startsWith('https://example.com') ? { website: event.website } : {}),
        show_map: event.show_map,
        show_map_link: event.show_map_link,
        featured: event.featured,
        sticky: event.sticky,
        categories: event.categories.map((term: Json) => mapped('term', term.id)),
        tags: event.tags.map((term: Json) => mapped('term', term.id)),
        venue: Array.isArray(event.venue) ? '' : mapped('venue', event.venue.id),
        organizer: event.organizer.map((organizer: Json) => mapped('organizer', organizer.id)),
      },
    });
    if (response.status !== 201) throw new Error(`${event.title}: ${response.status} ${response.text}`);
    ids.event.set(event.id, response.body.id);
  }
});
afterAll(() => server?.close());

// ---------------------------------------------------------------------------------------------------------------
// Comparison: ours against the sample, record by record, IDs and dates mapped.

interface Exceptions {
  /** Paths (`organizer`, `cost_details.values`) whose value may differ, with the reason. */
  values?: Record<string, string>;
}

/** Same JSON type: integer/number/string/boolean/null/array/object. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function expectSameType(ours: unknown, sample: unknown, path: string) {
  expect(jsonType(ours), `${path}: ${JSON.stringify(ours)} vs sample ${JSON.stringify(sample)}`).toBe(jsonType(sample));
}

function expectWallClock(value: unknown, path: string) {
  expect(value, path).toMatch(WALL_CLOCK_PATTERN);
}

/** Sample URLs in our namespace, with sample IDs in REST paths and `?id=` mapped to ours. */
function mapUrl(url: string): string {
  return url
    .replace('/wp-json/tribe/events/v1/', '/wp-json/calendar/events/v1/')
    .replace(/\/(events|venues|organizers|categories|tags)\/(\d+)$/, (_all, kind: string, id: string) => {
      const map = {
        events: ids.event,
        venues: ids.venue,
        organizers: ids.organizer,
        categories: ids.term,
        tags: ids.term,
      }[kind]!;
      return `/${kind}/${map.get(Number(id)) ?? id}`;
    })
    .replace(/\?id=(\d+)$/, (_all, id: string) => `?id=${id}`);
}

/** The JSON-LD we emit is a subset of TEC's, in its order (decision 15: json_ld on single reads). */
function compareJsonLd(ours: Json, sample: Json, path: string) {
  expect(jsonType(ours), path).toBe('object');
  expect(
    inOrder(Object.keys(ours), Object.keys(sample)),
    `${path} keys ${Object.keys(ours)} vs ${Object.keys(sample)}`,
  ).toBe(true);
  expect(ours['@type'], path).toBe(sample['@type']);
  expect(ours.name, path).toBe(sample.name.replace(/^Protected: /, ''));
  // TEC prints an anti-spam entity soup for e-mails and an HTML-escaped excerpt: we keep the plain values.
  for (const key of ['startDate', 'endDate']) {
    if (sample[key])
      expect(ours[key], `${path}.${key}`).toBe(
        `${shift(sample[key].slice(0, 19).replace('T', ' ')).replace(' ', 'T')}+00:00`,
      );
  }
  for (const key of ['location', 'organizer'])
    if (sample[key] && ours[key]) compareJsonLd(ours[key], sample[key], `${path}.${key}`);
}

function compareTerm(ours: Json, sample: Json, path: string, kind: 'categories' | 'tags') {
  expect(Object.keys(ours), path).toEqual(Object.keys(sample));
  const id = mapped('term', sample.id);
  expect(ours, path).toEqual({
    ...sample,
    id,
    term_taxonomy_id: id,
    urls: { self: `${API}/${kind}/${id}`, collection: `${API}/${kind}` },
  });
}

function compareLinked(ours: Json, sample: Json, path: string, kind: 'venue' | 'organizer') {
  expect(Object.keys(ours), path).toEqual(Object.keys(sample));
  for (const [key, value] of Object.entries(sample)) {
    const at = `${path}.${key}`;
    expectSameType(ours[key], value, at);
    if (['date', 'date_utc', 'modified', 'modified_utc'].includes(key)) expectWallClock(ours[key], at);
    else if (key === 'id') expect(ours.id, at).toBe(mapped(kind, value as number));
    else if (key === 'global_id') expect(ours.global_id, at).toBe(`127.0.0.1?id=${ours.id}`);
    else if (key === 'global_id_lineage') expect(ours.global_id_lineage, at).toEqual([`127.0.0.1?id=${ours.id}`]);
    else if (key === 'json_ld') compareJsonLd(ours.json_ld, value as Json, at);
    else expect(ours[key], at).toEqual(value);
  }
}

/** Compares one event with the sample's; `exceptions.values` lists the paths allowed to differ in value. */
function compareEvent(
  ours: Json,
  sample: Json,
  { single = false, exceptions = {} }: { single?: boolean; exceptions?: Exceptions } = {},
) {
  const path = `event ${sample.id} (${sample.title})`;
  // Key order: the sample's, plus custom_fields (decision 15) and ticketed (decision 7) which 6.0.5 lacks.
  expect(
    Object.keys(sample).filter((key) => key !== 'json_ld'),
    path,
  ).toEqual([...TEC_EVENT_KEYS]);
  expect(Object.keys(ours), path).toEqual(eventKeys(single));
  assertSchema('event', ours);
  const allowed = exceptions.values ?? {};
  for (const key of TEC_EVENT_KEYS) {
    const at = `${path}.${key}`;
    const value = sample[key];
    if (!(key in allowed)) expectSameType(ours[key], value, at);
    if (key in allowed) continue;
    switch (key) {
      case 'id':
        expect(ours.id, at).toBe(mapped('event', value));
        break;
      case 'global_id':
        expect(ours.global_id, at).toBe(`127.0.0.1?id=${ours.id}`);
        break;
      case 'global_id_lineage':
        expect(ours.global_id_lineage, at).toEqual([`127.0.0.1?id=${ours.id}`]);
        break;
      case 'date':
      case 'date_utc':
      case 'modified':
      case 'modified_utc':
        expectWallClock(ours[key], at);
        break;
      case 'rest_url':
        expect(ours.rest_url, at).toBe(`${API}/events/${ours.id}`);
        break;
      case 'start_date':
      case 'end_date':
      case 'utc_start_date':
      case 'utc_end_date':
        expect(ours[key], at).toBe(shift(value));
        break;
      case 'start_date_details':
      case 'end_date_details':
      case 'utc_start_date_details':
      case 'utc_end_date_details':
        expect(Object.keys(ours[key]), at).toEqual(Object.keys(value));
        expect(ours[key], at).toEqual(details(shift(sample[key.replace('_details', '')])));
        break;
      case 'cost_details': {
        expect(Object.keys(ours.cost_details), at).toEqual(Object.keys(value));
        for (const part of Object.keys(value)) expectSameType(ours.cost_details[part], value[part], `${at}.${part}`);
        // Not a decision: the sample site adds its default currency symbol ($) to costs that have none stored; this
        // service has no site-wide currency, so the data here carries the "$" and cost_details says so.
        const symbol = ours.cost.includes('$') ? '$' : '';
        expect(ours.cost_details, at).toMatchObject({
          currency_symbol: symbol,
          currency_code: '',
          currency_position: symbol ? 'prefix' : '',
        });
        // §2.1: values are the numeric values, so "Free" is ["0"] where 6.0.5 shows ["free"].
        expect(ours.cost_details.values, at).toEqual(value.values.map((v: string) => (v === 'free' ? '0' : v)));
        break;
      }
      case 'categories':
      case 'tags':
        expect(ours[key].length, at).toBe(value.length);
        value.forEach((term: Json, index: number) => compareTerm(ours[key][index], term, `${at}[${index}]`, key));
        break;
      case 'venue':
        if (Array.isArray(value)) expect(ours.venue, at).toEqual([]);
        else compareLinked(ours.venue, value, at, 'venue');
        break;
      case 'organizer':
        expect(ours.organizer.length, at).toBe(value.length);
        value.forEach((organizer: Json, index: number) =>
          compareLinked(ours.organizer[index], organizer, `${at}[${index}]`, 'organizer'),
        );
        break;
      default:
        expect(ours[key], at).toEqual(typeof value === 'string' && value.startsWith('http') ? mapUrl(value) : value);
    }
  }
  expect(ours.custom_fields, path).toEqual([]);
  expect(typeof ours.ticketed, path).toBe('boolean');
  if (single) compareJsonLd(ours.json_ld, sample.json_ld, `${path}.json_ld`);
}

/** Decision 3: a protected event is listed with its protected fields blanked (6.0.5 leaked them, sample 40). */
function compareBlanked(ours: Json, sample: Json) {
  expect(Object.keys(ours)).toEqual(eventKeys(false));
  expect(ours).toMatchObject({
    id: mapped('event', sample.id),
    title: sample.title,
    slug: sample.slug,
    status: sample.status,
    start_date: shift(sample.start_date),
    end_date: shift(sample.end_date),
    url: sample.url,
    description: '',
    excerpt: '',
    cost: '',
    website: '',
    image: false,
    all_day: null,
    featured: null,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
  });
  expect(schemaErrors('event', ours)).toEqual([]);
}

/** The list URLs of a sample, in our namespace; decision 16 starts the default window today, not yesterday. */
function listUrl(url: string): string {
  const yesterday = SAMPLE_TODAY.minus({ days: 1 }).toFormat('yyyy-MM-dd');
  return url
    .replace('/wp-json/tribe/events/v1/', '/wp-json/calendar/events/v1/')
    .replace(`start_date=${yesterday} 00:00:00`, `start_date=${today.toFormat('yyyy-MM-dd')} 00:00:00`)
    .replace(`start_date=${yesterday}+00%3A00%3A00`, `start_date=${today.toFormat('yyyy-MM-dd')}+00%3A00%3A00`)
    .replace(
      /end_date=(\d{4}-\d{2}-\d{2})( |\+)/,
      (_all, day: string, space: string) => `end_date=${shift(`${day} 00:00:00`).slice(0, 10)}${space}`,
    );
}

function compareList(response: RestResponse, name: string) {
  const sample = sampleBody(name);
  const { status } = sampleHeaders(name);
  expect(response.status, response.text).toBe(status);
  assertSchema('events-envelope', response.body);
  expect(Object.keys(response.body)).toEqual(Object.keys(sample));
  for (const key of ['rest_url', 'next_rest_url', 'previous_rest_url'] as const) {
    if (key in sample) expect(response.body[key], key).toBe(listUrl(sample[key]));
  }
  expect(response.body.total).toBe(sample.total);
  expect(response.body.total_pages).toBe(sample.total_pages);
  expect(response.body.events.map((event: Json) => event.id)).toEqual(
    sample.events.map((event: Json) => mapped('event', event.id)),
  );
  sample.events.forEach((event: Json, index: number) => {
    if (event.id === 77) compareBlanked(response.body.events[index], event);
    else compareEvent(response.body.events[index], event);
  });
  compareHeaders(response, name);
}

/** Headers: the sample's, except where a decision or the Allow header (below) makes ours differ. */
function compareHeaders(response: RestResponse, name: string) {
  const { headers } = sampleHeaders(name);
  expect(response.headers.get('content-type')).toBe(headers['content-type']);
  expect(response.headers.get('link')).toBe(headers.link);
  for (const key of ['x-tec-total', 'x-tec-totalpages'])
    expect(response.headers.get(key), key).toBe(headers[key] ?? null);
  // Decision 5: the X-TEC headers are exposed as well (and ETag, Allow, Retry-After: docs/limits-and-security.md, "CORS").
  const exposed = response.headers.get('access-control-expose-headers')!.split(', ');
  expect(exposed).toEqual(
    expect.arrayContaining([
      ...headers['access-control-expose-headers']!.split(', '),
      'X-TEC-Total',
      'X-TEC-TotalPages',
    ]),
  );
  for (const allowed of headers['access-control-allow-headers']!.split(', '))
    expect(response.headers.get('access-control-allow-headers')).toContain(allowed);
  // WordPress lists in Allow only the methods the caller may use; ours lists every method of the route whoever asks,
  // so it is always the admin's list (samples 09–12, 36), in the same order.
  const allow = response.headers.get('allow');
  if (headers.allow === undefined) expect(allow).toBeNull();
  else if (headers.allow === 'GET') expect(['GET, POST', 'GET, DELETE, POST, PUT, PATCH']).toContain(allow);
  else expect(allow).toBe(headers.allow);
}

function compareError(response: RestResponse, name: string) {
  const sample = sampleBody(name);
  const { status } = sampleHeaders(name);
  expect(response.status, response.text).toBe(status);
  assertSchema('error', response.body);
  expect(Object.keys(response.body)).toEqual(Object.keys(sample));
  if (sample.data.details !== undefined && !Array.isArray(response.body.data.details)) {
    // Not a decision: where the GraphQL layer found the problem, `details` carries its reason per parameter (the
    // original sends `details` only for WP_Error validators, §8); everything else is the original's.
    const { details: _ours, ...data } = response.body.data;
    const { details: _sample, ...sampleData } = sample.data;
    expect({ ...response.body, data }).toEqual({ ...sample, data: sampleData });
  } else expect(response.body).toEqual(sample);
  compareHeaders(response, name);
}

// ---------------------------------------------------------------------------------------------------------------

describe('the JSON Schemas accept the samples', () => {
  it('events, lists, errors, venues, organizers and terms of the samples are valid (ours add custom_fields, ticketed and recurrence)', () => {
    const ours = (event: Json) => ({ ...event, custom_fields: [], ticketed: false, recurrence: [] });
    for (const name of [
      '06-event-single',
      '07-event-single-allday-featured',
      '08-event-by-slug',
      '09-event-create-201',
      '10-event-update',
      '11-event-delete',
      '37-protected-get-no-password',
    ]) {
      expect(schemaErrors('event', ours(sampleBody(name))), name).toEqual([]);
    }
    // 36 (a draft read by an admin) shows WordPress draft artifacts our records never have: an empty slug and
    // `0000-00-00 00:00:00` GMT dates. The schema refuses exactly those.
    expect(
      schemaErrors('event', ours(sampleBody('36-draft-get-as-admin'))).map((error) => error.split(' ')[0]),
    ).toEqual(['/date_utc', '/modified_utc', '/slug']);
    for (const name of [
      '03-events-list-default',
      '04-events-list-per_page5-page2',
      '05-events-list-per_page10',
      '26-err-per_page-1000',
      '40-protected-in-list',
    ]) {
      const body = sampleBody(name);
      expect(schemaErrors('events-envelope', { ...body, events: body.events.map(ours) }), name).toEqual([]);
    }
    for (const name of [
      '12-event-delete-again',
      '13-event-get-after-trash-anon',
      '22-err-create-missing-title',
      '23-err-create-missing-dates',
      '24-err-per_page-abc',
      '27-err-page-beyond-last',
      '29-err-unknown-event-id',
      '30-err-unknown-slug',
      '33-err-anonymous-create',
      '42-err-unknown-category-filter',
      '44-err-wrong-method',
    ]) {
      expect(schemaErrors('error', sampleBody(name)), name).toEqual([]);
    }
    for (const venue of sampleBody('14-venues-list').venues) expect(schemaErrors('venue', venue)).toEqual([]);
    expect(schemaErrors('venue', sampleBody('15-venue-single'))).toEqual([]);
    for (const organizer of sampleBody('16-organizers-list').organizers)
      expect(schemaErrors('organizer', organizer)).toEqual([]);
    expect(schemaErrors('organizer', sampleBody('17-organizer-single'))).toEqual([]);
    for (const term of sampleBody('18-categories-list').categories) expect(schemaErrors('term', term)).toEqual([]);
    for (const term of sampleBody('20-tags-list').tags) expect(schemaErrors('term', term)).toEqual([]);
    expect(schemaErrors('term', sampleBody('19-category-single'))).toEqual([]);
    expect(schemaErrors('term', sampleBody('21-tag-single'))).toEqual([]);
    for (const term of sampleBody('06-event-single').categories)
      expect(schemaErrors('term-embedded', term)).toEqual([]);
  });

  it('and refuse what breaks the contract', () => {
    const event = { ...sampleBody('06-event-single'), custom_fields: [], ticketed: false, recurrence: [] };
    expect(schemaErrors('event', event)).toEqual([]);
    expect(schemaErrors('event', { ...event, id: '48' })).not.toEqual([]);
    expect(schemaErrors('event', { ...event, author: 1 })).not.toEqual([]);
    expect(schemaErrors('event', { ...event, start_date: '2026-11-26T12:00:00' })).not.toEqual([]);
    expect(
      schemaErrors('event', { ...event, start_date_details: { ...event.start_date_details, month: 11 } }),
    ).not.toEqual([]);
    expect(schemaErrors('event', { ...event, image: null })).not.toEqual([]);
    expect(schemaErrors('event', { ...event, venue: [event.venue] })).not.toEqual([]);
    expect(schemaErrors('event', { ...event, organizer: event.organizer[0] })).not.toEqual([]);
    expect(schemaErrors('event', { ...event, extra: 1 })).not.toEqual([]);
    const { ticketed: _, ...withoutTicketed } = event;
    expect(schemaErrors('event', withoutTicketed)).not.toEqual([]);
    expect(schemaErrors('venue', { ...sampleBody('15-venue-single'), author: '0' })).not.toEqual([]);
    expect(schemaErrors('venue', { ...sampleBody('15-venue-single'), city: '' })).not.toEqual([]);
    expect(schemaErrors('term', { ...sampleBody('21-tag-single'), parent: 0 })).not.toEqual([]);
    expect(
      schemaErrors('error', { ...sampleBody('24-err-per_page-abc'), data: { status: 400, params: ['per_page'] } }),
    ).not.toEqual([]);
  });
});

describe('list samples (03, 04, 05, 26, 40)', () => {
  it('03 GET /events: the default list', async () => {
    compareList(await rest.get('/events'), '03-events-list-default');
  });

  it('04 GET /events?per_page=5&page=2', async () => {
    compareList(await rest.get('/events', { query: 'per_page=5&page=2' }), '04-events-list-per_page5-page2');
  });

  it('05 GET /events?per_page=10', async () => {
    compareList(await rest.get('/events', { query: 'per_page=10' }), '05-events-list-per_page10');
  });

  it('26 GET /events?per_page=1000: clamped to 50 (decision 2)', async () => {
    compareList(await rest.get('/events', { query: 'per_page=1000' }), '26-err-per_page-1000');
  });

  it('40 GET /events?per_page=50: the protected event listed with its fields blanked (decision 3)', async () => {
    compareList(await rest.get('/events', { query: 'per_page=50' }), '40-protected-in-list');
  });
});

describe('single read samples (06, 07, 08, 35, 36, 37, 38, 39)', () => {
  it('06 GET /events/48', async () => {
    const response = await rest.get(`/events/${mapped('event', 48)}`);
    expect(response.status).toBe(200);
    compareEvent(response.body, sampleBody('06-event-single'), { single: true });
    compareHeaders(response, '06-event-single');
  });

  it('07 GET /events/50: all day? no; featured, with json_ld', async () => {
    const response = await rest.get(`/events/${mapped('event', 50)}`);
    compareEvent(response.body, sampleBody('07-event-single-allday-featured'), { single: true });
  });

  it('08 GET /events/by-slug/event-5-concert', async () => {
    const response = await rest.get('/events/by-slug/event-5-concert');
    expect(response.status).toBe(200);
    compareEvent(response.body, sampleBody('08-event-by-slug'), { single: true });
  });

  it('an all-day event reads 00:00:00 to 23:59:59 (Event 7, from the list sample)', async () => {
    const sample = sampleBody('40-protected-in-list').events.find((event: Json) => event.id === 52);
    const response = await rest.get('/events', { query: `include=${mapped('event', 52)}` });
    compareEvent(response.body.events[0], sample);
    expect(response.body.events[0]).toMatchObject({
      all_day: true,
      start_date: shift('2026-12-04 00:00:00'),
      end_date: shift('2026-12-04 23:59:59'),
    });
  });

  it('35 GET of a draft, anonymous: 403 event-not-accessible', async () => {
    compareError(await rest.get(`/events/${mapped('event', 76)}`), '35-err-anonymous-get-draft');
  });

  it('37 GET of a protected event without password: 403 event-password-protected (decision 3; 6.0.5 leaked it)', async () => {
    const response = await rest.get(`/events/${mapped('event', 77)}`);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      code: 'event-password-protected',
      message: 'The requested event is password protected',
      data: { status: 403 },
    });
  });

  it('39 GET of a protected event with a wrong password: 403 event-password-protected (decision 3)', async () => {
    const response = await rest.get(`/events/${mapped('event', 77)}`, { query: 'password=nope' });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('event-password-protected');
  });

  it('38 GET of a protected event with ?password=letmein: 200 with the full event', async () => {
    const response = await rest.get(`/events/${mapped('event', 77)}`, { query: 'password=letmein' });
    expect(response.status, response.text).toBe(sampleHeaders('38-protected-get-with-password').status);
    compareEvent(response.body, sampleBody('38-protected-get-with-password'), { single: true });
    compareHeaders(response, '38-protected-get-with-password');
  });

  it('36 GET of a draft as admin: 200 with the draft', async () => {
    const response = await rest.get(`/events/${mapped('event', 76)}`, {
      headers: { authorization: ADMIN_AUTHORIZATION },
    });
    expect(response.status, response.text).toBe(sampleHeaders('36-draft-get-as-admin').status);
    compareEvent(response.body, sampleBody('36-draft-get-as-admin'), {
      single: true,
      exceptions: {
        values: {
          // Decision 11: url (and the website falling back to it) is the /event/<slug>/ permalink; WordPress gives
          // drafts `?post_type=…&p=ID`.
          url: 'decision 11',
          website: 'decision 11',
          // Not a decision: WordPress gives a draft its slug when it is published; ours has one from the start.
          slug: 'WordPress draft slug',
        },
      },
    });
    expect(response.body).toMatchObject({
      status: 'draft',
      slug: 'draft-event',
      url: `${SITE}/event/draft-event/`,
      website: `${SITE}/event/draft-event/`,
    });
    compareHeaders(response, '36-draft-get-as-admin');
  });
});

describe('write samples (09–13) in sequence', () => {
  let created: Json;
  const map = (request: Json) => ({
    ...request,
    start_date: shift(request.start_date),
    end_date: shift(request.end_date),
    ...(request.venue ? { venue: mapped('venue', request.venue) } : {}),
    ...(request.organizer ? { organizer: mapped('organizer', request.organizer) } : {}),
    ...(request.categories ? { categories: request.categories.map((id: number) => mapped('term', id)) } : {}),
    ...(request.tags ? { tags: request.tags.map((id: number) => mapped('term', id)) } : {}),
  });

  it('09 POST /events: 201 with the created event', async () => {
    const request = map(sampleRequest('09-event-create-201'));
    const response = await rest.post('/events', { json: { ...request, author: 1, cost: '$15' } });
    expect(response.status, response.text).toBe(sampleHeaders('09-event-create-201').status);
    created = response.body;
    const sample = sampleBody('09-event-create-201');
    ids.event.set(sample.id, created.id);
    compareEvent(created, sample, {
      // Decision 4: show_map and show_map_link default to true on create (6.0.5 stored them empty, read false).
      exceptions: { values: { show_map: 'decision 4', show_map_link: 'decision 4' } },
    });
    expect(created).toMatchObject({ show_map: true, show_map_link: true });
    compareHeaders(response, '09-event-create-201');
  });

  it('10 POST /events/79: 200, fields not sent keep their values (decision 4)', async () => {
    const response = await rest.post(`/events/${created.id}`, { json: map(sampleRequest('10-event-update')) });
    expect(response.status, response.text).toBe(200);
    const sample = sampleBody('10-event-update');
    compareEvent(response.body, sample, {
      // Decision 4: 6.0.5 reset what the update did not send (organizer, website, featured); we keep them.
      exceptions: {
        values: {
          organizer: 'decision 4',
          website: 'decision 4',
          featured: 'decision 4',
          show_map: 'decision 4',
          show_map_link: 'decision 4',
        },
      },
    });
    expect(response.body).toMatchObject({
      organizer: created.organizer,
      website: created.website,
      featured: true,
      show_map: true,
      cost: '$20',
    });
    expect(response.body.cost_details.values).toEqual(['20']);
  });

  it('11 DELETE /events/79: 200 with the trashed event', async () => {
    const response = await rest.delete(`/events/${created.id}`);
    expect(response.status, response.text).toBe(200);
    compareEvent(response.body, sampleBody('11-event-delete'), {
      exceptions: {
        values: {
          // Decision 4 (as in 10): kept values.
          organizer: 'decision 4',
          website: 'decision 4',
          featured: 'decision 4',
          show_map: 'decision 4',
          show_map_link: 'decision 4',
          // Decision 11: url is the /event/<slug>/ permalink; WordPress gives trashed posts `?post_type=…&p=ID`.
          url: 'decision 11',
          // Not a decision: WordPress renames a trashed post's slug `<slug>__trashed`; we keep the slug.
          slug: 'WordPress trash slug',
        },
      },
    });
    expect(response.body).toMatchObject({ status: 'trash', slug: created.slug, url: created.url });
  });

  it('12 DELETE /events/79 again: 410 event-is-in-trash', async () => {
    compareError(await rest.delete(`/events/${created.id}`), '12-event-delete-again');
  });

  it('13 GET /events/79 after trash: 403 event-no-longer-available (decision 3; 6.0.5 said event-not-accessible)', async () => {
    const response = await rest.get(`/events/${created.id}`);
    expect(response.status).toBe(sampleHeaders('13-event-get-after-trash-anon').status);
    expect(response.body).toEqual({
      code: 'event-no-longer-available',
      message: 'This event is no longer available',
      data: { status: 403 },
    });
  });
});

describe('error samples (22–30, 41–44)', () => {
  it('22 POST /events without title', async () => {
    compareError(
      await rest.post('/events', { json: sampleRequest('22-err-create-missing-title') }),
      '22-err-create-missing-title',
    );
  });

  it('23 POST /events without dates', async () => {
    compareError(
      await rest.post('/events', { json: sampleRequest('23-err-create-missing-dates') }),
      '23-err-create-missing-dates',
    );
  });

  it('24 per_page=abc, 25 per_page=0, 28 page=0', async () => {
    compareError(await rest.get('/events', { query: 'per_page=abc' }), '24-err-per_page-abc');
    compareError(await rest.get('/events', { query: 'per_page=0' }), '25-err-per_page-0');
    compareError(await rest.get('/events', { query: 'page=0' }), '28-err-page-0');
  });

  it('27 page=99: 404 event-archive-page-not-found', async () => {
    compareError(await rest.get('/events', { query: 'page=99' }), '27-err-page-beyond-last');
  });

  it('29 GET /events/999999: 404 rest-event-not-found (decision 3; 6.0.5 answered 400 rest_invalid_param)', async () => {
    const response = await rest.get('/events/999999');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      code: 'rest-event-not-found',
      message: 'Event with ID 999999 does not exist.',
      data: { status: 404 },
    });
  });

  it('30 GET /events/by-slug/no-such-event: 400 naming slug', async () => {
    compareError(await rest.get('/events/by-slug/no-such-event'), '30-err-unknown-slug');
  });

  it('41 start_date=notadate, 42 categories=999999', async () => {
    compareError(await rest.get('/events', { query: 'start_date=notadate' }), '41-err-bad-start_date');
    compareError(await rest.get('/events', { query: 'categories=999999' }), '42-err-unknown-category-filter');
  });

  it('43 POST /events with an unknown venue', async () => {
    compareError(
      await rest.post('/events', { json: sampleRequest('43-err-create-bad-venue') }),
      '43-err-create-bad-venue',
    );
  });

  it('44 PUT /events: 404 rest_no_route without Allow', async () => {
    compareError(await rest.put('/events', { json: sampleRequest('44-err-wrong-method') }), '44-err-wrong-method');
  });

  it('33 anonymous POST /events: 401 rest_forbidden, creating nothing', async () => {
    const count = async () =>
      (
        await server.gqlOk(
          `{ events(filter: { statuses: [PUBLISH, FUTURE, DRAFT, PENDING, PRIVATE, TRASH] }) { totalCount } }`,
          {},
          ADMIN_AUTHORIZATION,
        )
      ).events.totalCount as number;
    const before = await count();
    const request = sampleRequest('33-err-anonymous-create');
    const json = { ...request, start_date: shift(request.start_date), end_date: shift(request.end_date) };
    compareError(await rest.post('/events', { json, headers: { authorization: '' } }), '33-err-anonymous-create');
    expect(await count()).toBe(before);
  });

  it('34 anonymous DELETE /events/46: 401 rest_forbidden, deleting nothing', async () => {
    const id = mapped('event', 46);
    compareError(await rest.delete(`/events/${id}`, { headers: { authorization: '' } }), '34-err-anonymous-delete');
    const after = await rest.get(`/events/${id}`);
    expect(after.status).toBe(200);
    expect(after.body.status).toBe('publish');
  });
});
