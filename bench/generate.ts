/**
 * Benchmark data: writes N events with venues, organizers, categories, tags and images straight into a migrated
 * SQLite database (better-sqlite3 prepared statements, one transaction). Not the seed: the seed goes through GraphQL
 * and takes seconds per few hundred events; this writes 100,000 events in seconds.
 *
 * The columns are exactly those of prisma/schema.prisma, in the formats Prisma writes them (instants as
 * `2027-03-20T00:00:00.000+00:00`, booleans as 0/1, wall clocks as `YYYY-MM-DD HH:MM:SS`), with the derived columns
 * (currency symbol and position, UTC instants, publication dates in the site time zone) computed the way the service
 * computes them. Dates spread over the past month and the next two years, relative to today.
 *
 *   npx tsx bench/generate.ts <file.db> <events>
 */
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { DateTime, IANAZone } from 'luxon';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/db/migrate.js';
import { randomSequence } from '../src/random.js';
import { guessCurrency, recurrenceColumns } from '../src/graphql/events/columns.js';

export interface GenerateOptions {
  /** Seed of the pseudo-random sequence (the data is the same for the same seed and day). */
  randomSeed?: number;
  /** "Today"; defaults to now. Dates are relative to it. */
  now?: DateTime;
  /** Site time zone (publication wall clocks); the benchmark runs the server with the default, UTC. */
  siteTimezone?: string;
  /**
   * Recurring series added after the events, with this many occurrences in all, every one of them in the next two
   * years (the `series` size of bench/run.ts). Written as the service writes them (src/graphql/events/series.ts):
   * a master with its `recurrence`, an occurrence row per start with the master's fields and links.
   */
  seriesOccurrences?: number;
}

/** Each generated series: three classes a day from tomorrow (08:00, 12:00, 18:00 local), COUNT of them. */
const SERIES_HOURS = [8, 12, 18];
const SERIES_COUNT_EACH = 2000;

/** What the harness needs to know about the data set it drives. */
export interface GeneratedData {
  path: string;
  events: number;
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
  media: number;
  /** Events that are published, listed and not password-protected: what single-event scenarios read. */
  sampleEventIds: number[];
  sampleEventSlugs: string[];
  /** The filtered-list scenario: a category slug and a search word that match a share of the events. */
  filterCategory: string;
  filterSearch: string;
  seconds: number;
}

// The seed's deterministic random sequence (mulberry32), so two runs on the same day see the same data.
type Random = ReturnType<typeof randomSequence>;

// ---------------------------------------------------------------------------------------------------------------
// The world

interface Currency {
  symbol: string;
  code: string;
  postfix?: boolean;
  scale?: number;
}
const EUR: Currency = { symbol: '€', code: 'EUR', postfix: true };
const USD: Currency = { symbol: '$', code: 'USD' };
const CAD: Currency = { symbol: '$', code: 'CAD' };
const GBP: Currency = { symbol: '£', code: 'GBP' };
const JPY: Currency = { symbol: '¥', code: 'JPY', scale: 150 };
const AUD: Currency = { symbol: '$', code: 'AUD' };
const BRL: Currency = { symbol: 'R$', code: 'BRL', scale: 5 };

interface City {
  city: string;
  country: string;
  timezone: string;
  currency: Currency;
  latitude: number;
  longitude: number;
  state?: string;
  province?: string;
  phone: string;
  streets: string[];
}

