// Dates and zones on writes: years outside 1000–9999 are refused (as list filters refuse them); a start the zone
// skips (a daylight-saving gap) moves forward with the event's length kept, never becoming an event of no or negative
// length; zone names are stored in their IANA spelling, the site's zone included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from './support/factories.js';
import { restClient, type RestClient } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer({ SITE_TIMEZONE: 'europe/berlin' });
  rest = restClient(server);
});
afterAll(() => server?.close());

const CREATE = `mutation ($input: EventInput!) { createEvent(input: $input) { slug timezone startsAtLocal endsAtLocal } }`;

describe('years from 1000 to 9999', () => {
  const OUT_OF_RANGE = [
    '0999-12-31 10:00:00',
    '0001-01-01',
    '10000-01-01 10:00:00',
    '+010000-01-01T00:00:00Z',
    '-99999999999',
    '+100000 years',
  ];

  it.each(OUT_OF_RANGE)(
    'refuses %j as a start, end or publication date over REST, naming the parameter',
    async (date) => {
      const dates = { start_date: '2031-06-01 10:00:00', end_date: '2031-06-01 12:00:00' };
      for (const param of ['start_date', 'end_date', 'date', 'date_utc']) {
        const response = await rest.post('/events', { json: { title: unique('Far'), ...dates, [param]: date } });
        expect(response.status, `${param} ${response.text}`).toBe(400);
        expect(Object.keys(response.body.data.params)).toEqual([param]);
      }
    },
  );

  it.each(OUT_OF_RANGE)(
    'refuses %j as a start, end or publication date over GraphQL, naming the field',
    async (date) => {
      for (const field of ['startDate', 'endDate', 'date', 'dateUtc']) {
        const input = {
          title: unique('Far'),
          startDate: '2031-06-01 10:00:00',
          endDate: '2031-06-01 12:00:00',
          [field]: date,
        };
        const result = await server.gql(CREATE, { input });
        expect(result.errors?.[0]?.extensions?.code, `${field} ${JSON.stringify(result)}`).toBe('BAD_USER_INPUT');
        expect(result.errors![0]!.extensions!.fields).toEqual({
          [field]: 'is not a date in the years 1000 to 9999 (in its time zone and in UTC)',
        });
      }
    },
  );

  it('stores the first and the last years of the range', async () => {
    const early = await server.gqlOk(CREATE, {
      input: {
        title: unique('Early'),
        timezone: 'UTC',
        startDate: '1000-01-01 00:00:00',
        endDate: '1000-01-01 01:00:00',
      },
    });
    expect(early.createEvent.startsAtLocal).toBe('1000-01-01 00:00:00');
    const late = await server.gqlOk(CREATE, {
      input: {
        title: unique('Late'),
        timezone: 'UTC',
        startDate: '9999-12-31 22:00:00',
        endDate: '9999-12-31 23:59:59',
      },
    });
    expect(late.createEvent.endsAtLocal).toBe('9999-12-31 23:59:59');
  });
});

