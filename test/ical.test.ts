import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory, createEvent, createOrganizer, createTag, createVenue, unique } from './support/factories.js';
import { restClient, type CallOptions, type RestResponse } from './support/rest.js';
import { runSql } from './support/database.js';
import { ADMIN_AUTHORIZATION, startServer, type TestServer } from './support/server.js';

// The iCalendar feeds (RFC 5545): `/events.ics` and `/events/<id>.ics` over HTTP, every answer parsed with ical.js
// (an independent parser) and compared with what the events were created with and with the JSON routes.

const SITE = 'https://calendar.example';
const API = '/wp-json/calendar/events/v1';
/** The events below are in 2031; every feed asks for those years explicitly. */
const WINDOW = { start_date: '2030-01-01', end_date: '2033-12-31' };

let server: TestServer;
let rest: ReturnType<typeof restClient>;

/** What follows an event's ID in this database's UIDs (fixed per database, see the last describe). */
let uidSuffix: string;

beforeAll(async () => {
  server = await startServer({ SITE_URL: SITE });
  rest = restClient(server);
  const probe = await createEvent(server, {
    title: 'UID probe',
    startDate: '2020-01-01 10:00:00',
    endDate: '2020-01-01 11:00:00',
  });
  const uid = String(
    parseCalendar((await rest.get(`/events/${probe.id}.ics`)).text)
      .getFirstSubcomponent('vevent')!
      .getFirstPropertyValue('uid'),
  );
  uidSuffix = uid.slice(String(probe.id).length);
});
afterAll(() => server.close());

interface ParsedFeed {
  response: RestResponse;
  calendar: ICAL.Component;
  events: ICAL.Component[];
  /** The VEVENT with this UID. */
  byUid(uid: string): ICAL.Component;
}

/** Parses a VCALENDAR with ical.js; its VTIMEZONEs are what ical.js resolves the TZIDs with. */
function parseCalendar(text: string): ICAL.Component {
  const calendar = new ICAL.Component(ICAL.parse(text));
  expect(calendar.name).toBe('vcalendar');
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(new ICAL.Timezone(zone));
  return calendar;
}

async function feed(route: string, options: CallOptions = {}): Promise<ParsedFeed> {
  const response = await rest.get(route, options);
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
  const calendar = parseCalendar(response.text);
  const events = calendar.getAllSubcomponents('vevent');
  return {
    response,
    calendar,
    events,
    byUid(uid) {
      const found = events.find((event) => event.getFirstPropertyValue('uid') === uid);
      if (!found) throw new Error(`no VEVENT ${uid} in\n${response.text}`);
      return found;
    },
  };
}