const CITIES: City[] = [
  {
    city: 'Berlin',
    country: 'Germany',
    timezone: 'Europe/Berlin',
    currency: EUR,
    latitude: 52.52,
    longitude: 13.405,
    phone: '+49 30',
    streets: ['Schönhauser Allee', 'Torstraße', 'Oranienstraße', 'Karl-Marx-Allee'],
  },
  {
    city: 'Munich',
    country: 'Germany',
    timezone: 'Europe/Berlin',
    currency: EUR,
    latitude: 48.137,
    longitude: 11.575,
    phone: '+49 89',
    streets: ['Zellstraße', 'Leopoldstraße', 'Sendlinger Straße'],
  },
  {
    city: 'Amsterdam',
    country: 'Netherlands',
    timezone: 'Europe/Amsterdam',
    currency: EUR,
    latitude: 52.367,
    longitude: 4.904,
    phone: '+31 20',
    streets: ['Weteringschans', 'Prinsengracht', 'Damrak'],
  },
  {
    city: 'Paris',
    country: 'France',
    timezone: 'Europe/Paris',
    currency: EUR,
    latitude: 48.857,
    longitude: 2.352,
    phone: '+33 1',
    streets: ['Rue de Rivoli', 'Boulevard Voltaire', 'Rue Oberkampf'],
  },
  {
    city: 'London',
    country: 'United Kingdom',
    timezone: 'Europe/London',
    currency: GBP,
    latitude: 51.507,
    longitude: -0.128,
    phone: '+44 20',
    streets: ['Silk Street', 'Parkway', 'Brick Lane', 'Old Kent Road'],
  },
  {
    city: 'New York',
    country: 'United States',
    state: 'NY',
    timezone: 'America/New_York',
    currency: USD,
    latitude: 40.713,
    longitude: -74.006,
    phone: '+1 212',
    streets: ['11th Ave', 'Broadway', 'Wythe Ave', 'Bowery'],
  },
  {
    city: 'Chicago',
    country: 'United States',
    state: 'IL',
    timezone: 'America/Chicago',
    currency: USD,
    latitude: 41.878,
    longitude: -87.63,
    phone: '+1 312',
    streets: ['Michigan Ave', 'Halsted St', 'Milwaukee Ave'],
  },
  {
    city: 'San Francisco',
    country: 'United States',
    state: 'CA',
    timezone: 'America/Los_Angeles',
    currency: USD,
    latitude: 37.775,
    longitude: -122.419,
    phone: '+1 415',
    streets: ['Geary Blvd', 'Valencia St', 'Market St'],
  },
  {
    city: 'Toronto',
    country: 'Canada',
    province: 'ON',
    timezone: 'America/Toronto',
    currency: CAD,
    latitude: 43.653,
    longitude: -79.383,
    phone: '+1 416',
    streets: ['Victoria St', 'Queen St W', 'Spadina Ave'],
  },
  {
    city: 'São Paulo',
    country: 'Brazil',
    timezone: 'America/Sao_Paulo',
    currency: BRL,
    latitude: -23.55,
    longitude: -46.633,
    phone: '+55 11',
    streets: ['Avenida Paulista', 'Rua Augusta'],
  },
  {
    city: 'Tokyo',
    country: 'Japan',
    timezone: 'Asia/Tokyo',
    currency: JPY,
    latitude: 35.676,
    longitude: 139.65,
    phone: '+81 3',
    streets: ['Shibuya', 'Minami-Aoyama', 'Shimokitazawa'],
  },
  {
    city: 'Sydney',
    country: 'Australia',
    timezone: 'Australia/Sydney',
    currency: AUD,
    latitude: -33.869,
    longitude: 151.209,
    phone: '+61 2',
    streets: ['George St', 'Oxford St', 'King St'],
  },
];

const VENUE_NAMES = [
  'Kulturhaus',
  'Paradiso',
  'Barbican',
  'Fillmore',
  'Blue Note',
  'Warehouse',
  'Pavilion',
  'Bandshell',
  'Loft',
  'Arena',
  'Gallery',
  'Library',
  'Community Hall',
  'Jazz Café',
  'Brewery',
  'Studio',
  'Garden',
  'Market Hall',
];
const VENUE_PREFIXES = [
  'The',
  'Old',
  'New',
  'Grand',
  'Little',
  'Central',
  'Harbour',
  'Park',
  'River',
  'North',
  'South',
  'Union',
];
const ORGANIZER_WORDS = [
  'Sound',
  'Open Data',
  'Harbour Arts',
  'Jazz',
  'Night Market',
  'Tech',
  'Film',
  'Creative',
  'Runners',
  'Remote',
  'Makers',
  'Food',
  'Poetry',
  'Dance',
];
const ORGANIZER_KINDS = [
  'Collective',
  'Meetup',
  'Foundation',
  'Society',
  'Club',
  'Guild',
  'Circle',
  'Lab',
  'Events',
  'Association',
];

/** Categories: parents and their children (slug = key). */
const CATEGORY_TREE: Array<{
  key: string;
  name: string;
  description: string;
  children: Array<{ key: string; name: string }>;
}> = [
  {
    key: 'music',
    name: 'Music',
    description: 'Concerts, club nights and sessions.',
    children: [
      { key: 'jazz', name: 'Jazz' },
      { key: 'electronic', name: 'Electronic' },
      { key: 'classical', name: 'Classical' },
    ],
  },
  {
    key: 'arts',
    name: 'Arts & Culture',
    description: 'Exhibitions, theatre and film.',
    children: [
      { key: 'film', name: 'Film' },
      { key: 'theatre', name: 'Theatre' },
      { key: 'exhibitions', name: 'Exhibitions' },
    ],
  },
  {
    key: 'technology',
    name: 'Technology',
    description: 'Talks, meetups and hackathons.',
    children: [
      { key: 'workshops', name: 'Workshops' },
      { key: 'meetups', name: 'Meetups' },
      { key: 'conferences', name: 'Conferences' },
    ],
  },
  {
    key: 'community',
    name: 'Community',
    description: 'Markets, runs and neighbourhood gatherings.',
    children: [
      { key: 'markets', name: 'Markets' },
      { key: 'sports', name: 'Sports' },
      { key: 'family', name: 'Family' },
    ],
  },
  {
    key: 'food',
    name: 'Food & Drink',
    description: 'Tastings, dinners and cooking classes.',
    children: [
      { key: 'tastings', name: 'Tastings' },
      { key: 'cooking', name: 'Cooking' },
    ],
  },
];

