import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from './support/factories.js';
import { restClient, type RestClient } from './support/rest.js';
import { assertSchema } from './support/schemas.js';
import { startServer, type TestServer } from './support/server.js';

// Recurring events (issue 15) over REST and GraphQL: RFC 5545 series expanded in the event's zone, occurrences as
// list rows with stable IDs, exceptions, "this and following", unbounded series far ahead, filters, bad input.

let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer({ SITE_URL: 'http://calendar.test' });
  rest = restClient(server);
});
afterAll(() => server?.close());

type Json = Record<string, any>;

/** A series in its own category, so a list by that category shows only it. */
async function newSeries(fields: Json): Promise<Json & { category: string }> {
  const category = unique('Series');
  const response = await rest.post('/events', {
    json: { title: unique('Yoga'), timezone: 'Europe/Berlin', categories: [category], ...fields },
  });
  expect(response.status, response.text).toBe(201);
  return { ...response.body, category: response.body.categories[0].slug };
}

/** The occurrences a REST list shows for a category between two days (every page). */
async function listed(category: string, start: string, end: string, extra: Json = {}): Promise<Json[]> {
  const response = await rest.get('/events', {
    query: { categories: category, start_date: start, end_date: end, per_page: 50, ...extra },
  });
  expect(response.status, response.text).toBe(200);
  expect(response.body.total).toBeGreaterThanOrEqual(response.body.events.length);
  return response.body.events;
}

describe('REST: expansion', () => {
  it('keeps a weekly 10:00 Europe/Berlin series at 10:00 local across both daylight-saving changes', async () => {
    const series = await newSeries({
      start_date: '2027-03-22 10:00:00',
      end_date: '2027-03-22 11:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20271108T000000Z'],
    });
    expect(series.recurrence).toEqual(['RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20271108T000000Z']);
    const events = await listed(series.category, '2027-03-01', '2027-12-31');
    expect(events).toHaveLength(33);
    expect(
      events.every((event) => event.start_date.endsWith(' 10:00:00') && event.end_date.endsWith(' 11:00:00')),
    ).toBe(true);
    const utc = (day: string) => events.find((event) => event.start_date.startsWith(day))!.utc_start_date;
    expect(utc('2027-03-22')).toBe('2027-03-22 09:00:00'); // CET
    expect(utc('2027-03-29')).toBe('2027-03-29 08:00:00'); // CEST from 28 March
    expect(utc('2027-10-25')).toBe('2027-10-25 08:00:00');
    expect(utc('2027-11-01')).toBe('2027-11-01 09:00:00'); // CET again from 31 October
    for (const event of events) {
      expect(event.recurring_event_id).toBe(series.id);
      expect(event.original_start_date).toBe(event.start_date);
      expect(event.recurrence).toEqual([]);
      expect(event.id).not.toBe(series.id);
    }
    expect(new Set(events.map((event) => event.id)).size).toBe(33);
  });

  it('keeps an all-day series on its dates', async () => {
    const series = await newSeries({
      all_day: true,
      start_date: '2027-10-30',
      end_date: '2027-10-31',
      recurrence: ['RRULE:FREQ=DAILY;INTERVAL=2;COUNT=3'],
    });
    const events = await listed(series.category, '2027-10-01', '2027-12-31');
    expect(events.map((event) => [event.start_date, event.end_date, event.all_day])).toEqual([
      ['2027-10-30 00:00:00', '2027-10-31 23:59:59', true],
      ['2027-11-01 00:00:00', '2027-11-02 23:59:59', true],
      ['2027-11-03 00:00:00', '2027-11-04 23:59:59', true],
    ]);
  });

  it('follows BYDAY with BYSETPOS, COUNT, BYMONTHDAY and INTERVAL as RFC 5545 defines them', async () => {
    const lastFriday = await newSeries({
      start_date: '2027-01-29 18:00:00',
      end_date: '2027-01-29 20:00:00',
      recurrence: ['RRULE:FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1;COUNT=4'],
    });
    expect(
      (await listed(lastFriday.category, '2027-01-01', '2027-12-31')).map((event) => event.start_date.slice(0, 10)),
    ).toEqual(['2027-01-29', '2027-02-26', '2027-03-26', '2027-04-30']);
    const everyOtherMonth15th = await newSeries({
      start_date: '2027-01-15 09:00:00',
      end_date: '2027-01-15 10:00:00',
      recurrence: ['RRULE:FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=15;UNTIL=20270801'],
    });
    expect(
      (await listed(everyOtherMonth15th.category, '2027-01-01', '2027-12-31')).map((event) =>
        event.start_date.slice(0, 10),
      ),
    ).toEqual(['2027-01-15', '2027-03-15', '2027-05-15', '2027-07-15']);
  });

  it('leaves out EXDATEs and adds RDATEs (the issue’s example)', async () => {
    const series = await newSeries({
      start_date: '2027-04-13 10:00:00',
      end_date: '2027-04-13 11:00:00',
      recurrence: [
        'RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270630T000000Z',
        'EXDATE;TZID=Europe/Berlin:20270415T100000',
        'RDATE;TZID=Europe/Berlin:20270501T100000',
      ],
    });
    const starts = (await listed(series.category, '2027-04-01', '2027-05-06')).map((event) => event.start_date);
    expect(starts).toEqual([
      '2027-04-13 10:00:00',
      '2027-04-20 10:00:00',
      '2027-04-22 10:00:00',
      '2027-04-27 10:00:00',
      '2027-04-29 10:00:00',
      '2027-05-01 10:00:00',
      '2027-05-04 10:00:00',
      '2027-05-06 10:00:00',
    ]);
  });
});