describe('a start inside a daylight-saving gap', () => {
  // Europe/Berlin skips 02:00–03:00 on 2027-03-28, America/New_York on 2027-03-14.
  const CASES = [
    {
      name: 'start in the gap, end after it: both move by the gap',
      zone: 'Europe/Berlin',
      start: '2027-03-28 02:30:00',
      end: '2027-03-28 03:30:00',
      expected: ['2027-03-28 03:30:00', '2027-03-28 04:30:00'],
      utc: ['2027-03-28 01:30:00', '2027-03-28 02:30:00'],
    },
    {
      name: 'start and end in the gap',
      zone: 'Europe/Berlin',
      start: '2027-03-28 02:30:00',
      end: '2027-03-28 02:45:00',
      expected: ['2027-03-28 03:30:00', '2027-03-28 03:45:00'],
      utc: ['2027-03-28 01:30:00', '2027-03-28 01:45:00'],
    },
    {
      name: 'start in the gap, end soon after it: no longer ends first',
      zone: 'Europe/Berlin',
      start: '2027-03-28 02:30:00',
      end: '2027-03-28 03:15:00',
      expected: ['2027-03-28 03:30:00', '2027-03-28 04:15:00'],
      utc: ['2027-03-28 01:30:00', '2027-03-28 02:15:00'],
    },
    {
      name: 'only the end in the gap: the end moves forward',
      zone: 'Europe/Berlin',
      start: '2027-03-28 01:30:00',
      end: '2027-03-28 02:30:00',
      expected: ['2027-03-28 01:30:00', '2027-03-28 03:30:00'],
      utc: ['2027-03-28 00:30:00', '2027-03-28 01:30:00'],
    },
    {
      name: 'New York, start in the gap',
      zone: 'America/New_York',
      start: '2027-03-14 02:15:00',
      end: '2027-03-14 03:15:00',
      expected: ['2027-03-14 03:15:00', '2027-03-14 04:15:00'],
      utc: ['2027-03-14 07:15:00', '2027-03-14 08:15:00'],
    },
  ];

  it.each(CASES)('REST: $name', async ({ zone, start, end, expected, utc }) => {
    const created = await rest.post('/events', {
      json: { title: unique('Gap'), timezone: zone, start_date: start, end_date: end },
    });
    expect(created.status, created.text).toBe(201);
    expect([created.body.start_date, created.body.end_date]).toEqual(expected);
    expect([created.body.utc_start_date, created.body.utc_end_date]).toEqual(utc);
  });

  it.each(CASES)('GraphQL: $name', async ({ zone, start, end, expected }) => {
    const created = await server.gqlOk(CREATE, {
      input: { title: unique('Gap'), timezone: zone, startDate: start, endDate: end },
    });
    expect([created.createEvent.startsAtLocal, created.createEvent.endsAtLocal]).toEqual(expected);
  });

  it('refuses, naming startDate, a start moved out of the gap onto or past the stored end', async () => {
    const created = await rest.post('/events', {
      json: {
        title: unique('Gap update'),
        timezone: 'Europe/Berlin',
        start_date: '2027-03-28 01:00:00',
        end_date: '2027-03-28 03:30:00',
      },
    });
    expect(created.status, created.text).toBe(201);
    const moved = await rest.post(`/events/${created.body.id}`, { json: { start_date: '2027-03-28 02:30:00' } });
    expect(moved.status, moved.text).toBe(400);
    expect(Object.keys(moved.body.data.params)).toEqual(['start_date']);
    expect((await rest.get(`/events/${created.body.id}`)).body.start_date).toBe('2027-03-28 01:00:00');
  });
});

describe('time zone names in their IANA spelling', () => {
  const ZONES = [
    ['europe/berlin', 'Europe/Berlin'],
    ['EUROPE/PARIS', 'Europe/Paris'],
    ['america/port-au-prince', 'America/Port-au-Prince'],
    ['utc', 'UTC'],
    ['etc/gmt+5', 'Etc/GMT+5'],
    ['utc+2', 'UTC+2'],
    ['UTC-5:30', 'UTC-5:30'],
    // A link ICU does not list keeps its name: ICU's canonical form of it is the older Asia/Calcutta.
    ['Asia/Kolkata', 'Asia/Kolkata'],
  ];

  it.each(ZONES)('stores %j as %j, over REST and GraphQL', async (sent, stored) => {
    const viaRest = await rest.post('/events', {
      json: {
        title: unique('Zone'),
        timezone: sent,
        start_date: '2031-07-01 10:00:00',
        end_date: '2031-07-01 11:00:00',
      },
    });
    expect(viaRest.status, viaRest.text).toBe(201);
    expect(viaRest.body.timezone).toBe(stored);
    const viaGraphql = await server.gqlOk(CREATE, {
      input: {
        title: unique('Zone'),
        timezone: sent,
        startDate: '2031-07-01 10:00:00',
        endDate: '2031-07-01 11:00:00',
      },
    });
    expect(viaGraphql.createEvent.timezone).toBe(stored);
  });

  it('spells SITE_TIMEZONE the IANA way: an event without a zone gets Europe/Berlin from "europe/berlin"', async () => {
    const created = await rest.post('/events', {
      json: { title: unique('Site zone'), start_date: '2031-07-02 10:00:00', end_date: '2031-07-02 11:00:00' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.timezone).toBe('Europe/Berlin');
    expect(created.body.utc_start_date).toBe('2031-07-02 08:00:00');
  });
});