const TAGS = [
  'Family friendly',
  'Outdoor',
  'Free entry',
  'Live',
  'Networking',
  'Beginner',
  'Late night',
  'Accessible',
  'Food & drink',
  'Online',
  'Kids',
  'Sold out soon',
  'Seated',
  'Standing',
  'Wheelchair access',
  'Dog friendly',
  'Vegan options',
  'English',
  'Deutsch',
  'Français',
  'Student discount',
  'Members only',
  'Premiere',
  'Festival',
  'Weekly',
  'Monthly',
  'Workshop',
  'Talk',
  'Panel',
  'Hands-on',
  'All ages',
  '18+',
  'Bring your own',
  'Rain or shine',
  'Indoor',
  'Hybrid',
  'Limited seats',
  'Charity',
  'Local',
  'International',
];

interface Kind {
  category: string;
  titles: readonly string[];
  hours: readonly number[];
  durationHours: readonly number[];
  tags: readonly string[];
  ticketedChance: number;
  prices: readonly number[];
  allDayChance: number;
}

const KINDS: Kind[] = [
  {
    category: 'jazz',
    titles: [
      'Late Night Jazz Session',
      'Quartet Evening',
      'Jazz & Wine Evening',
      'Big Band Night',
      'Standards & Improvisation',
    ],
    hours: [19, 20, 21, 11],
    durationHours: [2, 3],
    tags: ['Live', 'Late night', 'Food & drink', 'Seated'],
    ticketedChance: 0.7,
    prices: [15, 20, 25, 35],
    allDayChance: 0,
  },
  {
    category: 'electronic',
    titles: ['Warehouse Rave', 'Modular Synth Showcase', 'Sunset Techno Open Air', 'Deep House Sunday'],
    hours: [22, 23, 18],
    durationHours: [6, 8],
    tags: ['Live', 'Late night', 'Outdoor', '18+', 'Standing'],
    ticketedChance: 0.8,
    prices: [12, 18, 25],
    allDayChance: 0,
  },
  {
    category: 'classical',
    titles: ['Chamber Music Matinee', 'Choir Concert', 'Symphony Evening', 'Piano Recital'],
    hours: [11, 15, 19, 20],
    durationHours: [2, 3],
    tags: ['Live', 'Accessible', 'Seated', 'All ages'],
    ticketedChance: 0.6,
    prices: [10, 25, 40, 60],
    allDayChance: 0,
  },
  {
    category: 'music',
    titles: ['Singer-Songwriter Night', 'Open Mic', 'Street Music Day'],
    hours: [15, 19, 20],
    durationHours: [2, 3],
    tags: ['Live', 'Family friendly', 'Free entry'],
    ticketedChance: 0.4,
    prices: [8, 10, 15],
    allDayChance: 0.1,
  },
  {
    category: 'film',
    titles: ['Silent Film with Live Score', 'Documentary Night', 'Short Film Marathon', 'Cult Classics Double Feature'],
    hours: [18, 20, 21],
    durationHours: [2, 4],
    tags: ['Accessible', 'Late night', 'Premiere', 'English'],
    ticketedChance: 0.6,
    prices: [9, 12],
    allDayChance: 0,
  },
  {
    category: 'theatre',
    titles: ['Improv Theatre', 'Shakespeare in the Park', 'Puppet Theatre', 'Poetry Slam'],
    hours: [15, 19, 20],
    durationHours: [2, 3],
    tags: ['Seated', 'All ages', 'Outdoor', 'Premiere'],
    ticketedChance: 0.7,
    prices: [15, 22, 30],
    allDayChance: 0,
  },
  {
    category: 'exhibitions',
    titles: ['Gallery Opening', 'Sculpture Walk', 'Photography Exhibition', 'Open Studios'],
    hours: [10, 17, 18],
    durationHours: [2, 3, 8],
    tags: ['Free entry', 'Accessible', 'Food & drink', 'All ages'],
    ticketedChance: 0.2,
    prices: [5, 10],
    allDayChance: 0.4,
  },
  {
    category: 'meetups',
    titles: ['TypeScript Meetup', 'GraphQL Night', 'Open Data Hack Evening', 'Cloud Native Talks', 'AI Ethics Panel'],
    hours: [18, 19],
    durationHours: [2, 3],
    tags: ['Networking', 'Free entry', 'Online', 'Talk', 'Panel', 'Hybrid'],
    ticketedChance: 0.1,
    prices: [10],
    allDayChance: 0,
  },
  {
    category: 'conferences',
    titles: ['Developer Conference', 'Design Summit', 'Data Days', 'Security Conference'],
    hours: [9],
    durationHours: [8, 9],
    tags: ['Networking', 'Talk', 'International', 'Hybrid'],
    ticketedChance: 0.9,
    prices: [99, 249, 499],
    allDayChance: 0.2,
  },
  {
    category: 'workshops',
    titles: ['Intro to Letterpress', 'Beginner Pottery Workshop', 'Soldering for Beginners', 'Screen Printing Class'],
    hours: [10, 14],
    durationHours: [3, 4],
    tags: ['Beginner', 'Hands-on', 'Workshop', 'Limited seats'],
    ticketedChance: 0.9,
    prices: [30, 45, 60],
    allDayChance: 0,
  },
  {
    category: 'markets',
    titles: ['Night Market', 'Flea Market', 'Farmers Market', 'Christmas Market', 'Repair Café'],
    hours: [8, 9, 10, 17],
    durationHours: [4, 5, 6],
    tags: ['Outdoor', 'Family friendly', 'Free entry', 'Dog friendly', 'Local'],
    ticketedChance: 0.05,
    prices: [2],
    allDayChance: 0.35,
  },
  {
    category: 'sports',
    titles: ['Park Run', 'City Marathon', 'Yoga in the Park', 'Bouldering Night'],
    hours: [7, 8, 9, 18],
    durationHours: [1, 2, 5],
    tags: ['Outdoor', 'Rain or shine', 'All ages', 'Charity'],
    ticketedChance: 0.3,
    prices: [5, 15, 60],
    allDayChance: 0.05,
  },
  {
    category: 'family',
    titles: ['Kids Science Afternoon', 'Family Picnic', 'Storytelling Hour', 'Lantern Parade'],
    hours: [10, 14, 16],
    durationHours: [1, 2, 3],
    tags: ['Kids', 'Family friendly', 'Free entry', 'All ages'],
    ticketedChance: 0.2,
    prices: [3, 5],
    allDayChance: 0.1,
  },
  {
    category: 'tastings',
    titles: ['Natural Wine Tasting', 'Craft Beer Evening', 'Cheese & Wine Night', 'Coffee Cupping'],
    hours: [17, 18, 19],
    durationHours: [2, 3],
    tags: ['Food & drink', '18+', 'Limited seats'],
    ticketedChance: 0.8,
    prices: [20, 35, 50],
    allDayChance: 0,
  },
  {
    category: 'cooking',
    titles: ['Sourdough Baking Class', 'Ramen from Scratch', 'Vegan Cooking Class', 'Knife Skills Workshop'],
    hours: [10, 17, 18],
    durationHours: [3],
    tags: ['Beginner', 'Hands-on', 'Vegan options', 'Limited seats'],
    ticketedChance: 0.95,
    prices: [45, 65, 85],
    allDayChance: 0,
  },
];