const uidOf = (id: number) => `${id}${uidSuffix}`;
const uids = (parsed: ParsedFeed) => parsed.events.map((event) => String(event.getFirstPropertyValue('uid')));
const time = (event: ICAL.Component, name: string) => event.getFirstPropertyValue(name) as ICAL.Time;
const instant = (event: ICAL.Component, name: string) => time(event, name).toJSDate().toISOString();
const text = (event: ICAL.Component, name: string) => event.getFirstPropertyValue(name) as string | null;
/** Waits for the next second: modification dates are whole seconds. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1050 - (Date.now() % 1000)));

describe('GET /events.ics', () => {
  const LONG_TEXT =
    'Grüße aus Köln, München; und Zürich – 日本語のテキスト 🎉🎶, mit Kommas, Semikolons; "Anführungszeichen" und Backslashes \\ ' +
    'in einem langen Absatz, der weit über fünfundsiebzig Oktette hinausgeht und deshalb gefaltet werden muss.';

  let tag: { id: number; slug: string };
  let berlin: any;
  let allDay: any;
  let kolkata: any;
  let sydney: any;
  let utc: any;
  let mapped: any;
  let unmapped: any;
  let mailer: any;
  let categories: any[];

  beforeAll(async () => {
    tag = await createTag(server);
    mapped = await createVenue(server, {
      name: 'Kulturhaus',
      address: 'Unter den Linden 1',
      city: 'Berlin',
      zip: '10117',
      country: 'Germany',
      latitude: 52.517,
      longitude: 13.389,
    });
    unmapped = await createVenue(server, {
      name: 'Town Hall',
      address: '1 Main St',
      city: 'Springfield',
      stateProvince: 'NY',
      country: 'United States',
    });
    const silent = await createOrganizer(server, { name: 'No Mail Org' });
    mailer = await createOrganizer(server, { name: 'Zoë "Z" Müller; Events', email: 'zoe@example.org' });
    categories = [
      await createCategory(server, { name: 'Music, Live' }),
      await createCategory(server, { name: 'Nightlife' }),
    ];
    const common = { tags: [String(tag.id)] };
    berlin = await createEvent(server, {
      ...common,
      title: 'Night across the clock change',
      timezone: 'Europe/Berlin',
      // 2031's summer time starts on 30 March at 02:00 CET: the event starts in CET and ends in CEST.
      startDate: '2031-03-29 22:00:00',
      endDate: '2031-03-30 04:00:00',
      description:
        '<p>Welcome to <strong>Café Zoë</strong> &amp; friends!</p><p>Doors: 22:00; bring cash, cards work too.<br>Second line</p>',
      venues: [{ id: mapped.id }],
      organizers: [{ id: silent.id }, { id: mailer.id }],
      categories: categories.map((category) => String(category.id)),
    });
    allDay = await createEvent(server, {
      ...common,
      title: 'Three-day fair',
      timezone: 'America/New_York',
      allDay: true,
      startDate: '2031-05-01',
      endDate: '2031-05-03',
      venues: [{ id: unmapped.id }],
      description: `<p>${LONG_TEXT}</p>`,
    });
    kolkata = await createEvent(server, {
      ...common,
      title: 'Half-hour offset',
      timezone: 'Asia/Kolkata',
      startDate: '2031-06-10 10:00:00',
      endDate: '2031-06-10 11:30:00',
    });
    sydney = await createEvent(server, {
      ...common,
      title: 'Southern summer',
      timezone: 'Australia/Sydney',
      startDate: '2031-01-15 19:00:00',
      endDate: '2031-01-15 21:00:00',
    });
    utc = await createEvent(server, {
      ...common,
      title: `UTC ${LONG_TEXT}`,
      timezone: 'UTC',
      startDate: '2031-07-01 12:00:00',
      endDate: '2031-07-01 13:00:00',
    });
  });

  it('answers text/calendar that ical.js reads, one VEVENT per event, in start order', async () => {
    const parsed = await feed('/events.ics', { query: { ...WINDOW, tags: tag.slug } });
    expect(uids(parsed)).toEqual([sydney, berlin, allDay, kolkata, utc].map((event) => uidOf(event.id)));
    expect(parsed.calendar.getFirstPropertyValue('version')).toBe('2.0');
    expect(parsed.calendar.getFirstPropertyValue('prodid')).toContain('calendar.example');
  });

  it('writes zoned times with a VTIMEZONE for every zone used, and UTC as UTC', async () => {
    const parsed = await feed('/events.ics', { query: { ...WINDOW, tags: tag.slug } });
    const zones = parsed.calendar.getAllSubcomponents('vtimezone').map((zone) => zone.getFirstPropertyValue('tzid'));
    expect(zones.sort()).toEqual(['Asia/Kolkata', 'Australia/Sydney', 'Europe/Berlin']);
    const expected: [any, string, string, string | null][] = [
      [berlin, '2031-03-29T21:00:00.000Z', '2031-03-30T02:00:00.000Z', 'Europe/Berlin'],
      [kolkata, '2031-06-10T04:30:00.000Z', '2031-06-10T06:00:00.000Z', 'Asia/Kolkata'],
      [sydney, '2031-01-15T08:00:00.000Z', '2031-01-15T10:00:00.000Z', 'Australia/Sydney'],
      [utc, '2031-07-01T12:00:00.000Z', '2031-07-01T13:00:00.000Z', null],
    ];
    for (const [event, start, end, zone] of expected) {
      const vevent = parsed.byUid(uidOf(event.id));
      expect(instant(vevent, 'dtstart'), event.title).toBe(start);
      expect(instant(vevent, 'dtend'), event.title).toBe(end);
      expect(vevent.getFirstProperty('dtstart')!.getParameter('tzid') ?? null, event.title).toBe(zone);
      if (zone === null) expect(time(vevent, 'dtstart').zone).toBe(ICAL.Timezone.utcTimezone);
    }
    // The same instants as the JSON event.
    const json = (await rest.get(`/events/${berlin.id}`)).body;
    expect(
      instant(parsed.byUid(uidOf(berlin.id)), 'dtstart')
        .replace('T', ' ')
        .slice(0, 19),
    ).toBe(json.utc_start_date);
  });

  it('writes an all-day event as DATE values with the day after its last day as the end', async () => {
    const vevent = (await feed('/events.ics', { query: { ...WINDOW, tags: tag.slug } })).byUid(uidOf(allDay.id));
    expect(time(vevent, 'dtstart').isDate).toBe(true);
    expect(time(vevent, 'dtstart').toString()).toBe('2031-05-01');
    expect(time(vevent, 'dtend').isDate).toBe(true);
    expect(time(vevent, 'dtend').toString()).toBe('2031-05-04');
  });

  it('writes LOCATION from the venue, GEO when it has coordinates, ORGANIZER, CATEGORIES, URL and a plain-text DESCRIPTION', async () => {
    const parsed = await feed('/events.ics', { query: { ...WINDOW, tags: tag.slug } });
    const night = parsed.byUid(uidOf(berlin.id));
    expect(text(night, 'summary')).toBe('Night across the clock change');
    expect(text(night, 'location')).toBe('Kulturhaus, Unter den Linden 1, Berlin, 10117, Germany');
    expect(night.getFirstPropertyValue('geo')).toEqual([52.517, 13.389]);
    const organizer = night.getFirstProperty('organizer')!;
    expect(organizer.getFirstValue()).toBe('mailto:zoe@example.org');
    expect(organizer.getParameter('cn')).toBe('Zoë "Z" Müller; Events');
    expect(night.getFirstProperty('categories')!.getValues()).toEqual(['Music, Live', 'Nightlife']);
    expect(text(night, 'url')).toBe(`${SITE}/event/${berlin.slug}/`);
    expect(text(night, 'description')).toBe(
      'Welcome to Café Zoë & friends!\n\nDoors: 22:00; bring cash, cards work too.\nSecond line',
    );

    const fair = parsed.byUid(uidOf(allDay.id));
    expect(text(fair, 'location')).toBe('Town Hall, 1 Main St, Springfield, NY, United States');
    expect(fair.getFirstPropertyValue('geo')).toBeNull();
    expect(fair.getFirstProperty('organizer')).toBeNull();
    expect(fair.getFirstProperty('categories')).toBeNull();
  });

  it('folds long lines at 75 octets and escapes commas, semicolons, backslashes and line breaks', async () => {
    const parsed = await feed('/events.ics', { query: { ...WINDOW, tags: tag.slug } });
    const lines = parsed.response.text.split('\r\n');
    expect(lines.every((line) => Buffer.byteLength(line, 'utf8') <= 75)).toBe(true);
    expect(lines.filter((line) => line.startsWith(' ')).length).toBeGreaterThan(4);
    expect(parsed.response.text).toContain('Köln\\, München\\; und');
    expect(text(parsed.byUid(uidOf(allDay.id)), 'description')).toBe(LONG_TEXT);
    expect(text(parsed.byUid(uidOf(utc.id)), 'summary')).toBe(`UTC ${LONG_TEXT}`);
  });
});

describe('GET /events/<id>.ics', () => {
  it('answers the one event, the same VEVENT as in the list feed', async () => {
    const tag = await createTag(server);
    const event = await createEvent(server, {
      title: 'Solo',
      tags: [String(tag.id)],
      timezone: 'Europe/Paris',
      startDate: '2031-09-01 18:00:00',
      endDate: '2031-09-01 20:00:00',
    });
    const single = await feed(`/events/${event.id}.ics`);
    expect(uids(single)).toEqual([uidOf(event.id)]);
    expect(single.calendar.getAllSubcomponents('vtimezone').map((zone) => zone.getFirstPropertyValue('tzid'))).toEqual([
      'Europe/Paris',
    ]);
    const list = await feed('/events.ics', { query: { ...WINDOW, tags: tag.slug } });
    expect(single.byUid(uidOf(event.id)).toString()).toBe(list.byUid(uidOf(event.id)).toString());
  });

  it('answers errors in the JSON shape of the event route: 404, 403 for drafts and protected events', async () => {
    const draft = await createEvent(server, { status: 'DRAFT' });
    const locked = await createEvent(server, { password: 'open-sesame', description: '<p>The secret plan</p>' });
    const cases: [string, CallOptions, number, string][] = [
      ['/events/99999999.ics', {}, 404, 'rest-event-not-found'],
      [`/events/${draft.id}.ics`, {}, 403, 'event-not-accessible'],
      [`/events/${locked.id}.ics`, {}, 403, 'event-password-protected'],
    ];
    for (const [route, options, status, code] of cases) {
      const ics = await rest.get(route, options);
      const json = await rest.get(route.replace('.ics', ''), options);
      expect(ics.status, route).toBe(status);
      expect(ics.headers.get('content-type'), route).toContain('application/json');
      expect(ics.body, route).toEqual(json.body);
      expect(ics.body.code, route).toBe(code);
    }
    const unlocked = await feed(`/events/${locked.id}.ics`, { query: { password: 'open-sesame' } });
    expect(text(unlocked.byUid(uidOf(locked.id)), 'description')).toBe('The secret plan');
    expect(uids(await feed(`/events/${draft.id}.ics`, { headers: { authorization: ADMIN_AUTHORIZATION } }))).toEqual([
      uidOf(draft.id),
    ]);
  });
});

describe('what a feed carries', () => {
  it('carries every matching event, not one page of them', async () => {
    const tag = await createTag(server);
    for (let day = 1; day <= 12; day++) {
      await createEvent(server, {
        tags: [String(tag.id)],
        startDate: `2031-10-${String(day).padStart(2, '0')} 10:00:00`,
        endDate: `2031-10-${String(day).padStart(2, '0')} 11:00:00`,
      });
    }
    const json = await rest.get('/events', { query: { ...WINDOW, tags: tag.slug } });
    expect(json.body.events).toHaveLength(10);
    const parsed = await feed('/events.ics', { query: { ...WINDOW, tags: tag.slug } });
    expect(parsed.events).toHaveLength(12);
    expect(parsed.response.headers.get('x-tec-total')).toBe('12');
  });

  it.each([
    ['venue', (ids: Record<string, number | string>) => ({ venue: ids.venue })],
    ['tags', (ids: Record<string, number | string>) => ({ tags: ids.tag })],
    ['search and featured', (ids: Record<string, number | string>) => ({ search: ids.word, featured: 'true' })],
  ])('is restricted by %s as the JSON list is', async (_label, query) => {
    const word = unique('word');
    const [venue, other, tag] = [await createVenue(server), await createVenue(server), await createTag(server)];
    const events = [
      await createEvent(server, {
        title: `${word} a`,
        venues: [{ id: venue.id }],
        tags: [String(tag.id)],
        featured: true,
        startDate: '2031-11-01 10:00:00',
        endDate: '2031-11-01 11:00:00',
      }),
      await createEvent(server, {
        title: `${word} b`,
        venues: [{ id: other.id }],
        tags: [String(tag.id)],
        startDate: '2031-11-02 10:00:00',
        endDate: '2031-11-02 11:00:00',
      }),
      await createEvent(server, {
        title: `${word} c`,
        venues: [{ id: venue.id }],
        featured: true,
        startDate: '2031-11-03 10:00:00',
        endDate: '2031-11-03 11:00:00',
      }),
    ];
    const filter = { ...WINDOW, ...query({ venue: venue.id, tag: tag.slug, word }) };
    const json = await rest.get('/events', { query: filter });
    const parsed = await feed('/events.ics', { query: filter });
    const listed = json.body.events.map((event: any) => uidOf(event.id));
    expect(listed.length).toBe(2);
    expect(listed.every((uid: string) => events.some((event) => uidOf(event.id) === uid))).toBe(true);
    expect(uids(parsed)).toEqual(listed);
  });

  it('leaves drafts out and withholds password-protected content from anonymous readers', async () => {
    const [tag, venue, category, organizer] = [
      await createTag(server),
      await createVenue(server, { address: 'Hidden street 9', latitude: 10, longitude: 20 }),
      await createCategory(server, { name: unique('Secret category') }),
      await createOrganizer(server, { email: 'hidden@example.org' }),
    ];
    const common = { tags: [String(tag.id)], startDate: '2031-12-01 10:00:00', endDate: '2031-12-01 11:00:00' };
    const draft = await createEvent(server, { ...common, title: 'Draft plan', status: 'DRAFT' });
    const locked = await createEvent(server, {
      ...common,
      title: 'Protected plan',
      password: 'open-sesame',
      description: '<p>The secret plan</p>',
      venues: [{ id: venue.id }],
      organizers: [{ id: organizer.id }],
      categories: [String(category.id)],
    });
    const anonymous = await feed('/events.ics', { query: { ...WINDOW, tags: tag.slug } });
    expect(uids(anonymous)).toEqual([uidOf(locked.id)]);
    const withheld = anonymous.byUid(uidOf(locked.id));
    expect(text(withheld, 'summary')).toBe('Protected plan');
    expect(instant(withheld, 'dtstart')).toBe('2031-12-01T10:00:00.000Z');
    for (const name of ['description', 'location', 'geo', 'organizer', 'categories'])
      expect(withheld.getFirstProperty(name), name).toBeNull();
    for (const secret of ['secret plan', 'Hidden street', 'hidden@example.org', category.slug])
      expect(anonymous.response.text.toLowerCase()).not.toContain(secret.toLowerCase());

    const unlocked = (
      await feed('/events.ics', { query: { ...WINDOW, tags: tag.slug, password: 'open-sesame' } })
    ).byUid(uidOf(locked.id));
    expect(text(unlocked, 'description')).toBe('The secret plan');
    expect(text(unlocked, 'location')).toContain('Hidden street 9');

    const admin = await feed('/events.ics', {
      query: { ...WINDOW, tags: tag.slug },
      headers: { authorization: ADMIN_AUTHORIZATION },
    });
    expect(uids(admin).sort()).toEqual([uidOf(draft.id), uidOf(locked.id)].sort());
    const refused = await rest.get('/events.ics', { query: { ...WINDOW, status: 'draft' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual((await rest.get('/events', { query: { ...WINDOW, status: 'draft' } })).body);
  });

  it('answers a malformed parameter with the JSON 400 of the list', async () => {
    const ics = await rest.get('/events.ics', { query: { start_date: 'not a date' } });
    expect(ics.status).toBe(400);
    expect(ics.body.code).toBe('rest_invalid_param');
    expect(ics.body).toEqual((await rest.get('/events', { query: { start_date: 'not a date' } })).body);
  });
});

describe('changes and caching', () => {
  const feedOf = (id: number) => `/events/${id}.ics`;

  it('keeps the UID across requests; SEQUENCE, LAST-MODIFIED, DTSTAMP and the ETag change after an update', async () => {
    const event = await createEvent(server, {
      title: 'Before',
      startDate: '2031-08-01 10:00:00',
      endDate: '2031-08-01 11:00:00',
    });
    const first = await feed(feedOf(event.id));
    const again = await feed(feedOf(event.id));
    expect(again.response.text).toBe(first.response.text);
    expect(again.response.headers.get('etag')).toBe(first.response.headers.get('etag'));
    const before = first.byUid(uidOf(event.id));
    await nextSecond();
    expect((await rest.post(`/events/${event.id}`, { json: { title: 'After' } })).status).toBe(200);
    const updated = await feed(feedOf(event.id));
    const after = updated.byUid(uidOf(event.id));
    expect(text(after, 'summary')).toBe('After');
    expect(Number(after.getFirstPropertyValue('sequence'))).toBeGreaterThan(
      Number(before.getFirstPropertyValue('sequence')),
    );
    expect(instant(after, 'last-modified') > instant(before, 'last-modified')).toBe(true);
    expect(instant(after, 'dtstamp')).toBe(instant(after, 'last-modified'));
    const json = (await rest.get(`/events/${event.id}`)).body;
    expect(instant(after, 'last-modified').replace('T', ' ').slice(0, 19)).toBe(json.modified_utc);
    expect(updated.response.headers.get('etag')).not.toBe(first.response.headers.get('etag'));
    expect(new Date(updated.response.headers.get('last-modified')!).toISOString()).toBe(
      instant(after, 'last-modified'),
    );
  });

  it('changes the ETag when a linked venue, organizer or category changes', async () => {
    const venue = await createVenue(server, { address: 'Old road 1' });
    const organizer = await createOrganizer(server, { email: 'old@example.org' });
    const category = await createCategory(server);
    const event = await createEvent(server, {
      venues: [{ id: venue.id }],
      organizers: [{ id: organizer.id }],
      categories: [String(category.id)],
    });
    const edits: [string, () => Promise<RestResponse>, (vevent: ICAL.Component) => unknown, unknown][] = [
      [
        'venue',
        () => rest.post(`/venues/${venue.id}`, { json: { address: 'New road 2' } }),
        (v) => text(v, 'location')?.includes('New road 2'),
        true,
      ],
      [
        'organizer',
        () => rest.post(`/organizers/${organizer.id}`, { json: { email: 'new@example.org' } }),
        (v) => v.getFirstPropertyValue('organizer'),
        'mailto:new@example.org',
      ],
      [
        'category',
        () => rest.post(`/categories/${category.id}`, { json: { name: 'Renamed category' } }),
        (v) => v.getFirstProperty('categories')!.getValues(),
        ['Renamed category'],
      ],
    ];
    let previous = await feed(feedOf(event.id));
    for (const [what, edit, read, expected] of edits) {
      await nextSecond();
      expect((await edit()).status, what).toBe(200);
      const current = await feed(feedOf(event.id));
      expect(read(current.byUid(uidOf(event.id))), what).toEqual(expected);
      expect(current.response.headers.get('etag'), what).not.toBe(previous.response.headers.get('etag'));
      previous = current;
    }
  });

  it('answers 304 to If-None-Match and If-Modified-Since while nothing changed, 200 otherwise', async () => {
    const tag = await createTag(server);
    const event = await createEvent(server, {
      tags: [String(tag.id)],
      startDate: '2031-08-02 10:00:00',
      endDate: '2031-08-02 11:00:00',
    });
    for (const [route, query] of [
      ['/events.ics', { ...WINDOW, tags: tag.slug }],
      [feedOf(event.id), {}],
    ] as const) {
      const fresh = await rest.get(route, { query });
      const etag = fresh.headers.get('etag')!;
      const lastModified = fresh.headers.get('last-modified')!;
      expect(etag, route).toMatch(/^"[^"]+"$/);
      expect(new Date(lastModified).toUTCString(), route).toBe(lastModified);
      const conditional = async (headers: Record<string, string>) => rest.get(route, { query, headers });
      const current: Record<string, string>[] = [
        { 'if-none-match': etag },
        { 'if-none-match': `"other", W/${etag}` },
        { 'if-none-match': '*' },
        { 'if-modified-since': lastModified },
      ];
      for (const headers of current) {
        const cached = await conditional(headers);
        expect(cached.status, `${route} ${JSON.stringify(headers)}`).toBe(304);
        expect(cached.text).toBe('');
        expect(cached.headers.get('etag')).toBe(etag);
      }
      const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
      const outdated: Record<string, string>[] = [
        { 'if-none-match': '"other"' },
        { 'if-modified-since': earlier },
        { 'if-none-match': '"other"', 'if-modified-since': lastModified },
      ];
      for (const headers of outdated) {
        expect((await conditional(headers)).status, `${route} ${JSON.stringify(headers)}`).toBe(200);
      }
      const head = await rest.head(route, { query });
      expect([head.status, head.text, head.headers.get('etag')]).toEqual([200, '', etag]);
    }
    await nextSecond();
    const stale = await rest.get(feedOf(event.id));
    await rest.post(`/events/${event.id}`, { json: { title: 'Changed' } });
    const changed = await rest.get(feedOf(event.id), { headers: { 'if-none-match': stale.headers.get('etag')! } });
    expect(changed.status).toBe(200);
    expect(parseCalendar(changed.text).getFirstSubcomponent('vevent')!.getFirstPropertyValue('summary')).toBe(
      'Changed',
    );
  });

  it('gives different filters different ETags, even for the same events', async () => {
    const [venue, tag] = [await createVenue(server), await createTag(server)];
    await createEvent(server, {
      venues: [{ id: venue.id }],
      tags: [String(tag.id)],
      startDate: '2031-08-03 10:00:00',
      endDate: '2031-08-03 11:00:00',
    });
    const [byVenue, byTag] = [
      await feed('/events.ics', { query: { ...WINDOW, venue: venue.id } }),
      await feed('/events.ics', { query: { ...WINDOW, tags: tag.slug } }),
    ];
    expect(byVenue.response.text).toBe(byTag.response.text);
    expect(byVenue.response.headers.get('etag')).not.toBe(byTag.response.headers.get('etag'));
  });
});

describe('entry forms and GraphQL', () => {
  it('answers under the tribe/events/v1 alias, a language segment and ?rest_route= like the canonical route', async () => {
    const event = await createEvent(server, { startDate: '2031-08-04 10:00:00', endDate: '2031-08-04 11:00:00' });
    const canonical = await rest.get(`/events/${event.id}.ics`);
    for (const base of ['/wp-json/tribe/events/v1', `/de${API}`, `/?rest_route=/calendar/events/v1`]) {
      const response = await rest.get(`/events/${event.id}.ics`, { base });
      expect(response.status, base).toBe(200);
      expect(response.headers.get('content-type'), base).toBe('text/calendar; charset=utf-8');
      expect(response.text, base).toBe(canonical.text);
    }
  });

  it('answers the same calendars from the GraphQL ical fields', async () => {
    const tag = await createTag(server);
    const venue = await createVenue(server, { latitude: 1.5, longitude: 2.5 });
    const ids = [
      (
        await createEvent(server, {
          tags: [String(tag.id)],
          venues: [{ id: venue.id }],
          timezone: 'Europe/Berlin',
          startDate: '2031-08-05 10:00:00',
          endDate: '2031-08-05 11:00:00',
        })
      ).id,
      (
        await createEvent(server, {
          tags: [String(tag.id)],
          allDay: true,
          startDate: '2031-08-06',
          endDate: '2031-08-07',
        })
      ).id,
    ];
    const data = await server.gqlOk(
      `query ($filter: EventsFilter, $id: ID!) {
        events(filter: $filter) { ical { text lastModified } }
        event(id: $id) { ical { text lastModified } }
      }`,
      { filter: { tags: [tag.slug], startDate: WINDOW.start_date, endDate: WINDOW.end_date }, id: ids[0] },
    );
    const list = await rest.get('/events.ics', { query: { ...WINDOW, tags: tag.slug } });
    expect(data.events.ical.text).toBe(list.text);
    expect(new Date(data.events.ical.lastModified).toUTCString()).toBe(list.headers.get('last-modified'));
    expect(uids({ events: parseCalendar(data.events.ical.text).getAllSubcomponents('vevent') } as ParsedFeed)).toEqual(
      ids.map(uidOf),
    );
    expect(data.event.ical.text).toBe((await rest.get(`/events/${ids[0]}.ics`)).text);
  });
});

describe('subscriptions that outlive changes', () => {
  it('ends the file, like every line, with CRLF and has no bare line feed', async () => {
    await createEvent(server, { title: 'Line ends', startDate: '2031-09-01 10:00:00', endDate: '2031-09-01 11:00:00' });
    for (const route of ['/events.ics', `/events/${(await createEvent(server)).id}.ics`]) {
      const response = await rest.get(route, { query: route === '/events.ics' ? WINDOW : {} });
      expect(response.text.endsWith('END:VCALENDAR\r\n'), route).toBe(true);
      expect(/[^\r]\n/.test(response.text), route).toBe(false);
    }
  });

  it('answers a filter naming an unknown category or tag with fewer events, not a 400', async () => {
    const tag = await createTag(server);
    const tagged = await createEvent(server, {
      tags: [String(tag.id)],
      startDate: '2031-09-02 10:00:00',
      endDate: '2031-09-02 11:00:00',
    });
    const unknownOnly = await feed('/events.ics', { query: { ...WINDOW, categories: 'no-such-category-anywhere' } });
    expect(unknownOnly.events).toHaveLength(0);
    expect(unknownOnly.response.headers.get('x-tec-total')).toBe('0');
    const unknownTag = await feed('/events.ics', { query: { ...WINDOW, tags: '987654321' } });
    expect(unknownTag.events).toHaveLength(0);
    // Any of them: the known tag still brings its event.
    const mixed = await feed('/events.ics', { query: { ...WINDOW, tags: `${tag.slug},gone-tag` } });
    expect(uids(mixed)).toEqual([uidOf(tagged.id)]);
    // The JSON list still tells a client that the term does not exist.
    const json = await rest.get('/events', { query: { ...WINDOW, categories: 'no-such-category-anywhere' } });
    expect(json.status).toBe(400);
    expect(json.body.code).toBe('rest_invalid_param');
    // Other malformed parameters are still refused in the feed.
    expect((await rest.get('/events.ics', { query: { ...WINDOW, venue: 'abc' } })).status).toBe(400);
  });

  it('keeps UIDs when SITE_URL changes: a second server on the same database with another URL', async () => {
    const event = await createEvent(server, { startDate: '2031-09-03 10:00:00', endDate: '2031-09-03 11:00:00' });
    const moved = await startServer({ SITE_URL: 'https://events.moved.example' }, { databaseOf: server });
    try {
      const before = await rest.get(`/events/${event.id}.ics`);
      const after = await fetch(`${moved.url}${API}/events/${event.id}.ics`);
      const afterText = await after.text();
      const uidIn = (text: string) => parseCalendar(text).getFirstSubcomponent('vevent')!.getFirstPropertyValue('uid');
      expect(uidIn(afterText)).toBe(uidIn(before.text));
      expect(uidIn(afterText)).toBe(uidOf(event.id));
      expect(uidSuffix).not.toContain('calendar.example');
      // The page link follows the new URL; only the identity stays.
      expect(afterText).toContain('events.moved.example');
    } finally {
      await moved.close();
    }
  });

  it('keeps the UIDs of a database upgraded from UIDs made of the site URL: <id>@<site host>', async () => {
    const old = await startServer({ SITE_URL: 'https://old.example' });
    try {
      const event = await createEvent(old, { startDate: '2031-09-05 10:00:00', endDate: '2031-09-05 11:00:00' });
      // As a database of the version before has it: events, and no stored suffix yet.
      await runSql(old.databaseUrl, `DELETE FROM "Setting" WHERE name = 'ical_uid_suffix'`);
      const upgraded = await startServer({ SITE_URL: 'https://old.example' }, { databaseOf: old });
      try {
        const text = await (await fetch(`${upgraded.url}${API}/events/${event.id}.ics`)).text();
        expect(parseCalendar(text).getFirstSubcomponent('vevent')!.getFirstPropertyValue('uid')).toBe(
          `${event.id}@old.example`,
        );
      } finally {
        await upgraded.close();
      }
    } finally {
      await old.close();
    }
  });

  it('gives a new database UIDs of its own, not of its site URL, which stay once events exist', async () => {
    const fresh = await startServer({ SITE_URL: 'https://fresh.example' });
    try {
      const freshRest = restClient(fresh);
      const empty = await freshRest.get('/events.ics', { query: WINDOW });
      expect(empty.status).toBe(200);
      const event = await createEvent(fresh, { startDate: '2031-09-04 10:00:00', endDate: '2031-09-04 11:00:00' });
      const uid = String(
        parseCalendar((await freshRest.get(`/events/${event.id}.ics`)).text)
          .getFirstSubcomponent('vevent')!
          .getFirstPropertyValue('uid'),
      );
      expect(uid).toMatch(new RegExp(`^${event.id}@[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`));
      expect(uid).not.toContain('fresh.example');
      const again = await startServer({ SITE_URL: 'https://other.example' }, { databaseOf: fresh });
      try {
        const text = await (await fetch(`${again.url}${API}/events/${event.id}.ics`)).text();
        expect(parseCalendar(text).getFirstSubcomponent('vevent')!.getFirstPropertyValue('uid')).toBe(uid);
      } finally {
        await again.close();
      }
    } finally {
      await fresh.close();
    }
  });
});
