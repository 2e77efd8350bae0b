import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from './support/factories.js';
import { restClient, type RestClient } from './support/rest.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// Recurring series in the iCalendar feeds (issue 15): a series is one VEVENT with RRULE/RDATE/EXDATE, each changed
// occurrence a VEVENT with RECURRENCE-ID and the series' UID. ical.js (an independent parser) expands the feed, and
// its occurrences must be exactly those the REST list shows for the same window.

let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer({ SITE_URL: 'https://calendar.example' });
  rest = restClient(server);
});
afterAll(() => server?.close());

type Json = Record<string, any>;

/** A series (or event) in `category`, so a list by that category shows only what the test made. */
async function create(category: string, fields: Json): Promise<Json> {
  const response = await rest.post('/events', {
    json: { title: unique('Yoga'), timezone: 'Europe/Berlin', categories: [category], ...fields },
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

interface Window {
  category: string;
  start: string;
  end: string;
}

const query = (window: Window) => ({ categories: window.category, start_date: window.start, end_date: window.end });

/** What an occurrence looks like from either side: local start in its zone, UTC start (timed only), title. */
type Seen = [string, string | null, string];

async function restOccurrences(window: Window): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (let page = 1; ; page++) {
    const response = await rest.get('/events', { query: { ...query(window), per_page: 50, page } });
    expect(response.status, response.text).toBe(200);
    for (const event of response.body.events)
      seen.push([event.start_date, event.all_day ? null : event.utc_start_date, event.title]);
    if (page >= response.body.total_pages) return seen;
  }
}

async function feedText(window: Window): Promise<string> {
  const response = await rest.get('/events.ics', { query: query(window) });
  expect(response.status, response.text).toBe(200);
  return response.text;
}

/** The VEVENTs of a feed, with its VTIMEZONEs registered for ical.js. */
function vevents(text: string): ICAL.Component[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(new ICAL.Timezone(zone));
  return calendar.getAllSubcomponents('vevent');
}

/** ical.js's expansion of a feed: every occurrence (exceptions applied) whose local dates lie in the window, by start. */
function feedOccurrences(text: string, window: Window, zone: string): Seen[] {
  const components = vevents(text);
  const seen: Seen[] = [];
  const last = DateTime.fromISO(window.end, { zone }).plus({ days: 2 }).toJSDate();
  for (const component of components.filter((vevent) => !vevent.hasProperty('recurrence-id'))) {
    const event = new ICAL.Event(component);
    for (const exception of components.filter(
      (vevent) => vevent.hasProperty('recurrence-id') && vevent.getFirstPropertyValue('uid') === event.uid,
    )) {
      event.relateException(new ICAL.Event(exception));
    }
    const iterator = event.iterator();
    for (let next = iterator.next(); next && next.toJSDate() < last; next = iterator.next()) {
      const details = event.getOccurrenceDetails(next);
      const allDay = details.startDate.isDate;
      const local = (time: ICAL.Time) =>
        allDay
          ? `${time.toString()} 00:00:00`
          : DateTime.fromJSDate(time.toJSDate(), { zone }).toFormat('yyyy-MM-dd HH:mm:ss');
      const start = local(details.startDate);
      const end = allDay
        ? `${details.endDate.clone().adjust(-1, 0, 0, 0).toString()} 23:59:59`
        : local(details.endDate);
      // The REST window: starting on or after its first day, ending on or before its last (in the event's zone).
      if (start < `${window.start} 00:00:00` || end > `${window.end} 23:59:59`) continue;
      const utc = allDay
        ? null
        : DateTime.fromJSDate(details.startDate.toJSDate(), { zone: 'utc' }).toFormat('yyyy-MM-dd HH:mm:ss');
      seen.push([start, utc, details.item.summary]);
      if (!event.isRecurring()) break;
    }
  }
  return seen.sort((a, b) => (a[1] ?? a[0]).localeCompare(b[1] ?? b[0]));
}

const byStart = (seen: Seen[]) => [...seen].sort((a, b) => (a[1] ?? a[0]).localeCompare(b[1] ?? b[0]));

describe('GET /events.ics with recurring series', () => {
  const berlin = { category: unique('Weekly'), start: '2027-03-01', end: '2027-12-31' };
  let series: Json;
  let occurrences: Json[];

  beforeAll(async () => {
    series = await create(berlin.category, {
      title: 'Weekly yoga',
      start_date: '2027-03-22 10:00:00',
      end_date: '2027-03-22 11:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20271108T000000Z', 'RDATE;TZID=Europe/Berlin:20270601T180000'],
    });
    occurrences = (await rest.get('/events', { query: { ...query(berlin), per_page: 50 } })).body.events;
    // A changed occurrence (moved and retitled), a deleted one, and one made a draft (anonymous readers do not see it).
    const moved = await rest.post(`/events/${occurrences[3].id}`, {
      json: { title: 'Moved yoga', start_date: '2027-04-13 18:30:00', end_date: '2027-04-13 19:30:00' },
    });
    expect(moved.status, moved.text).toBe(200);
    expect((await rest.delete(`/events/${occurrences[5].id}`)).status).toBe(200);
    const drafted = await rest.post(`/events/${occurrences[30].id}`, { json: { status: 'draft' } });
    expect(drafted.status, drafted.text).toBe(200);
    // An event on its own in the same list.
    await create(berlin.category, {
      title: 'Single talk',
      start_date: '2027-05-05 19:00:00',
      end_date: '2027-05-05 20:00:00',
    });
  });

  it('exports the series as one VEVENT with DTSTART in its zone, its RRULE, RDATE and the deleted occurrence as EXDATE', async () => {
    const text = await feedText(berlin);
    const components = vevents(text);
    const uid = String(
      components
        .find((vevent) => vevent.getFirstPropertyValue('summary') === 'Weekly yoga')!
        .getFirstPropertyValue('uid'),
    );
    expect(uid.startsWith(`${series.id}@`)).toBe(true);
    const master = components.filter(
      (vevent) => vevent.getFirstPropertyValue('uid') === uid && !vevent.hasProperty('recurrence-id'),
    );
    expect(master).toHaveLength(1);
    expect(text).toContain('DTSTART;TZID=Europe/Berlin:20270322T100000');
    expect(text).toContain('RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20271108T000000Z');
    expect(text).toContain('RDATE;TZID=Europe/Berlin:20270601T180000');
    expect(text).toContain('EXDATE;TZID=Europe/Berlin:20270426T100000');
    expect(text).toContain('BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin');
    // The VEVENTs: the series, the moved occurrence, the single event; occurrences that follow the series are not there.
    expect(components.map((vevent) => vevent.getFirstPropertyValue('summary')).sort()).toEqual([
      'Moved yoga',
      'Single talk',
      'Weekly yoga',
    ]);
  });

  it('exports the changed occurrence with the series UID and RECURRENCE-ID in the series zone', async () => {
    const text = await feedText(berlin);
    const changed = vevents(text).find((vevent) => vevent.hasProperty('recurrence-id'))!;
    expect(String(changed.getFirstPropertyValue('uid')).startsWith(`${series.id}@`)).toBe(true);
    expect(text).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20270412T100000');
    expect(text).toContain('DTSTART;TZID=Europe/Berlin:20270413T183000');
  });

  it('expands (ical.js) to exactly the occurrences of the REST list, across both clock changes', async () => {
    const listed = await restOccurrences(berlin);
    expect(listed).toHaveLength(33 + 1 - 1 - 1 + 1); // 33 Mondays, the RDATE, less the deleted and the draft, plus the single event
    expect(listed).toContainEqual(['2027-03-29 10:00:00', '2027-03-29 08:00:00', 'Weekly yoga']);
    expect(listed).toContainEqual(['2027-11-01 10:00:00', '2027-11-01 09:00:00', 'Weekly yoga']);
    expect(listed).toContainEqual(['2027-04-13 18:30:00', '2027-04-13 16:30:00', 'Moved yoga']);
    expect(feedOccurrences(await feedText(berlin), berlin, 'Europe/Berlin')).toEqual(byStart(listed));
  });

  it('shows a draft occurrence to an editor, and leaves it out (EXDATE) for anonymous readers', async () => {
    const anonymous = await feedText(berlin);
    expect(anonymous).toContain(
      `EXDATE;TZID=Europe/Berlin:${occurrences[30].start_date.replace(/[-:]/g, '').replace(' ', 'T')}`,
    );
    const asEditor = await rest.get('/events.ics', {
      query: { ...query(berlin), status: 'publish,draft' },
      headers: { authorization: ADMIN_AUTHORIZATION },
    });
    expect(asEditor.status, asEditor.text).toBe(200);
    expect(asEditor.text).not.toContain(
      `EXDATE;TZID=Europe/Berlin:${occurrences[30].start_date.replace(/[-:]/g, '').replace(' ', 'T')}`,
    );
  });

  it('exports an all-day series with DATE values, its changed occurrence included', async () => {
    const window = { category: unique('Fair'), start: '2027-10-01', end: '2027-11-30' };
    const fair = await create(window.category, {
      title: 'Market days',
      all_day: true,
      timezone: 'America/New_York',
      start_date: '2027-10-30',
      end_date: '2027-10-31',
      recurrence: ['RRULE:FREQ=DAILY;INTERVAL=3;UNTIL=20271115'],
    });
    const days = (await rest.get('/events', { query: { ...query(window), per_page: 50 } })).body.events;
    expect((await rest.post(`/events/${days[1].id}`, { json: { title: 'Market days (indoor)' } })).status).toBe(200);
    expect((await rest.delete(`/events/${days[2].id}`)).status).toBe(200);
    const text = await feedText(window);
    expect(text).toContain('DTSTART;VALUE=DATE:20271030');
    expect(text).toContain('RRULE:FREQ=DAILY;INTERVAL=3;UNTIL=20271115');
    expect(text).toContain('EXDATE;VALUE=DATE:20271105');
    expect(text).toContain('RECURRENCE-ID;VALUE=DATE:20271102');
    expect(text).not.toContain('BEGIN:VTIMEZONE');
    const listed = await restOccurrences(window);
    expect(listed.map((seen) => seen[2])).toEqual([
      'Market days',
      'Market days (indoor)',
      'Market days',
      'Market days',
      'Market days',
    ]);
    expect(feedOccurrences(text, window, 'America/New_York')).toEqual(byStart(listed));
    expect(fair.recurrence).toEqual(['RRULE:FREQ=DAILY;INTERVAL=3;UNTIL=20271115']);
  });

  it('exports an unbounded series once, and expands it like the list in a window years ahead (a VTIMEZONE that far)', async () => {
    const window = { category: unique('Open'), start: '2031-03-01', end: '2031-11-30' };
    await create(window.category, {
      title: 'Open-ended',
      start_date: '2027-01-07 19:00:00',
      end_date: '2027-01-07 20:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TH', 'EXDATE:20310515T170000Z'],
    });
    const text = await feedText(window);
    expect(vevents(text)).toHaveLength(1);
    expect(text).toContain('EXDATE;TZID=Europe/Berlin:20310515T190000');
    const listed = await restOccurrences(window);
    expect(listed.length).toBeGreaterThan(15);
    expect(listed.some((seen) => seen[0].startsWith('2031-05-15'))).toBe(false);
    expect(feedOccurrences(text, window, 'Europe/Berlin')).toEqual(byStart(listed));
  });

  it('exports the series for one event’s feed, and an occurrence on its own as a single event', async () => {
    const whole = await rest.get(`/events/${series.id}.ics`);
    expect(whole.status, whole.text).toBe(200);
    expect(whole.text).toContain('RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20271108T000000Z');
    expect(whole.text).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20270412T100000');
    const one = await rest.get(`/events/${occurrences[0].id}.ics`);
    expect(one.status, one.text).toBe(200);
    const components = vevents(one.text);
    expect(components).toHaveLength(1);
    expect(components[0].hasProperty('rrule') || components[0].hasProperty('recurrence-id')).toBe(false);
    expect(String(components[0].getFirstPropertyValue('uid')).startsWith(`${occurrences[0].id}@`)).toBe(true);
  });
});