const FILLER = [
  'Doors open 30 minutes before the start.',
  'Tickets are limited; arrive early.',
  'Drinks and snacks are available on site.',
  'The venue is step-free and has accessible toilets.',
  'Bring a friend: the second ticket is half price.',
  'Photography is welcome, flash is not.',
  'Part of a series running all season.',
];

// ---------------------------------------------------------------------------------------------------------------
// Formats the service stores

const WALL = 'yyyy-MM-dd HH:mm:ss';
/** Prisma's SQLite DateTime text: `2027-03-20T00:00:00.000+00:00`. */
const instant = (moment: DateTime) => `${moment.toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS")}+00:00`;
const slugPart = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

interface Moment {
  /** Wall clock in the zone, `YYYY-MM-DD HH:MM:SS`. */
  wall: string;
  /** The UTC instant in Prisma's text form. */
  instant: string;
}

/**
 * Wall clock → instant, fast: the zone's offset is looked up once per zone and day, and luxon does the work only
 * on the few days a zone changes its offset (where a wall clock may not exist and is moved on, as luxon does).
 */
function zoneClock() {
  const dayOffsets = new Map<string, number | null>();
  return (zone: string, year: number, month: number, day: number, hour: number, minute: number, second = 0): Moment => {
    const key = `${zone}|${year}-${month}-${day}`;
    let offset = dayOffsets.get(key);
    if (offset === undefined) {
      const iana = IANAZone.create(zone);
      const midnight = Date.UTC(year, month - 1, day);
      const before = iana.offset(midnight - 15 * 3_600_000);
      const after = iana.offset(midnight + 39 * 3_600_000);
      offset = before === after ? before : null;
      dayOffsets.set(key, offset);
    }
    if (offset === null) {
      const moment = DateTime.fromObject({ year, month, day, hour, minute, second }, { zone });
      return { wall: moment.toFormat(WALL), instant: instant(moment) };
    }
    const utc = Date.UTC(year, month - 1, day, hour, minute, second) - offset * 60_000;
    return {
      wall: `${pad(year, 4)}-${pad(month)}-${pad(day)} ${pad(hour)}:${pad(minute)}:${pad(second)}`,
      instant: new Date(utc).toISOString().replace('Z', '+00:00'),
    };
  };
}

