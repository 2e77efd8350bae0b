import { execFileSync } from 'node:child_process';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from './support/factories.js';
import { restClient, type RestClient } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

// Clock edges (issue 25): wall clocks a zone skips (a daylight-saving gap) or repeats (the hour after a
// daylight-saving end), and the last year the service writes. Every instant is checked against python-dateutil,
// run from this test (its rrule for the series, tz.resolve_imaginary and fold=0 for RFC 5545 §3.3.5: a skipped time
// moves forward by the gap, a repeated one is its first instant), and the feeds are expanded with ical.js: REST,
// GraphQL, events.ics, the public pages and their JSON-LD must all name the same instants, each start before its end.

let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer({ SITE_URL: 'https://calendar.example', SITE_TIMEZONE: 'Europe/Berlin' });
  rest = restClient(server);
});
afterAll(() => server?.close());

type Json = Record<string, any>;

// ---- The reference: python-dateutil -------------------------------------------------------------------------------

/** The Python that has python-dateutil: pyenv's on these machines, or Debian's with python3-dateutil (.ci/run). */
const python = (() => {
  for (const candidate of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(candidate, ['-c', 'import dateutil'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // the next one
    }
  }
  throw new Error('these tests check against python-dateutil: install it (Debian: apt-get install python3-dateutil)');
})();

const DATEUTIL_EXPANSION = `
import json, sys
from datetime import timedelta, timezone
from dateutil import rrule, tz
from dateutil.parser import isoparse

args = json.loads(sys.argv[1])
zone = tz.gettz(args['zone'])
if zone is None:
    raise SystemExit('unknown zone ' + args['zone'])
start, end = isoparse(args['start']), isoparse(args['end'])
WALL = '%Y-%m-%d %H:%M:%S'

def exact(wall):
    # RFC 5545 3.3.5: a skipped time moves forward by the gap; a repeated one is its first instant (fold=0).
    return tz.resolve_imaginary(wall.replace(tzinfo=zone))

out = []
for wall in rrule.rrulestr(args['rule'], dtstart=start):
    first = exact(wall)
    end_wall = wall + (end - start)
    last = exact(end_wall)
    # An end moves at least as far as its start moved, so an occurrence keeps its length.
    moved = (first.replace(tzinfo=None) - wall) - (last.replace(tzinfo=None) - end_wall)
    last_utc = last.astimezone(timezone.utc) + max(moved, timedelta(0))
    out.append({
        'rule': wall.strftime(WALL),
        'local': [first.strftime(WALL), last_utc.astimezone(zone).strftime(WALL)],
        'utc': [first.astimezone(timezone.utc).strftime(WALL), last_utc.strftime(WALL)],
    })
print(json.dumps(out))
`;

interface Expected {
  /** The start as the rule gives it. */
  rule: string;
  /** Start and end in the zone, and in UTC (`Y-m-d H:i:s`). */
  local: [string, string];
  utc: [string, string];
}

/** python-dateutil's occurrences of a series (or, with `COUNT=1`, of a single event) from a wall-clock start and end. */
function dateutil(zone: string, start: string, end: string, rule: string): Expected[] {
  const args = JSON.stringify({
    zone,
    start: start.replace(' ', 'T'),
    end: end.replace(' ', 'T'),
    rule: `RRULE:${rule}`,
  });
  return JSON.parse(execFileSync(python, ['-c', DATEUTIL_EXPANSION, args], { encoding: 'utf8' }));
}

// ---- The service over HTTP ---------------------------------------------------------------------------------------

interface Series {
  category: string;
  zone: string;
  start: string;
  end: string;
  rule: string;
}

async function createSeries(series: Series): Promise<Json> {
  const response = await rest.post('/events', {
    json: {
      title: unique('Clock'),
      timezone: series.zone,
      categories: [series.category],
      start_date: series.start,
      end_date: series.end,
      recurrence: [`RRULE:${series.rule}`],
    },
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** Start and end of each listed event: local, UTC, and the event. */
interface Listed {
  local: [string, string];
  utc: [string, string];
  event: Json;
}

async function restList(category: string, start: string, end: string): Promise<Listed[]> {
  const response = await rest.get('/events', {
    query: { categories: category, start_date: start, end_date: end, per_page: 50 },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.events.map((event: Json) => ({
    local: [event.start_date, event.end_date],
    utc: [event.utc_start_date, event.utc_end_date],
    event,
  }));
}

const utcWallClock = (iso: string) => iso.slice(0, 19).replace('T', ' ');

async function graphqlList(category: string, start: string, end: string): Promise<Array<Omit<Listed, 'event'>>> {
  const data = await server.gqlOk(
    `query ($c: [String!], $s: DateInput, $e: DateInput) { events(first: 50, filter: { categories: $c, startDate: $s, endDate: $e }) {
      nodes { startsAt endsAt startsAtLocal endsAtLocal } } }`,
    { c: [category], s: start, e: end },
  );
  return data.events.nodes.map((node: Json) => ({
    local: [node.startsAtLocal, node.endsAtLocal],
    utc: [utcWallClock(node.startsAt), utcWallClock(node.endsAt)],
  }));
}

async function feed(category: string): Promise<string> {
  const response = await rest.get('/events.ics', {
    query: { categories: category, start_date: '2027-01-01', end_date: '2027-12-31' },
  });
  expect(response.status, response.text).toBe(200);
  return response.text;
}

/** ical.js's expansion of a feed, exceptions applied: each occurrence's start and end in UTC, in order. */
function icalJsInstants(text: string): Array<[string, string]> {
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(new ICAL.Timezone(zone));
  const components = calendar.getAllSubcomponents('vevent');
  const utc = (time: ICAL.Time) => time.toJSDate().toISOString().slice(0, 19).replace('T', ' ');
  const seen: Array<[string, string]> = [];
  for (const component of components.filter((vevent) => !vevent.hasProperty('recurrence-id'))) {
    const event = new ICAL.Event(component);
    for (const exception of components.filter(
      (vevent) => vevent.hasProperty('recurrence-id') && vevent.getFirstPropertyValue('uid') === event.uid,
    )) {
      event.relateException(new ICAL.Event(exception));
    }
    const iterator = event.iterator();
    for (let next = iterator.next(), count = 0; next && count < 50; next = iterator.next(), count++) {
      const details = event.getOccurrenceDetails(next);
      seen.push([utc(details.startDate), utc(details.endDate)]);
    }
  }
  return seen.sort((a, b) => a[0].localeCompare(b[0]));
}

async function eventPage(slug: string): Promise<{ text: string; jsonLd: Json; times: string[] }> {
  const response = await fetch(`${server.url}/event/${slug}/`);
  expect(response.status).toBe(200);
  const text = await response.text();
  const jsonLd = JSON.parse(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(text)![1]!);
  const times = [...text.matchAll(/<time datetime="([^"]+)">/g)].map((match) => match[1]!);
  return { text, jsonLd, times };
}

const epoch = (iso: string) => new Date(iso).getTime();

/** The same series seen by REST, GraphQL and ical.js (from events.ics), each compared with python-dateutil. */
async function expectAgreement(series: Series, window: [string, string]) {
  const expected = dateutil(series.zone, series.start, series.end, series.rule);
  const listed = await restList(series.category, ...window);
  expect(listed.map(({ local, utc }) => ({ local, utc }))).toEqual(expected.map(({ local, utc }) => ({ local, utc })));
  expect(await graphqlList(series.category, ...window)).toEqual(expected.map(({ local, utc }) => ({ local, utc })));
  for (const { event } of listed) expect(event.utc_start_date <= event.utc_end_date, JSON.stringify(event)).toBe(true);
  expect(icalJsInstants(await feed(series.category))).toEqual(expected.map(({ utc }) => utc));
  return listed;
}

// ---- 1. A wall clock the zone skips ------------------------------------------------------------------------------

describe('occurrences in a daylight-saving gap (issue 25.1)', () => {
  // Europe/Berlin skips 02:00–03:00 on 2027-03-28.
  const gap: Series = {
    category: unique('Gap'),
    zone: 'Europe/Berlin',
    start: '2027-03-26 02:30:00',
    end: '2027-03-26 03:00:00',
    rule: 'FREQ=DAILY;COUNT=4',
  };
  let listed: Listed[];

  beforeAll(async () => {
    await createSeries(gap);
    listed = await restList(gap.category, '2027-03-01', '2027-04-30');
  });

  it('moves the skipped start forward by the gap and keeps the length, as python-dateutil reads it (REST, GraphQL, ical.js)', async () => {
    const expected = dateutil(gap.zone, gap.start, gap.end, gap.rule);
    expect(expected[2]).toEqual({
      rule: '2027-03-28 02:30:00',
      local: ['2027-03-28 03:30:00', '2027-03-28 04:00:00'],
      utc: ['2027-03-28 01:30:00', '2027-03-28 02:00:00'],
    });
    await expectAgreement(gap, ['2027-03-01', '2027-04-30']);
  });

  it('keeps the rule’s start as the original start, and says CEST', () => {
    const moved = listed[2]!.event;
    expect([moved.start_date, moved.end_date, moved.timezone_abbr]).toEqual([
      '2027-03-28 03:30:00',
      '2027-03-28 04:00:00',
      'CEST',
    ]);
    expect(moved.original_start_date).toBe('2027-03-28 02:30:00');
  });

  it('exports the moved occurrence as an exception with its rule start as RECURRENCE-ID', async () => {
    const text = await feed(gap.category);
    expect(text).toContain('DTSTART;TZID=Europe/Berlin:20270326T023000');
    expect(text).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20270328T023000');
    expect(text).toContain('DTSTART;TZID=Europe/Berlin:20270328T033000');
  });

  it('shows 03:30 – 04:00 CEST on the public page, with machine-readable times and JSON-LD in order', async () => {
    const page = await eventPage(listed[2]!.event.slug);
    expect(page.text).toContain(
      'Sunday 28 March 2027, 03:30</time> – <time datetime="2027-03-28T04:00:00+02:00">04:00 CEST',
    );
    expect(page.times).toEqual(['2027-03-28T03:30:00+02:00', '2027-03-28T04:00:00+02:00']);
    expect([page.jsonLd.startDate, page.jsonLd.endDate]).toEqual([
      '2027-03-28T03:30:00+02:00',
      '2027-03-28T04:00:00+02:00',
    ]);
  });

  it('deletes the moved occurrence for good: its EXDATE is the rule’s 02:30, in the series and in the feed', async () => {
    const series: Series = { ...gap, category: unique('Gap delete') };
    const master = await createSeries(series);
    const occurrences = await restList(series.category, '2027-03-01', '2027-04-30');
    expect((await rest.delete(`/events/${occurrences[2]!.event.id}`)).status).toBe(200);
    // A series edit expands the rule again: the EXDATE must still match the occurrence it was written for.
    const edited = await rest.post(`/events/${master.id}`, { json: { title: unique('Gap delete, renamed') } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=4', 'EXDATE;TZID=Europe/Berlin:20270328T023000']);
    const left = await restList(series.category, '2027-03-01', '2027-04-30');
    expect(left.map(({ local }) => local[0])).toEqual([
      '2027-03-26 02:30:00',
      '2027-03-27 02:30:00',
      '2027-03-29 02:30:00',
    ]);
    const text = await feed(series.category);
    expect(text).toContain('EXDATE;TZID=Europe/Berlin:20270328T023000');
    expect(icalJsInstants(text)).toEqual(left.map(({ utc }) => utc));
  });

  it('moves an end the zone skips forward, whatever the start (dateutil agrees)', async () => {
    const series: Series = {
      category: unique('Gap end'),
      zone: 'Europe/Berlin',
      start: '2027-03-27 01:45:00',
      end: '2027-03-27 02:45:00',
      rule: 'FREQ=DAILY;COUNT=3',
    };
    await createSeries(series);
    await expectAgreement(series, ['2027-03-01', '2027-04-30']);
  });

  it('does the same in America/New_York, a weekly series at 02:15', async () => {
    const series: Series = {
      category: unique('Gap NY'),
      zone: 'America/New_York',
      start: '2027-02-28 02:15:00',
      end: '2027-02-28 03:45:00',
      rule: 'FREQ=WEEKLY;COUNT=4',
    };
    await createSeries(series);
    await expectAgreement(series, ['2027-02-01', '2027-04-30']);
  });
});

// ---- 2. A wall clock the zone repeats ----------------------------------------------------------------------------

describe('occurrences and events in the repeated hour (issue 25.2)', () => {
  // America/New_York repeats 01:00–02:00 on 2027-11-07 (EDT, then EST); Europe/Berlin 02:00–03:00 on 2027-10-31.
  const repeated: Series = {
    category: unique('Overlap'),
    zone: 'America/New_York',
    start: '2027-11-05 01:30:00',
    end: '2027-11-05 02:00:00',
    rule: 'FREQ=DAILY;COUNT=4',
  };

  it('reads a repeated start as its first instant, as python-dateutil does (REST, GraphQL, ical.js)', async () => {
    await createSeries(repeated);
    const expected = dateutil(repeated.zone, repeated.start, repeated.end, repeated.rule);
    expect(expected[2]!.utc).toEqual(['2027-11-07 05:30:00', '2027-11-07 07:00:00']);
    const listed = await expectAgreement(repeated, ['2027-11-01', '2027-11-30']);
    expect(listed[2]!.event.timezone_abbr).toBe('EDT');
    const text = await feed(repeated.category);
    // ical.js (and others) would read `DTSTART;TZID=America/New_York:20271107T013000` as its second instant.
    expect(text).toContain('RECURRENCE-ID;TZID=America/New_York:20271107T013000');
    expect(text).toContain('DTSTART:20271107T053000Z');
  });

  it('reads a single event’s repeated start as its first instant, over REST and GraphQL, in New York and Berlin', async () => {
    for (const [zone, start, end] of [
      ['America/New_York', '2027-11-07 01:30:00', '2027-11-07 02:00:00'],
      ['Europe/Berlin', '2027-10-31 02:30:00', '2027-10-31 02:45:00'],
    ] as const) {
      const [expected] = dateutil(zone, start, end, 'FREQ=DAILY;COUNT=1');
      const created = await rest.post('/events', {
        json: { title: unique('Repeated'), timezone: zone, start_date: start, end_date: end },
      });
      expect(created.status, created.text).toBe(201);
      expect([created.body.utc_start_date, created.body.utc_end_date]).toEqual(expected!.utc);
      const viaGraphql = await server.gqlOk(
        `mutation ($input: EventInput!) { createEvent(input: $input) { startsAt endsAt startsAtLocal timezoneAbbreviation } }`,
        { input: { title: unique('Repeated'), timezone: zone, startDate: start, endDate: end } },
      );
      expect([utcWallClock(viaGraphql.createEvent.startsAt), utcWallClock(viaGraphql.createEvent.endsAt)]).toEqual(
        expected!.utc,
      );
      expect(viaGraphql.createEvent.timezoneAbbreviation).toBe(zone === 'America/New_York' ? 'EDT' : 'CEST');
    }
  });

  it('keeps the second instant when it is sent with its offset, through an edit that leaves the dates alone', async () => {
    const category = unique('Second');
    const created = await rest.post('/events', {
      json: {
        title: unique('Second'),
        timezone: 'Europe/Berlin',
        categories: [category],
        start_date: '2027-10-31T02:30:00+01:00',
        end_date: '2027-10-31T02:45:00+01:00',
      },
    });
    expect(created.status, created.text).toBe(201);
    const edited = await rest.post(`/events/${created.body.id}`, { json: { title: unique('Second, renamed') } });
    expect(edited.status, edited.text).toBe(200);
    expect([edited.body.start_date, edited.body.utc_start_date, edited.body.timezone_abbr]).toEqual([
      '2027-10-31 02:30:00',
      '2027-10-31 01:30:00',
      'CET',
    ]);
    expect(icalJsInstants(await feed(category))).toEqual([['2027-10-31 01:30:00', '2027-10-31 01:45:00']]);
    const page = await eventPage(created.body.slug);
    expect(page.times).toEqual(['2027-10-31T02:30:00+01:00', '2027-10-31T02:45:00+01:00']);
  });

  it('writes a single event in the repeated hour in UTC to the feed, and shows it EDT to EST on its page', async () => {
    const category = unique('Overlap single');
    const created = await rest.post('/events', {
      json: {
        title: unique('Night'),
        timezone: 'America/New_York',
        categories: [category],
        start_date: '2027-11-07 01:30:00',
        end_date: '2027-11-07 02:00:00',
      },
    });
    expect(created.status, created.text).toBe(201);
    const text = await feed(category);
    expect(text).toContain('DTSTART:20271107T053000Z');
    expect(icalJsInstants(text)).toEqual([['2027-11-07 05:30:00', '2027-11-07 07:00:00']]);
    const page = await eventPage(created.body.slug);
    expect(page.text).toContain('01:30 EDT</time> – <time datetime="2027-11-07T02:00:00-05:00">02:00 EST');
    expect([page.jsonLd.startDate, page.jsonLd.endDate]).toEqual([
      '2027-11-07T01:30:00-04:00',
      '2027-11-07T02:00:00-05:00',
    ]);
    expect(epoch(page.times[0]!)).toBeLessThan(epoch(page.times[1]!));
  });

  it('gives a series that starts in the repeated hour its length in every reader (DURATION in the feed)', async () => {
    const series: Series = {
      category: unique('Overlap start'),
      zone: 'America/New_York',
      start: '2027-11-07 00:30:00',
      end: '2027-11-07 01:30:00',
      rule: 'FREQ=DAILY;COUNT=3',
    };
    await createSeries(series);
    const text = await feed(series.category);
    expect(text).toContain('DURATION:PT1H');
    await expectAgreement(series, ['2027-11-01', '2027-11-30']);
  });
});

// ---- 4. The last year --------------------------------------------------------------------------------------------

describe('the year 9999 (issue 25.4)', () => {
  const noFiveDigitYears = (text: string) => expect(text).not.toMatch(/10000-|\+010000/);

  it('extends a series for a list that ends on 9999-12-31, to its last occurrence of that year', async () => {
    const category = unique('Far');
    await createSeries({
      category,
      zone: 'Europe/Berlin',
      start: '9990-06-01 10:00:00',
      end: '9990-06-01 11:00:00',
      rule: 'FREQ=YEARLY',
    });
    const listed = await restList(category, '9990-01-01', '9999-12-31');
    expect(listed.map(({ local }) => local[0])).toEqual(
      Array.from({ length: 10 }, (_, i) => `${9990 + i}-06-01 10:00:00`),
    );
  });

  it('materialises no occurrence whose UTC time would be in the year 10000 (west of UTC), and writes none', async () => {
    const category = unique('Last nights');
    await createSeries({
      category,
      zone: 'America/Los_Angeles',
      start: '9999-12-28 23:00:00',
      end: '9999-12-28 23:30:00',
      rule: 'FREQ=DAILY',
    });
    const response = await rest.get('/events', {
      query: { categories: category, start_date: '9999-12-01', end_date: '9999-12-31' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.events.map((event: Json) => [event.start_date, event.utc_start_date])).toEqual([
      ['9999-12-28 23:00:00', '9999-12-29 07:00:00'],
      ['9999-12-29 23:00:00', '9999-12-30 07:00:00'],
      ['9999-12-30 23:00:00', '9999-12-31 07:00:00'],
    ]);
    noFiveDigitYears(response.text);
    const graphql = await server.gql(
      `query ($c: [String!]) { events(filter: { categories: $c, startDate: "9999-12-01", endDate: "9999-12-31" }) { nodes { startsAt endsAt } } }`,
      { c: [category] },
    );
    expect(graphql.data?.events?.nodes).toHaveLength(3);
    noFiveDigitYears(JSON.stringify(graphql));
  });

  it('ends an UNTIL past the year 9999 (east of UTC) with that year', async () => {
    const category = unique('Until far');
    const created = await rest.post('/events', {
      json: {
        title: unique('Far'),
        timezone: 'Asia/Tokyo',
        categories: [category],
        start_date: '9999-12-29 20:00:00',
        end_date: '9999-12-29 21:00:00',
        recurrence: ['RRULE:FREQ=DAILY;UNTIL=99991231T235959Z'],
      },
    });
    expect(created.status, created.text).toBe(201);
    const listed = await restList(category, '9999-12-01', '9999-12-31');
    expect(listed.map(({ local }) => local[0])).toEqual([
      '9999-12-29 20:00:00',
      '9999-12-30 20:00:00',
      '9999-12-31 20:00:00',
    ]);
    noFiveDigitYears(JSON.stringify(listed.map(({ event }) => event)));
  });

  it('refuses, naming the field, an event or a date whose UTC time is in the year 10000', async () => {
    const late = {
      title: unique('Late'),
      timezone: 'America/Los_Angeles',
      start_date: '9999-12-31 23:00:00',
      end_date: '9999-12-31 23:30:00',
    };
    const refused = await rest.post('/events', { json: late });
    expect(refused.status, refused.text).toBe(400);
    expect(Object.keys(refused.body.data.params).sort()).toEqual(['end_date', 'start_date']);
    expect(refused.body.data.details.start_date.message).toContain('in UTC');
    const viaGraphql = await server.gql(`mutation ($input: EventInput!) { createEvent(input: $input) { startsAt } }`, {
      input: { title: late.title, timezone: late.timezone, startDate: late.start_date, endDate: late.end_date },
    });
    expect(viaGraphql.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(Object.keys(viaGraphql.errors![0]!.extensions!.fields).sort()).toEqual(['endDate', 'startDate']);
    const rdate = await rest.post('/events', {
      json: {
        ...late,
        start_date: '9999-12-01 10:00:00',
        end_date: '9999-12-01 11:00:00',
        recurrence: ['RDATE;TZID=America/Los_Angeles:99991231T230000'],
      },
    });
    expect(rdate.status, rdate.text).toBe(400);
    expect(Object.keys(rdate.body.data.params)).toEqual(['recurrence']);
    // A publication date is written in UTC and in the site's zone (Europe/Berlin here): neither may leave the years.
    const published = await rest.post('/events', {
      json: {
        ...late,
        timezone: 'UTC',
        start_date: '9999-01-01 10:00:00',
        end_date: '9999-01-01 11:00:00',
        date_utc: '9999-12-31 23:30:00',
      },
    });
    expect(published.status, published.text).toBe(400);
    expect(Object.keys(published.body.data.params)).toEqual(['date_utc']);
    // East of UTC the same wall clock is still in the year 9999 in UTC.
    const east = await rest.post('/events', { json: { ...late, timezone: 'Europe/Berlin' } });
    expect(east.status, east.text).toBe(201);
    expect(east.body.utc_end_date).toBe('9999-12-31 22:30:00');
  });
});
