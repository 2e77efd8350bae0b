// Relative dates follow PHP's strtotime (The Events Calendar hands REST dates to it): a table read with a fixed
// clock against PHP's documented rules, then the same forms through REST and GraphQL in an event's zone.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDateInput } from '../src/time/dates.js';
import { createEvent } from './support/factories.js';
import { restClient, type RestClient } from './support/rest.js';
import { startServer, type TestServer } from './support/server.js';

/** Monday 2026-11-23 10:30:00 in Europe/Berlin. */
const MONDAY = DateTime.fromISO('2026-11-23T10:30:00', { zone: 'Europe/Berlin' });

const read = (text: string, now = MONDAY, zone = 'Europe/Berlin') =>
  parseDateInput(text, zone, now)?.toFormat('yyyy-MM-dd HH:mm:ss') ?? null;

describe('PHP relative formats, with the clock at Monday 2026-11-23 10:30:00', () => {
  it.each([
    // Keywords: now keeps the time, the five "day" words set it.
    ['now', '2026-11-23 10:30:00'],
    ['today', '2026-11-23 00:00:00'],
    ['midnight', '2026-11-23 00:00:00'],
    ['noon', '2026-11-23 12:00:00'],
    ['tomorrow', '2026-11-24 00:00:00'],
    ['yesterday', '2026-11-22 00:00:00'],
    // Order matters: a day word after a time resets it (PHP's "tomorrow 11:00" vs "11:00 tomorrow").
    ['tomorrow 9am', '2026-11-24 09:00:00'],
    ['9am tomorrow', '2026-11-24 00:00:00'],
    ['tomorrow noon', '2026-11-24 12:00:00'],
    ['today 4:30 pm', '2026-11-23 16:30:00'],
    ['16:00', '2026-11-23 16:00:00'],
    ['16:00:05', '2026-11-23 16:00:05'],
    ['12am', '2026-11-23 00:00:00'],
    ['12pm', '2026-11-23 12:00:00'],
    // Weekday names: the day of that name, today included; next: the first after today; last: the last before it.
    ['monday', '2026-11-23 00:00:00'],
    ['this monday', '2026-11-23 00:00:00'],
    ['wednesday', '2026-11-25 00:00:00'],
    ['Sunday', '2026-11-29 00:00:00'],
    ['next wednesday', '2026-11-25 00:00:00'],
    ['next wednesday 4pm', '2026-11-25 16:00:00'],
    ['next monday', '2026-11-30 00:00:00'],
    ['next sat', '2026-11-28 00:00:00'],
    ['last monday', '2026-11-16 00:00:00'],
    ['last friday', '2026-11-20 00:00:00'],
    ['previous sunday', '2026-11-22 00:00:00'],
    ['last friday noon', '2026-11-20 12:00:00'],
    ['third friday', '2026-12-11 00:00:00'],
    // Units keep the time of day.
    ['+1 day', '2026-11-24 10:30:00'],
    ['+ 1 day', '2026-11-24 10:30:00'],
    ['1 day', '2026-11-24 10:30:00'],
    ['-1 week', '2026-11-16 10:30:00'],
    ['+1 week 2 days', '2026-12-02 10:30:00'],
    ['2 days ago', '2026-11-21 10:30:00'],
    ['+3 hours', '2026-11-23 13:30:00'],
    ['+90 minutes', '2026-11-23 12:00:00'],
    ['next week', '2026-11-30 10:30:00'],
    ['last year', '2025-11-23 10:30:00'],
    ['next month', '2026-12-23 10:30:00'],
    ['+1 fortnight', '2026-12-07 10:30:00'],
    ['tomorrow +2 hours', '2026-11-24 02:00:00'],
    ['+1 day 14:00', '2026-11-24 14:00:00'],
    ['next monday +1 day', '2026-12-01 00:00:00'],
    // first/last day of: the day of the month after the units, time kept.
    ['first day of next month', '2026-12-01 10:30:00'],
    ['last day of this month', '2026-11-30 10:30:00'],
    ['first day of next month midnight', '2026-12-01 00:00:00'],
  ])('%s → %s', (text, expected) => {
    expect(read(text)).toBe(expected);
  });

  it('counts from another weekday the same way', () => {
    const saturday = DateTime.fromISO('2026-11-28T08:00:00', { zone: 'Europe/Berlin' });
    expect(read('next monday', saturday)).toBe('2026-11-30 00:00:00');
    expect(read('saturday', saturday)).toBe('2026-11-28 00:00:00');
    expect(read('next saturday', saturday)).toBe('2026-12-05 00:00:00');
    expect(read('last saturday', saturday)).toBe('2026-11-21 00:00:00');
    expect(read('last sunday', saturday)).toBe('2026-11-22 00:00:00');
  });

  it('overflows months as PHP does: January 31 + 1 month is March 3', () => {
    const january = DateTime.fromISO('2027-01-31T09:00:00', { zone: 'UTC' });
    expect(read('+1 month', january, 'UTC')).toBe('2027-03-03 09:00:00');
    expect(read('last day of next month', january, 'UTC')).toBe('2027-03-31 09:00:00');
    expect(read('first day of +1 month', january, 'UTC')).toBe('2027-03-01 09:00:00');
  });

  it('reads the words in the zone it is given, moving a time the zone skips forward', () => {
    // 23:30 UTC on Monday is already Tuesday in Auckland.
    const instant = DateTime.fromISO('2026-11-23T23:30:00Z');
    expect(read('tomorrow 9am', instant, 'Pacific/Auckland')).toBe('2026-11-25 09:00:00');
    expect(read('tomorrow 9am', instant, 'America/New_York')).toBe('2026-11-24 09:00:00');
    const beforeSpringForward = DateTime.fromISO('2027-03-27T12:00:00', { zone: 'Europe/Berlin' });
    expect(read('tomorrow 2:30am', beforeSpringForward)).toBe('2027-03-28 03:30:00');
  });

  it.each([
    'noon 4pm',
    'next',
    'in 3 days',
    'tomorrow at',
    '+1 lightyear',
    'next blursday',
    '13pm',
    '25:00',
    '4:61',
    'constructor',
    'toString day',
  ])('refuses %j, as strtotime does', (text) => {
    expect(read(text)).toBeNull();
  });

  it('still reads absolute dates written out', () => {
    expect(read('March 5 2027 18:00')).toBe('2027-03-05 18:00:00');
    expect(read('Sat, 01 Mar 2025 18:00:00 GMT')).toBe('2025-03-01 19:00:00');
  });
});