/** The calendar date `days` after the given one. */
function addDays(year: number, month: number, day: number, days: number) {
  const date = new Date(Date.UTC(year, month - 1, day + days));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

function costFor(random: Random, kind: Kind, currency: Currency) {
  const scale = currency.scale ?? 1;
  const low = random.pick(kind.prices) * scale;
  const amount = (n: number) => (currency.postfix ? `${n} ${currency.symbol}` : `${currency.symbol}${n}`);
  const cost = random.chance(0.25) ? `${amount(low)} – ${amount(low * 2)}` : amount(low);
  const guessed = guessCurrency(cost);
  return {
    cost,
    currencySymbol: guessed?.symbol ?? '',
    currencyPosition: guessed?.position ?? '',
    currencyCode: currency.code,
  };
}

// ---------------------------------------------------------------------------------------------------------------

/** Writes a fresh database of `eventCount` events at `path` (an existing file is replaced). */
export async function generateDatabase(
  path: string,
  eventCount: number,
  options: GenerateOptions = {},
): Promise<GeneratedData> {
  const started = performance.now();
  const file = resolve(path);
  for (const suffix of ['', '-wal', '-shm', '-journal']) if (existsSync(file + suffix)) rmSync(file + suffix);
  await migrate(loadConfig({ DATABASE_URL: `file:${file}` }));

  const random = randomSequence(options.randomSeed ?? 20_261_121);
  const siteZone = options.siteTimezone ?? 'UTC';
  const now = (options.now ?? DateTime.now()).setZone(siteZone).set({ millisecond: 0 });
  /** A moment as the two columns the service stores: the wall clock in the site time zone and the UTC instant. */
  const stamp = (ms: number) => {
    const iso = new Date(ms).toISOString();
    if (now.offset === 0 && siteZone === 'UTC')
      return { local: `${iso.slice(0, 10)} ${iso.slice(11, 19)}`, at: iso.replace('Z', '+00:00') };
    return { local: DateTime.fromMillis(ms, { zone: siteZone }).toFormat(WALL), at: iso.replace('Z', '+00:00') };
  };
  /** A publication moment some time before now. */
  const published = (maxDaysAgo: number) => stamp(now.toMillis() - random.int(3600, maxDaysAgo * 86_400) * 1000);

  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('foreign_keys = ON');

  const insertUser = db.prepare(
    `INSERT INTO "User" (id, login, email, displayName, role, createdAt) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertMedia = db.prepare(`INSERT INTO "Media" (id, url, createdAt) VALUES (?, ?, ?)`);
  const insertVenue = db.prepare(
    `INSERT INTO "Venue" (id, name, slug, description, excerpt, status, authorId, publishedLocal, publishedAt, modifiedLocal, modifiedAt,
       address, city, country, province, state, zip, phone, stateProvince, website, showMap, showMapLink, imageId, latitude, longitude, password)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertOrganizer = db.prepare(
    `INSERT INTO "Organizer" (id, name, slug, description, excerpt, status, authorId, publishedLocal, publishedAt, modifiedLocal, modifiedAt,
       phone, website, email, imageId, password)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertTerm = db.prepare(
    `INSERT INTO "Term" (id, taxonomy, name, slug, description, parentId) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertEvent = db.prepare(
    `INSERT INTO "Event" (id, title, description, excerpt, slug, status, authorId, publishedLocal, publishedAt, modifiedLocal, modifiedAt,
       timezone, startLocal, endLocal, startsAt, endsAt, allDay, cost, currencySymbol, currencyCode, currencyPosition, website, imageId,
       showMap, showMapLink, hideFromListings, sticky, featured, password, parentId, ticketed)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertSeriesRow = db.prepare(
    `INSERT INTO "Event" (id, title, description, excerpt, slug, status, authorId, publishedLocal, publishedAt, modifiedLocal, modifiedAt,
       timezone, startLocal, endLocal, startsAt, endsAt, recurrence, isSeriesMaster, recurringEventId, originalStartsAt, originalStartLocal)
     VALUES (?, ?, ?, '', ?, 'publish', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertEventVenue = db.prepare(`INSERT INTO "EventVenue" (eventId, venueId, position) VALUES (?, ?, ?)`);
  const insertEventOrganizer = db.prepare(
    `INSERT INTO "EventOrganizer" (eventId, organizerId, position) VALUES (?, ?, ?)`,
  );
  const insertEventTerm = db.prepare(`INSERT INTO "EventTerm" (eventId, termId) VALUES (?, ?)`);

  const venueCount = Math.max(20, Math.round(eventCount / 100));
  const organizerCount = Math.max(10, Math.round(eventCount / 300));
  let mediaId = 0;
  const newMedia = (url: string) => {
    mediaId += 1;
    insertMedia.run(mediaId, url, instant(now));
    return mediaId;
  };
  const sampleEventIds: number[] = [];
  const sampleEventSlugs: string[] = [];
  const sampleEvery = Math.max(1, Math.floor(eventCount / 200));
  const b = (value: boolean) => (value ? 1 : 0);

  const write = db.transaction(() => {
    const authorId = 1;
    insertUser.run(authorId, 'bench', 'bench@example.com', 'Benchmark Calendar', 'administrator', instant(now));

    // Venues, organizers and events share one ID space (as WordPress posts do; the database refuses an ID two of
    // them would have): venues first, then organizers, then events.
    // Venues: a city each, most with coordinates; a few drafts.
    const venues: Array<{ id: number; city: City }> = [];
    for (let id = 1; id <= venueCount; id++) {
      const city = CITIES[(id - 1) % CITIES.length]!;
      const name = `${random.pick(VENUE_PREFIXES)} ${random.pick(VENUE_NAMES)} ${city.city}`;
      const slug = `${slugPart(name)}-${id}`;
      const when = published(720);
      const coordinates = random.chance(0.8);
      const imageId = random.chance(0.4) ? newMedia(`https://images.example.com/venues/${slug}.jpg`) : null;
      const status = random.chance(0.97) ? 'publish' : 'draft';
      insertVenue.run(
        id,
        name,
        slug,
        `<p>${name} in ${city.city}: one of the places our calendar keeps coming back to. ${random.pick(FILLER)}</p>`,
        `${city.city}, ${city.country}`,
        status,
        authorId,
        when.local,
        when.at,
        when.local,
        when.at,
        `${random.int(1, 250)} ${random.pick(city.streets)}`,
        city.city,
        city.country,
        city.province ?? '',
        city.state ?? '',
        String(random.int(10000, 99999)),
        `${city.phone} ${random.int(1000000, 9999999)}`,
        city.state ?? city.province ?? '',
        `https://${slugPart(name)}.example`,
        b(coordinates),
        1,
        imageId,
        coordinates ? Math.round((city.latitude + (random.next() - 0.5) * 0.2) * 1e4) / 1e4 : null,
        coordinates ? Math.round((city.longitude + (random.next() - 0.5) * 0.2) * 1e4) / 1e4 : null,
        '',
      );
      if (status === 'publish') venues.push({ id, city });
    }
    const venuesByCity = new Map<string, number[]>();
    for (const venue of venues)
      venuesByCity.set(venue.city.city, [...(venuesByCity.get(venue.city.city) ?? []), venue.id]);

    // Organizers.
    const organizers: number[] = [];
    for (let id = 1; id <= organizerCount; id++) {
      const name = `${random.pick(ORGANIZER_WORDS)} ${random.pick(ORGANIZER_KINDS)} ${random.pick(CITIES).city}`;
      const slug = `${slugPart(name)}-${id}`;
      const when = published(720);
      const imageId = random.chance(0.2) ? newMedia(`https://images.example.com/organizers/${slug}.png`) : null;
      insertOrganizer.run(
        venueCount + id,
        name,
        slug,
        `<p>${name} organizes events for curious people.</p>`,
        name,
        'publish',
        authorId,
        when.local,
        when.at,
        when.local,
        when.at,
        random.chance(0.8) ? `+1 555 ${random.int(1000000, 9999999)}` : '',
        `https://${slugPart(name)}-${id}.example`,
        `hello@${slugPart(name)}-${id}.example`,
        imageId,
        '',
      );
      organizers.push(venueCount + id);
    }

    // Categories (parents, then children) and tags.
    let termId = 0;
    const categoryIds = new Map<string, number>();
    const parentOf = new Map<string, string>();
    for (const parent of CATEGORY_TREE) {
      termId += 1;
      insertTerm.run(termId, 'category', parent.name, parent.key, parent.description, null);
      categoryIds.set(parent.key, termId);
    }
    for (const parent of CATEGORY_TREE) {
      for (const child of parent.children) {
        termId += 1;
        insertTerm.run(
          termId,
          'category',
          child.name,
          child.key,
          `${child.name} in the ${parent.name.toLowerCase()} calendar.`,
          categoryIds.get(parent.key)!,
        );
        categoryIds.set(child.key, termId);
        parentOf.set(child.key, parent.key);
      }
    }
    const allCategories = [...categoryIds.keys()];
    const tagIds = new Map<string, number>();
    for (const tag of TAGS) {
      termId += 1;
      insertTerm.run(termId, 'tag', tag, slugPart(tag), '', null);
      tagIds.set(tag, termId);
    }

    // Events.
    const today = now.startOf('day');
    const clock = zoneClock();
    for (let id = 1; id <= eventCount; id++) {
      const eventId = venueCount + organizerCount + id;
      const kind = random.pick(KINDS);
      const online = random.chance(0.05);
      const city = random.pick(CITIES);
      const timezone = online ? 'UTC' : city.timezone;
      // The past month, then the next two years, denser in the coming months.
      const dayOffset = random.chance(0.05) ? -random.int(1, 30) : Math.floor(random.next() ** 1.4 * 730);
      const day = addDays(today.year, today.month, today.day, dayOffset);
      const allDay = !online && random.chance(kind.allDayChance);
      const multiDay = allDay ? random.chance(0.3) : kind.category === 'conferences' && random.chance(0.4);
      let start: Moment;
      let end: Moment;
      if (allDay) {
        start = clock(timezone, day.year, day.month, day.day, 0, 0, 0);
        const last = addDays(day.year, day.month, day.day, multiDay ? random.int(1, 3) : 0);
        end = clock(timezone, last.year, last.month, last.day, 23, 59, 59);
      } else {
        const hour = random.pick(kind.hours);
        const minute = random.pick([0, 0, 0, 15, 30]);
        start = clock(timezone, day.year, day.month, day.day, hour, minute);
        const endHour = hour + random.pick(kind.durationHours);
        const last = addDays(
          day.year,
          day.month,
          day.day,
          Math.floor(endHour / 24) + (multiDay ? random.int(1, 2) : 0),
        );
        end = clock(timezone, last.year, last.month, last.day, endHour % 24, minute);
      }
      const title = `${random.pick(kind.titles)}${online ? ' (Online)' : random.chance(0.5) ? ` in ${city.city}` : ''}`;
      const slug = `${slugPart(title)}-${id}`;
      const ticketed = random.chance(kind.ticketedChance);
      const free = !ticketed && random.chance(0.4);
      const costs = ticketed
        ? costFor(random, kind, online ? USD : city.currency)
        : free
          ? { cost: 'Free', currencySymbol: '', currencyPosition: '', currencyCode: '' }
          : null;
      const roll = random.next();
      const status =
        roll < 0.955
          ? 'publish'
          : roll < 0.975
            ? 'draft'
            : roll < 0.985
              ? 'pending'
              : roll < 0.99
                ? 'private'
                : roll < 0.995
                  ? 'future'
                  : 'trash';
      const hidden = random.chance(0.005);
      const password = random.chance(0.003) ? `secret-${id}` : '';
      const featured = random.chance(0.08);
      const when = published(365);
      const modified = random.chance(0.3) ? stamp(now.toMillis() - random.int(10, 48 * 60) * 60_000) : when;
      const imageId = random.chance(0.3)
        ? newMedia(`https://images.example.com/events/${id}.${random.pick(['jpg', 'jpg', 'png', 'webp'])}`)
        : null;
      const description = `<p>${title}. ${random.pick(FILLER)} ${random.pick(FILLER)}</p>\n<p>${random.pick(FILLER)}</p>`;
      insertEvent.run(
        eventId,
        title,
        description,
        random.chance(0.4) ? `${title}: ${random.pick(FILLER)}` : '',
        slug,
        status,
        authorId,
        when.local,
        when.at,
        modified.local,
        modified.at,
        timezone,
        start.wall,
        end.wall,
        start.instant,
        end.instant,
        b(allDay),
        costs?.cost ?? '',
        costs?.currencySymbol ?? '',
        costs?.currencyCode ?? '',
        costs?.currencyPosition ?? '',
        random.chance(0.7) ? `https://tickets.example.com/${slug}` : '',
        imageId,
        b(!online),
        b(!online),
        b(hidden),
        b(featured && random.chance(0.1)),
        b(featured),
        password,
        null,
        b(ticketed),
      );
      if (!online) {
        const local = venuesByCity.get(city.city) ?? [];
        const chosen = random.some(local, random.chance(0.03) ? 2 : 1);
        chosen.forEach((venueId, position) => insertEventVenue.run(eventId, venueId, position));
      }
      const organizerIds = random.some(organizers, random.chance(0.2) ? 2 : random.chance(0.85) ? 1 : 0);
      organizerIds.forEach((organizerId, position) => insertEventOrganizer.run(eventId, organizerId, position));
      const categories = new Set([kind.category]);
      const parent = parentOf.get(kind.category);
      if (parent && random.chance(0.6)) categories.add(parent);
      if (random.chance(0.15)) categories.add(random.pick(allCategories));
      for (const key of categories) insertEventTerm.run(eventId, categoryIds.get(key)!);
      const tags = new Set(random.some(kind.tags, random.int(0, 2)));
      if (random.chance(0.3)) tags.add(random.pick(TAGS));
      if (online) tags.add('Online');
      if (free) tags.add('Free entry');
      for (const tag of tags) insertEventTerm.run(eventId, tagIds.get(tag)!);
      if (status === 'publish' && !hidden && password === '' && id % sampleEvery === 0 && sampleEventIds.length < 200) {
        sampleEventIds.push(eventId);
        sampleEventSlugs.push(slug);
      }
    }
    let seriesRows = 0;
    if (options.seriesOccurrences) {
      // One ID space for events, venues and organizers (migration shared_post_ids): series rows follow the events.
      let id = venueCount + organizerCount + eventCount + 1;
      for (let n = 0, left = options.seriesOccurrences; left > 0; n++, left -= SERIES_COUNT_EACH) {
        const count = Math.min(SERIES_COUNT_EACH, left);
        const city = CITIES[n % CITIES.length]!;
        const zone = city.timezone;
        const title = `Daily class ${n + 1} in ${city.city}`;
        const slug = `${slugPart(title)}-series-${n + 1}`;
        const when = published(60);
        const first = addDays(today.year, today.month, today.day, 1);
        const starts: Moment[] = [];
        for (let i = 0; starts.length < count; i++) {
          const day = addDays(first.year, first.month, first.day, Math.floor(i / SERIES_HOURS.length));
          starts.push(clock(zone, day.year, day.month, day.day, SERIES_HOURS[i % SERIES_HOURS.length]!, 0));
        }
        const endOf = (start: Moment) => {
          const [date, time] = start.wall.split(' ');
          const [y, m, d] = date!.split('-').map(Number);
          return clock(zone, y!, m!, d!, Number(time!.slice(0, 2)) + 1, 0);
        };
        const description = `<p>${title}. ${random.pick(FILLER)}</p>`;
        const venue = (venuesByCity.get(city.city) ?? [])[0];
        const masterId = id++;
        const row = (rowId: number, rowSlug: string, start: Moment, lines: string[], series: number | null) => {
          const end = endOf(start);
          const { recurrence, isSeriesMaster } = recurrenceColumns(lines);
          insertSeriesRow.run(
            rowId,
            title,
            description,
            rowSlug,
            authorId,
            when.local,
            when.at,
            when.local,
            when.at,
            zone,
            start.wall,
            end.wall,
            start.instant,
            end.instant,
            recurrence,
            isSeriesMaster ? 1 : 0,
            series,
            series ? start.instant : null,
            series ? start.wall : null,
          );
          if (venue) insertEventVenue.run(rowId, venue, 0);
          insertEventTerm.run(rowId, categoryIds.get('workshops')!);
        };
        row(masterId, slug, starts[0]!, [`RRULE:FREQ=DAILY;BYHOUR=${SERIES_HOURS.join(',')};COUNT=${count}`], null);
        for (const start of starts)
          row(id++, `${slug}-${start.wall.slice(0, 10)}-${start.wall.slice(11, 13)}00`, start, [], masterId);
        seriesRows += count + 1;
      }
    }
    return { categories: categoryIds.size, tags: tagIds.size, seriesRows };
  });

  const terms = write();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return {
    path: file,
    events: eventCount + terms.seriesRows,
    venues: venueCount,
    organizers: organizerCount,
    categories: terms.categories,
    tags: terms.tags,
    media: mediaId,
    sampleEventIds,
    sampleEventSlugs,
    filterCategory: 'music',
    filterSearch: 'night',
    seconds: (performance.now() - started) / 1000,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const [path, count] = process.argv.slice(2);
  if (!path || !count || !/^\d+$/.test(count)) {
    console.error('usage: npx tsx bench/generate.ts <file.db> <events>');
    process.exit(1);
  }
  const data = await generateDatabase(path, Number(count));
  console.log(
    `${data.events} events, ${data.venues} venues, ${data.organizers} organizers, ${data.categories} categories, ${data.tags} tags, ` +
      `${data.media} images in ${data.path} (${data.seconds.toFixed(1)} s)`,
  );
}