describe('REST: the series and its occurrences', () => {
  it('lists the master itself only with expandRecurring false (GraphQL), and reads it and an occurrence by ID', async () => {
    const series = await newSeries({
      start_date: '2027-06-01 10:00:00',
      end_date: '2027-06-01 11:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    });
    const events = await listed(series.category, '2027-06-01', '2027-06-30');
    expect(events.map((event) => event.id)).not.toContain(series.id);
    const single = await rest.get(`/events/${events[1].id}`);
    expect(single.status).toBe(200);
    expect(single.body.recurring_event_id).toBe(series.id);
    expect(single.body.original_start_date).toBe('2027-06-02 10:00:00');
    assertSchema('event', single.body);
    const master = await rest.get(`/events/${series.id}`);
    assertSchema('event', master.body);
    expect(master.body.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=3']);
    const query = `query ($c: [String!], $x: Boolean) { events(filter: { categories: $c, expandRecurring: $x, startDate: "2027-01-01" }) { totalCount nodes { databaseId recurrence } } }`;
    const masters = await server.gqlOk(query, { c: [series.category], x: false });
    expect(masters.events.nodes).toEqual([{ databaseId: series.id, recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] }]);
    expect((await server.gqlOk(query, { c: [series.category], x: true })).events.totalCount).toBe(3);
  });

  it('keeps occurrence IDs when the title, the venue or a later UNTIL changes, and follows the edits', async () => {
    const series = await newSeries({
      start_date: '2027-05-03 10:00:00',
      end_date: '2027-05-03 11:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20270601T000000Z'],
    });
    const before = await listed(series.category, '2027-05-01', '2027-12-31');
    expect(before).toHaveLength(5);
    const title = unique('Renamed');
    const edit = await rest.post(`/events/${series.id}`, {
      json: { title, venue: { venue: unique('Hall') }, recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20270701T000000Z'] },
    });
    expect(edit.status, edit.text).toBe(200);
    const after = await listed(series.category, '2027-05-01', '2027-12-31');
    expect(after).toHaveLength(9);
    expect(after.slice(0, 5).map((event) => event.id)).toEqual(before.map((event) => event.id));
    expect(after.every((event) => event.title === title && event.venue.id === edit.body.venue.id)).toBe(true);
    const byVenue = await listed(series.category, '2027-05-01', '2027-12-31', { venue: edit.body.venue.id });
    expect(byVenue).toHaveLength(9);
  });

  it('updates one occurrence on its own: it keeps its series and is left alone by later series edits', async () => {
    const series = await newSeries({
      start_date: '2027-07-05 10:00:00',
      end_date: '2027-07-05 11:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
    });
    const [first, second] = await listed(series.category, '2027-07-01', '2027-07-31');
    const moved = await rest.post(`/events/${second.id}`, {
      json: { title: 'Moved class', start_date: '2027-07-06 14:00:00', end_date: '2027-07-06 15:00:00' },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({
      id: second.id,
      recurring_event_id: series.id,
      original_start_date: '2027-07-06 10:00:00',
      start_date: '2027-07-06 14:00:00',
    });
    await rest.post(`/events/${series.id}`, { json: { title: 'Series title' } });
    const events = await listed(series.category, '2027-07-01', '2027-07-31');
    expect(events.map((event) => [event.id, event.title])).toEqual([
      [first.id, 'Series title'],
      [second.id, 'Moved class'],
      [events[2].id, 'Series title'],
      [events[3].id, 'Series title'],
    ]);
    const refused = await rest.post(`/events/${first.id}`, { json: { recurrence: ['RRULE:FREQ=DAILY'] } });
    expect(refused.status).toBe(400);
  });

  it('keeps the occurrences a list made beyond the horizon, exceptions included, through a series edit', async () => {
    // Past RECURRENCE_HORIZON_DAYS (730 days from now): these rows exist because the list reached them.
    const series = await newSeries({
      start_date: '2031-07-07 10:00:00',
      end_date: '2031-07-07 11:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    });
    const [first, second, third] = await listed(series.category, '2031-07-01', '2031-07-31');
    const changed = await rest.post(`/events/${second.id}`, { json: { title: 'Guest teacher' } });
    expect(changed.status, changed.text).toBe(200);
    const edited = await rest.post(`/events/${series.id}`, { json: { title: 'Series title' } });
    expect(edited.status, edited.text).toBe(200);
    const events = await listed(series.category, '2031-07-01', '2031-07-31');
    expect(events.map((event) => [event.id, event.title])).toEqual([
      [first.id, 'Series title'],
      [second.id, 'Guest teacher'],
      [third.id, 'Series title'],
    ]);
  });

  it('deletes one occurrence as an EXDATE of its series', async () => {
    const series = await newSeries({
      start_date: '2027-08-02 10:00:00',
      end_date: '2027-08-02 11:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    });
    const events = await listed(series.category, '2027-08-01', '2027-08-31');
    const gone = await rest.delete(`/events/${events[1].id}`);
    expect(gone.status, gone.text).toBe(200);
    expect((await listed(series.category, '2027-08-01', '2027-08-31')).map((event) => event.id)).toEqual([
      events[0].id,
      events[2].id,
    ]);
    expect((await rest.get(`/events/${events[1].id}`)).status).toBe(404);
    expect((await rest.get(`/events/${series.id}`)).body.recurrence).toEqual([
      'RRULE:FREQ=DAILY;COUNT=3',
      'EXDATE;TZID=Europe/Berlin:20270803T100000',
    ]);
    // A series edit regenerates from the rule: the EXDATE keeps the deleted one away.
    await rest.post(`/events/${series.id}`, { json: { title: 'Still three minus one' } });
    expect(await listed(series.category, '2027-08-01', '2027-08-31')).toHaveLength(2);
  });

  it('deletes the whole series with its master (force), and trashes it with its occurrences', async () => {
    const series = await newSeries({
      start_date: '2027-08-09 10:00:00',
      end_date: '2027-08-09 11:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    });
    const events = await listed(series.category, '2027-08-01', '2027-08-31');
    expect((await rest.delete(`/events/${series.id}`)).status).toBe(200);
    expect(await listed(series.category, '2027-08-01', '2027-08-31')).toHaveLength(0);
    expect((await rest.delete(`/events/${series.id}`, { query: { force: true } })).status).toBe(200);
    expect((await rest.get(`/events/${events[0].id}`)).status).toBe(404);
  });

  it('splits the series at an occurrence with scope following', async () => {
    const series = await newSeries({
      start_date: '2027-09-06 10:00:00',
      end_date: '2027-09-06 11:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE;TZID=Europe/Berlin:20271004T100000'],
    });
    const before = await listed(series.category, '2027-09-01', '2027-12-31');
    expect(before).toHaveLength(5);
    const split = await rest.post(`/events/${before[2].id}`, { json: { scope: 'following', title: 'Advanced yoga' } });
    expect(split.status, split.text).toBe(200);
    const next = split.body;
    expect(next.id).not.toBe(series.id);
    expect(next.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=4', 'EXDATE;TZID=Europe/Berlin:20271004T100000']);
    expect(next.start_date).toBe('2027-09-20 10:00:00');
    const old = await rest.get(`/events/${series.id}`);
    expect(old.body.recurrence).toEqual(['RRULE:FREQ=WEEKLY;UNTIL=20270920T075959Z']);
    const after = await listed(series.category, '2027-09-01', '2027-12-31');
    expect(after.map((event) => [event.id, event.title, event.recurring_event_id])).toEqual([
      [before[0].id, series.title, series.id],
      [before[1].id, series.title, series.id],
      [before[2].id, 'Advanced yoga', next.id],
      [before[3].id, 'Advanced yoga', next.id],
      [before[4].id, 'Advanced yoga', next.id],
    ]);
  });
});

describe('REST: unbounded series', () => {
  it('lists a series without end in a window years ahead, with the right total', async () => {
    const series = await newSeries({
      start_date: '2027-01-04 10:00:00',
      end_date: '2027-01-04 11:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO'],
    });
    const response = await rest.get('/events', {
      query: { categories: series.category, start_date: '2035-06-01', end_date: '2035-06-30', per_page: 2 },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.total).toBe(4);
    expect(response.body.events.map((event: Json) => event.start_date)).toEqual([
      '2035-06-04 10:00:00',
      '2035-06-11 10:00:00',
    ]);
    // Concurrent lists reaching further do not materialise an occurrence twice.
    const far = { categories: series.category, start_date: '2037-01-01', end_date: '2037-12-31', per_page: 1 };
    const totals = await Promise.all([1, 2, 3].map(() => rest.get('/events', { query: far })));
    expect(totals.map((list) => list.body.total)).toEqual([52, 52, 52]);
    const again = await rest.get('/events', { query: { ...far, page: 2 } });
    expect(again.body.events[0].start_date).toBe('2037-01-12 10:00:00');
  });
});

describe('REST: a series with many dates', () => {
  // 600 RDATEs in six lines, one a day at a time that changes from day to day: some 9,800 bytes of `recurrence` that
  // PostgreSQL compresses to about 3,800 (sequential dates at one time of day compress to less than a third), over
  // what one of its index entries may hold (2,704 bytes): the column must stay out of the events' listing index.
  const pad = (n: number) => String(n).padStart(2, '0');
  const starts = Array.from({ length: 600 }, (_, i) => {
    const day = new Date(Date.UTC(2028, 0, 4 + i)).toISOString().slice(0, 10);
    return `${day} ${pad(8 + ((i * 7) % 13))}:${pad((i * 23) % 60)}:00`;
  });
  const value = (local: string) => local.replace(/[-:]/g, '').replace(' ', 'T');
  const rdates = Array.from(
    { length: 6 },
    (_, line) =>
      `RDATE;TZID=Europe/Berlin:${starts
        .slice(line * 100, line * 100 + 100)
        .map(value)
        .join(',')}`,
  );
  const recurrence = ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4', ...rdates];

  it('is created, read back and listed, and its occurrences are deleted one by one', async () => {
    expect(recurrence.join('\n').length).toBeGreaterThan(9_000);
    const series = await newSeries({ start_date: '2028-01-03 10:00:00', end_date: '2028-01-03 11:00:00', recurrence });
    expect(series.recurrence).toEqual(recurrence);
    expect((await rest.get(`/events/${series.id}`)).body.recurrence).toEqual(recurrence);

    const window = { categories: series.category, start_date: '2028-01-01', end_date: '2029-12-31', per_page: 5 };
    const first = await rest.get('/events', { query: window });
    expect(first.status, first.text).toBe(200);
    expect(first.body.total).toBe(604);
    expect(first.body.events.map((event: Json) => event.start_date)).toEqual([
      '2028-01-03 10:00:00',
      ...starts.slice(0, 4),
    ]);
    const last = await rest.get('/events', { query: { ...window, page: 121 } });
    expect(last.body.events.map((event: Json) => event.start_date)).toEqual(starts.slice(596));

    const gone = first.body.events.slice(1, 4);
    for (const event of gone) {
      const deleted = await rest.delete(`/events/${event.id}`);
      expect(deleted.status, deleted.text).toBe(200);
    }
    const master = (await rest.get(`/events/${series.id}`)).body;
    expect(master.recurrence).toEqual([
      ...recurrence,
      `EXDATE;TZID=Europe/Berlin:${starts.slice(0, 3).map(value).join(',')}`,
    ]);
    const after = await rest.get('/events', { query: window });
    expect(after.body.total).toBe(601);
    expect(after.body.events.map((event: Json) => event.start_date)).toEqual([
      '2028-01-03 10:00:00',
      ...starts.slice(3, 6),
      '2028-01-10 10:00:00',
    ]);
    expect(after.body.events[1].id).toBe(first.body.events[4].id);
  });
});

describe('REST: deleting occurrences one by one', () => {
  it('gathers the EXDATEs ten to a line, so the series stays editable, and refuses a deletion beyond the limits', async () => {
    const series = await newSeries({
      start_date: '2029-03-01 09:00:00',
      end_date: '2029-03-01 10:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=150'],
    });
    const window = { categories: series.category, start_date: '2029-03-01', end_date: '2029-12-31', per_page: 50 };
    const occurrences = (await rest.get('/events', { query: window })).body.events.filter(
      (event: Json) => event.recurring_event_id,
    );
    // The first (the series' own start) stays; the next twelve go.
    for (const event of occurrences.slice(1, 13)) expect((await rest.delete(`/events/${event.id}`)).status).toBe(200);
    const day = (n: number) => `202903${String(n).padStart(2, '0')}T090000`;
    const exdates = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => day(from + i)).join(',');
    expect((await rest.get(`/events/${series.id}`)).body.recurrence).toEqual([
      'RRULE:FREQ=DAILY;COUNT=150',
      `EXDATE;TZID=Europe/Berlin:${exdates(2, 11)}`,
      `EXDATE;TZID=Europe/Berlin:${exdates(12, 13)}`,
    ]);
    const edited = await rest.post(`/events/${series.id}`, { json: { title: 'Still a series' } });
    expect(edited.status, edited.text).toBe(200);

    // A series at the limit of EXDATE and RDATE values (1,000): one more exception is refused, nothing changed.
    const values = Array.from(
      { length: 1000 },
      (_, i) => `${new Date(Date.UTC(2030, 0, 2 + i)).toISOString().slice(0, 10).replace(/-/g, '')}T090000`,
    );
    const rdates = Array.from(
      { length: 100 },
      (_, line) => `RDATE;TZID=Europe/Berlin:${values.slice(line * 10, line * 10 + 10).join(',')}`,
    );
    const full = await newSeries({
      start_date: '2030-01-01 09:00:00',
      end_date: '2030-01-01 10:00:00',
      recurrence: rdates,
    });
    const [, second] = (
      await rest.get('/events', {
        query: { categories: full.category, start_date: '2030-01-01', end_date: '2030-01-03', per_page: 5 },
      })
    ).body.events;
    expect(second.start_date).toBe('2030-01-02 09:00:00');
    const refused = await rest.delete(`/events/${second.id}`);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.data.details.id.message).toMatch(
      /cannot be deleted on its own: its series would break a limit \(at most 100 lines\)/,
    );
    expect((await rest.get(`/events/${second.id}`)).status).toBe(200);
    expect((await rest.get(`/events/${full.id}`)).body.recurrence).toEqual(rdates);
  });
});

describe('REST: filters through the series', () => {
  it('finds occurrences by category, search and venue', async () => {
    const word = unique('Pilates').replace(/-/g, '');
    const series = await newSeries({
      title: `${word} class`,
      start_date: '2027-02-01 10:00:00',
      end_date: '2027-02-01 11:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
    });
    const bySearch = await rest.get('/events', {
      query: { search: word, start_date: '2027-01-01', end_date: '2027-12-31' },
    });
    expect(bySearch.body.total).toBe(5);
    expect((await listed(series.category, '2027-02-02', '2027-02-03')).map((event) => event.start_date)).toEqual([
      '2027-02-02 10:00:00',
      '2027-02-03 10:00:00',
    ]);
    const category = await rest.get(`/categories/${series.categories[0].id}`);
    expect(category.status).toBe(200);
    // The series master counts with its occurrences (docs/recurring-events.md, "Counts").
    expect(category.body.count).toBe(6);
  });
});

describe('REST: series as Events Calendar Pro clients list them', () => {
  it('lists the occurrences of one series by post_parent, in any window, with the filter in rest_url', async () => {
    const series = await newSeries({
      start_date: '2027-09-06 18:00:00',
      end_date: '2027-09-06 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    });
    const other = await newSeries({
      start_date: '2027-09-06 18:00:00',
      end_date: '2027-09-06 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
    });
    const window = { start_date: '2027-09-01', end_date: '2027-12-31' };
    const response = await rest.get('/events', { query: { post_parent: series.id, ...window } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.total).toBe(4);
    expect(response.body.events.map((event: Json) => [event.recurring_event_id, event.start_date])).toEqual([
      [series.id, '2027-09-06 18:00:00'],
      [series.id, '2027-09-13 18:00:00'],
      [series.id, '2027-09-20 18:00:00'],
      [series.id, '2027-09-27 18:00:00'],
    ]);
    expect(response.body.rest_url).toContain(`&post_parent=${series.id}`);
    const narrowed = await rest.get('/events', {
      query: { post_parent: other.id, start_date: '2027-09-10', end_date: '2027-12-31' },
    });
    expect(narrowed.body.events.map((event: Json) => event.start_date)).toEqual(['2027-09-13 18:00:00']);
    // An event that is neither a series nor a parent has no children; one that does not exist is a 400.
    const single = await rest.post('/events', {
      json: { title: unique('Single'), start_date: '2027-09-06 10:00:00', end_date: '2027-09-06 11:00:00' },
    });
    expect((await rest.get('/events', { query: { post_parent: single.body.id, ...window } })).body.total).toBe(0);
    const missing = await rest.get('/events', { query: { post_parent: 999_999_999, ...window } });
    expect(missing.status).toBe(400);
    expect(missing.body.data.details.post_parent.message).toMatch(/no event with ID 999999999/);
  });

  it('lists each series once as its master with expand_recurring=false, when any occurrence is in the window', async () => {
    const category = unique('Masters');
    const create = async (fields: Json) => {
      const response = await rest.post('/events', {
        json: { title: unique('Class'), timezone: 'Europe/Berlin', categories: [category], ...fields },
      });
      expect(response.status, response.text).toBe(201);
      return response.body.id as number;
    };
    const earlier = await create({
      start_date: '2027-01-05 09:00:00',
      end_date: '2027-01-05 10:00:00',
      recurrence: ['RRULE:FREQ=MONTHLY;COUNT=12'],
    });
    const endless = await create({
      start_date: '2027-02-01 09:00:00',
      end_date: '2027-02-01 10:00:00',
      recurrence: ['RRULE:FREQ=YEARLY'],
    });
    const inside = await create({
      start_date: '2027-08-02 09:00:00',
      end_date: '2027-08-02 10:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=2'],
    });
    const over = await create({
      start_date: '2027-01-10 09:00:00',
      end_date: '2027-01-10 10:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    });
    const single = await create({ start_date: '2027-08-03 12:00:00', end_date: '2027-08-03 13:00:00' });
    const august = { categories: category, start_date: '2027-08-01', end_date: '2027-08-31' };
    const masters = await rest.get('/events', { query: { ...august, expand_recurring: false } });
    expect(masters.status, masters.text).toBe(200);
    // By first start; the endless yearly series has no August date, the January daily one none either.
    expect(masters.body.events.map((event: Json) => event.id)).toEqual([earlier, inside, single]);
    expect(masters.body.events[0].recurrence).toEqual(['RRULE:FREQ=MONTHLY;COUNT=12']);
    expect(masters.body.total).toBe(3);
    expect(masters.body.rest_url).toContain('&expand_recurring=false');
    const february = { categories: category, start_date: '2028-02-01', end_date: '2028-02-29' };
    const later = await rest.get('/events', { query: { ...february, expand_recurring: false } });
    expect(later.body.events.map((event: Json) => event.id)).toEqual([endless]);
    // Far past the horizon the endless series is still there, without its occurrences being written to know it.
    const far = { categories: category, start_date: '2090-01-01', end_date: '2090-12-31', expand_recurring: 'false' };
    expect((await rest.get('/events', { query: far })).body.events.map((event: Json) => event.id)).toEqual([endless]);
    const expanded = await rest.get('/events', { query: august });
    expect(expanded.body.events.every((event: Json) => event.id !== earlier && event.id !== inside)).toBe(true);
    expect(expanded.body.total).toBe(4); // the monthly one's August date, the two daily ones, the single event
    const january = { categories: category, start_date: '2027-01-01', end_date: '2027-01-31', expand_recurring: false };
    expect((await rest.get('/events', { query: january })).body.events.map((event: Json) => event.id)).toEqual([
      earlier,
      over,
    ]);
    const refused = await rest.get('/events', { query: { ...august, expand_recurring: 'sometimes' } });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('rest_invalid_param');
  });
});

describe('REST: refused input', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['a malformed line', ['RRULE FREQ=DAILY'], /not an RFC 5545 line/],
    ['an unknown part', ['RRULE:FREQ=DAILY;FOO=1'], /FOO is not supported/],
    ['a bad BYDAY', ['RRULE:FREQ=WEEKLY;BYDAY=XX'], /BYDAY=XX is not valid/],
    ['an unsupported property', ['EXRULE:FREQ=DAILY'], /EXRULE is not supported/],
    ['FREQ=SECONDLY', ['RRULE:FREQ=SECONDLY'], /FREQ=SECONDLY is not supported/],
    ['a COUNT of 10 million', ['RRULE:FREQ=DAILY;COUNT=10000000'], /COUNT must be at most 10000/],
    ['COUNT with UNTIL', ['RRULE:FREQ=DAILY;COUNT=2;UNTIL=20270101'], /both COUNT and UNTIL/],
    ['two RRULEs', ['RRULE:FREQ=DAILY', 'RRULE:FREQ=WEEKLY'], /only one RRULE/],
    [
      'a rule matching no date',
      ['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31'],
      /matches no date in the 10,000 days searched/,
    ],
  ];
  for (const [name, recurrence, message] of cases) {
    it(`answers 400 for ${name}, quickly`, async () => {
      const started = Date.now();
      const response = await rest.post('/events', {
        json: { title: unique('Bad'), start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00', recurrence },
      });
      expect(response.status, response.text).toBe(400);
      expect(response.body.code).toBe('rest_invalid_param');
      expect(JSON.stringify(response.body)).toMatch(message);
      expect(Date.now() - started).toBeLessThan(5000);
    });
  }
});

describe('GraphQL', () => {
  const EVENT =
    'databaseId title recurrence recurringEventId originalStart originalStartLocal isException startsAtLocal series { databaseId }';

  it('creates a series and pages its occurrences in a window, with series and originalStart', async () => {
    const created = await server.gqlOk(
      `mutation ($input: EventInput!) { createEvent(input: $input) { databaseId recurrence
        occurrences(first: 2, startDate: "2030-03-01", endDate: "2030-03-31") { totalCount pageInfo { hasNextPage endCursor } nodes { ${EVENT} } } } }`,
      {
        input: {
          title: unique('Standup'),
          timezone: 'Europe/Berlin',
          startDate: '2027-01-04 09:00:00',
          endDate: '2027-01-04 09:15:00',
          recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO,WE'],
        },
      },
    );
    const { databaseId, occurrences } = created.createEvent;
    expect(created.createEvent.recurrence).toEqual(['RRULE:FREQ=WEEKLY;BYDAY=MO,WE']);
    expect(occurrences.totalCount).toBe(8);
    expect(occurrences.pageInfo.hasNextPage).toBe(true);
    expect(occurrences.nodes[0]).toMatchObject({
      recurrence: [],
      recurringEventId: databaseId,
      series: { databaseId },
      startsAtLocal: '2030-03-04 09:00:00',
      originalStartLocal: '2030-03-04 09:00:00',
      originalStart: '2030-03-04T08:00:00.000Z',
      isException: false,
    });
    const next = await server.gqlOk(
      `query ($id: ID!, $after: String) { event(id: $id) { occurrences(first: 10, after: $after, startDate: "2030-03-01", endDate: "2030-03-31") { nodes { startsAtLocal } } } }`,
      { id: String(databaseId), after: occurrences.pageInfo.endCursor },
    );
    expect(next.event.occurrences.nodes.map((node: Json) => node.startsAtLocal)).toEqual([
      '2030-03-11 09:00:00',
      '2030-03-13 09:00:00',
      '2030-03-18 09:00:00',
      '2030-03-20 09:00:00',
      '2030-03-25 09:00:00',
      '2030-03-27 09:00:00',
    ]);
  });

  it('updates with scope THIS, ALL and FOLLOWING', async () => {
    const created = await server.gqlOk(
      `mutation ($input: EventInput!) { createEvent(input: $input) { databaseId occurrences(first: 5) { nodes { databaseId } } } }`,
      {
        input: {
          title: 'Choir',
          timezone: 'UTC',
          startDate: '2027-02-01 19:00:00',
          endDate: '2027-02-01 21:00:00',
          recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
        },
      },
    );
    const ids = created.createEvent.occurrences.nodes.map((node: Json) => node.databaseId);
    const update = `mutation ($id: ID!, $input: EventInput!, $scope: EventUpdateScope) { updateEvent(id: $id, input: $input, scope: $scope) { ${EVENT} } }`;
    const one = await server.gqlOk(update, { id: String(ids[0]), input: { title: 'Choir (guest)' }, scope: 'THIS' });
    expect(one.updateEvent).toMatchObject({ databaseId: ids[0], isException: true, title: 'Choir (guest)' });
    const all = await server.gqlOk(update, { id: String(ids[1]), input: { title: 'Choir rehearsal' }, scope: 'ALL' });
    expect(all.updateEvent).toMatchObject({ databaseId: created.createEvent.databaseId, title: 'Choir rehearsal' });
    const following = await server.gqlOk(update, {
      id: String(ids[3]),
      input: { title: 'Choir concert' },
      scope: 'FOLLOWING',
    });
    expect(following.updateEvent.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=2']);
    const titles = await server.gqlOk(
      `query ($ids: [Int!]) { events(filter: { include: $ids }) { nodes { databaseId title } } }`,
      { ids },
    );
    expect(titles.events.nodes.map((node: Json) => node.title)).toEqual([
      'Choir (guest)',
      'Choir rehearsal',
      'Choir rehearsal',
      'Choir concert',
      'Choir concert',
    ]);
  });

  it('lists a venue’s series as its occurrences in Venue.events', async () => {
    const venue = await server.gqlOk(`mutation { createVenue(input: { name: "${unique('Studio')}" }) { databaseId } }`);
    const venueId = venue.createVenue.databaseId;
    const created = await server.gqlOk(`mutation ($input: EventInput!) { createEvent(input: $input) { databaseId } }`, {
      input: {
        title: unique('Drop-in'),
        timezone: 'UTC',
        startDate: '2027-03-01 18:00:00',
        endDate: '2027-03-01 19:00:00',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
        venues: [{ id: String(venueId) }],
      },
    });
    const listed = await server.gqlOk(
      `query ($id: ID!) { venue(id: $id) { events(first: 10) { totalCount nodes { recurringEventId } } } }`,
      { id: String(venueId) },
    );
    expect(listed.venue.events.totalCount).toBe(3);
    expect(
      listed.venue.events.nodes.every((node: Json) => node.recurringEventId === created.createEvent.databaseId),
    ).toBe(true);
  });

  it('answers a bad recurrence as a field error', async () => {
    const result = await server.gql(`mutation ($input: EventInput!) { createEvent(input: $input) { databaseId } }`, {
      input: {
        title: 'x',
        startDate: '2027-01-01 10:00:00',
        endDate: '2027-01-01 11:00:00',
        recurrence: ['RRULE:FREQ=MINUTELY'],
      },
    });
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { recurrence: expect.stringMatching(/FREQ=MINUTELY/) },
    });
  });
});