describe('relative dates over HTTP, in the event zone', () => {
  let server: TestServer;
  let rest: RestClient;

  beforeAll(async () => {
    server = await startServer();
    rest = restClient(server);
  });
  afterAll(() => server?.close());

  /** The first Wednesday after today in the zone, computed here by counting days. */
  function nextWednesday(zone: string): string {
    let day = DateTime.now().setZone(zone).startOf('day');
    do day = day.plus({ days: 1 });
    while (day.weekday !== 3);
    return day.toFormat('yyyy-MM-dd');
  }

  it('creates an event for "next wednesday 4pm" on the first Wednesday after today (REST)', async () => {
    const zone = 'America/Los_Angeles';
    const before = nextWednesday(zone);
    const created = await rest.post('/events', {
      json: { title: 'Midweek', start_date: 'next wednesday 4pm', end_date: 'next wednesday 6pm', timezone: zone },
    });
    const after = nextWednesday(zone);
    expect(created.status, created.text).toBe(201);
    expect([`${before} 16:00:00`, `${after} 16:00:00`]).toContain(created.body.start_date);
    expect(created.body.end_date.slice(11)).toBe('18:00:00');
  });

  it('takes the same forms in GraphQL and refuses what strtotime refuses', async () => {
    const event = await createEvent(
      server,
      { startDate: 'next wednesday 4pm', endDate: 'next wednesday 5pm', timezone: 'Asia/Tokyo' },
      'startsAtLocal',
    );
    expect([`${nextWednesday('Asia/Tokyo')} 16:00:00`]).toContain(event.startsAtLocal);
    const refused = await rest.post('/events', {
      json: { title: 'Never', start_date: 'in 3 days', end_date: 'in 4 days' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('rest_invalid_param');
  });

  it('filters lists by a relative date', async () => {
    const listed = await rest.get('/events', { query: { start_date: 'last monday', end_date: 'next wednesday 4pm' } });
    expect(listed.status, listed.text).toBe(200);
    const refused = await rest.get('/events', { query: { start_date: 'noon 4pm' } });
    expect(refused.status).toBe(400);
  });
});
