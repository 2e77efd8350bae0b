/**
 * `npm run seed`: a realistic demo calendar, written through the GraphQL schema (so validation, slugs, links and
 * time zones work exactly as they do for clients). Deterministic: the same pseudo-random sequence every run, with
 * dates relative to today. Refuses a database that already has events unless `--force` or SEED_FORCE=1.
 */
import { execute, parse, type ExecutionResult } from 'graphql';
import { DateTime } from 'luxon';
import type { Config } from './config.js';
import { createDb, type Db } from './db/client.js';
import { migrate } from './db/migrate.js';
import { randomSequence } from './random.js';
import { createContext, type Viewer } from './graphql/builder.js';
import { rememberImage } from './graphql/media/index.js';
import { schema } from './graphql/schema.js';
import { WALL_CLOCK_FORMAT } from './time/dates.js';

export interface SeedOptions {
  force?: boolean;
  /** How many events to create (default 320). */
  events?: number;
  /** Seed of the pseudo-random sequence. */
  randomSeed?: number;
}

export interface SeedSummary {
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
  events: number;
  drafts: number;
  featured: number;
  ticketed: number;
  allDay: number;
  multiDay: number;
  timezones: string[];
  firstStart: string;
  lastStart: string;
}

type Random = ReturnType<typeof randomSequence>;

// ---------------------------------------------------------------------------------------------------------------
// The demo world

interface VenueSeed {
  name: string;
  address: string;
  city: string;
  country: string;
  zip: string;
  state?: string;
  province?: string;
  phone: string;
  timezone: string;
  currency: { symbol: string; code: string; postfix?: boolean };
  latitude?: number;
  longitude?: number;
}

const EUR = { symbol: '€', code: 'EUR', postfix: true };
const USD = { symbol: '$', code: 'USD' };
const JPY = { symbol: '¥', code: 'JPY' };
const GBP = { symbol: '£', code: 'GBP' };

const VENUES: VenueSeed[] = [
  {
    name: 'Kulturbrauerei',
    address: 'Schönhauser Allee 36',
    city: 'Berlin',
    country: 'Germany',
    zip: '10435',
    phone: '+49 30 44352170',
    timezone: 'Europe/Berlin',
    currency: EUR,
    latitude: 52.5388,
    longitude: 13.4131,
  },
  {
    name: 'Tempelhofer Feld Pavilion',
    address: 'Tempelhofer Damm 1',
    city: 'Berlin',
    country: 'Germany',
    zip: '12101',
    phone: '+49 30 700906710',
    timezone: 'Europe/Berlin',
    currency: EUR,
    latitude: 52.4731,
    longitude: 13.4039,
  },
  {
    name: 'Silent Green',
    address: 'Gerichtstraße 35',
    city: 'Berlin',
    country: 'Germany',
    zip: '13347',
    phone: '+49 30 18057200',
    timezone: 'Europe/Berlin',
    currency: EUR,
  },
  {
    name: 'Muffatwerk',
    address: 'Zellstraße 4',
    city: 'Munich',
    country: 'Germany',
    zip: '81667',
    phone: '+49 89 45875010',
    timezone: 'Europe/Berlin',
    currency: EUR,
    latitude: 48.1325,
    longitude: 11.5926,
  },
  {
    name: 'Paradiso',
    address: 'Weteringschans 6-8',
    city: 'Amsterdam',
    country: 'Netherlands',
    zip: '1017 SG',
    phone: '+31 20 6264521',
    timezone: 'Europe/Amsterdam',
    currency: EUR,
    latitude: 52.3622,
    longitude: 4.8838,
  },
  {
    name: 'Barbican Centre',
    address: 'Silk Street',
    city: 'London',
    country: 'United Kingdom',
    zip: 'EC2Y 8DS',
    phone: '+44 20 7638 4141',
    timezone: 'Europe/London',
    currency: GBP,
    latitude: 51.5202,
    longitude: -0.0938,
  },
  {
    name: 'The Jazz Café',
    address: '5 Parkway',
    city: 'London',
    country: 'United Kingdom',
    zip: 'NW1 7PG',
    phone: '+44 20 7485 6834',
    timezone: 'Europe/London',
    currency: GBP,
  },
  {
    name: 'Brooklyn Bowl',
    address: '61 Wythe Ave',
    city: 'Brooklyn',
    state: 'NY',
    country: 'United States',
    zip: '11249',
    phone: '+1 718 963 3369',
    timezone: 'America/New_York',
    currency: USD,
    latitude: 40.7219,
    longitude: -73.9575,
  },
  {
    name: 'Javits Center Hall B',
    address: '429 11th Ave',
    city: 'New York',
    state: 'NY',
    country: 'United States',
    zip: '10001',
    phone: '+1 212 216 2000',
    timezone: 'America/New_York',
    currency: USD,
    latitude: 40.7578,
    longitude: -74.0023,
  },
  {
    name: 'Prospect Park Bandshell',
    address: 'Prospect Park West & 9th St',
    city: 'Brooklyn',
    state: 'NY',
    country: 'United States',
    zip: '11215',
    phone: '+1 718 683 5600',
    timezone: 'America/New_York',
    currency: USD,
  },
  {
    name: 'The Fillmore',
    address: '1805 Geary Blvd',
    city: 'San Francisco',
    state: 'CA',
    country: 'United States',
    zip: '94115',
    phone: '+1 415 346 6000',
    timezone: 'America/Los_Angeles',
    currency: USD,
    latitude: 37.784,
    longitude: -122.433,
  },
  {
    name: 'Massey Hall',
    address: '178 Victoria St',
    city: 'Toronto',
    province: 'ON',
    country: 'Canada',
    zip: 'M5B 1T7',
    phone: '+1 416 872 4255',
    timezone: 'America/Toronto',
    currency: { symbol: '$', code: 'CAD' },
    latitude: 43.654,
    longitude: -79.3789,
  },
  {
    name: 'Shibuya Stream Hall',
    address: '3-21-3 Shibuya',
    city: 'Tokyo',
    country: 'Japan',
    zip: '150-0002',
    phone: '+81 3 6427 7490',
    timezone: 'Asia/Tokyo',
    currency: JPY,
    latitude: 35.6571,
    longitude: 139.7027,
  },
  {
    name: 'Blue Note Tokyo',
    address: '6-3-16 Minami-Aoyama',
    city: 'Tokyo',
    country: 'Japan',
    zip: '107-0062',
    phone: '+81 3 5485 0088',
    timezone: 'Asia/Tokyo',
    currency: JPY,
  },
  {
    name: 'Umeda Crystal Hall',
    address: '2-2-22 Umeda',
    city: 'Osaka',
    country: 'Japan',
    zip: '530-0001',
    phone: '+81 6 6345 0000',
    timezone: 'Asia/Tokyo',
    currency: JPY,
    latitude: 34.7025,
    longitude: 135.4959,
  },
];

/** Where an organizer works: the first part of its venues' time zones (`Europe`, `America`, `Asia`), or anywhere. */
type Region = 'Europe' | 'America' | 'Asia' | 'anywhere';

const ORGANIZERS: Array<{ name: string; email: string; phone: string; website: string; region: Region }> = [
  {
    name: 'Spree Sound Collective',
    email: 'hello@spreesound.example',
    phone: '+49 30 5550101',
    website: 'https://spreesound.example',
    region: 'Europe',
  },
  {
    name: 'Open Data Meetup Berlin',
    email: 'team@opendata-berlin.example',
    phone: '+49 30 5550102',
    website: 'https://opendata-berlin.example',
    region: 'Europe',
  },
  {
    name: 'Harbour Arts Foundation',
    email: 'info@harbourarts.example',
    phone: '+31 20 5550103',
    website: 'https://harbourarts.example',
    region: 'Europe',
  },
  {
    name: 'London Jazz Society',
    email: 'bookings@londonjazz.example',
    phone: '+44 20 5550104',
    website: 'https://londonjazz.example',
    region: 'Europe',
  },
  {
    name: 'Brooklyn Night Market',
    email: 'vendors@bknightmarket.example',
    phone: '+1 718 555 0105',
    website: 'https://bknightmarket.example',
    region: 'America',
  },
  {
    name: 'Empire Tech Events',
    email: 'events@empiretech.example',
    phone: '+1 212 555 0106',
    website: 'https://empiretech.example',
    region: 'America',
  },
  {
    name: 'Bay Area Film Circle',
    email: 'screenings@bayfilm.example',
    phone: '+1 415 555 0107',
    website: 'https://bayfilm.example',
    region: 'America',
  },
  {
    name: 'Tokyo Creative Lab',
    email: 'contact@tokyocreative.example',
    phone: '+81 3 5550 0108',
    website: 'https://tokyocreative.example',
    region: 'Asia',
  },
  {
    name: 'Kansai Runners Club',
    email: 'run@kansairunners.example',
    phone: '+81 6 5550 0109',
    website: 'https://kansairunners.example',
    region: 'Asia',
  },
  {
    name: 'Remote First Guild',
    email: 'hi@remotefirst.example',
    phone: '',
    website: 'https://remotefirst.example',
    region: 'anywhere',
  },
];

interface CategorySeed {
  key: string;
  name: string;
  description: string;
  parent?: string;
}

const CATEGORIES: CategorySeed[] = [
  { key: 'music', name: 'Music', description: 'Concerts, club nights and sessions.' },
  { key: 'jazz', name: 'Jazz', description: 'From standards to the avant-garde.', parent: 'music' },
  {
    key: 'electronic',
    name: 'Electronic',
    description: 'Techno, house and everything with a synthesizer.',
    parent: 'music',
  },
  { key: 'arts', name: 'Arts & Culture', description: 'Exhibitions, theatre and film.' },
  { key: 'film', name: 'Film', description: 'Screenings, premieres and festivals.', parent: 'arts' },
  { key: 'tech', name: 'Technology', description: 'Talks, meetups and hackathons.' },
  { key: 'workshops', name: 'Workshops', description: 'Learn by doing.', parent: 'tech' },
  { key: 'community', name: 'Community', description: 'Markets, runs and neighbourhood gatherings.' },
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
];

interface Kind {
  category: string;
  titles: readonly string[];
  hours: readonly number[];
  durationHours: readonly number[];
  tags: readonly string[];
  ticketedChance: number;
  prices: readonly number[];
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
    tags: ['Live', 'Late night', 'Food & drink'],
    ticketedChance: 0.7,
    prices: [15, 20, 25, 35],
  },
  {
    category: 'electronic',
    titles: ['Warehouse Rave', 'Modular Synth Showcase', 'Sunset Techno Open Air', 'Deep House Sunday'],
    hours: [22, 23, 18],
    durationHours: [6, 8],
    tags: ['Live', 'Late night', 'Outdoor'],
    ticketedChance: 0.8,
    prices: [12, 18, 25],
  },
  {
    category: 'music',
    titles: ['Choir Concert', 'Singer-Songwriter Night', 'Chamber Music Matinee', 'Open Mic'],
    hours: [15, 19, 20],
    durationHours: [2, 3],
    tags: ['Live', 'Accessible', 'Family friendly'],
    ticketedChance: 0.5,
    prices: [8, 10, 15],
  },
  {
    category: 'film',
    titles: ['Silent Film with Live Score', 'Documentary Night', 'Short Film Marathon', 'Cult Classics Double Feature'],
    hours: [18, 20, 21],
    durationHours: [2, 4],
    tags: ['Accessible', 'Late night'],
    ticketedChance: 0.6,
    prices: [9, 12],
  },
  {
    category: 'arts',
    titles: ['Gallery Opening', 'Sculpture Walk', 'Poetry Reading', 'Improv Theatre'],
    hours: [17, 18, 19],
    durationHours: [2, 3],
    tags: ['Free entry', 'Accessible', 'Food & drink'],
    ticketedChance: 0.3,
    prices: [5, 10],
  },
  {
    category: 'tech',
    titles: ['TypeScript Meetup', 'GraphQL Night', 'Open Data Hack Evening', 'Cloud Native Talks', 'AI Ethics Panel'],
    hours: [18, 19],
    durationHours: [2, 3],
    tags: ['Networking', 'Free entry', 'Online'],
    ticketedChance: 0.2,
    prices: [10, 49],
  },
  {
    category: 'workshops',
    titles: ['Intro to Letterpress', 'Beginner Pottery Workshop', 'Soldering for Beginners', 'Sourdough Baking Class'],
    hours: [10, 14],
    durationHours: [3, 4],
    tags: ['Beginner', 'Kids', 'Family friendly'],
    ticketedChance: 0.9,
    prices: [30, 45, 60],
  },
  {
    category: 'community',
    titles: ['Night Market', 'Park Run', 'Neighbourhood Clean-up', 'Repair Café', 'Flea Market'],
    hours: [8, 9, 10, 17],
    durationHours: [2, 4, 5],
    tags: ['Outdoor', 'Family friendly', 'Free entry', 'Kids'],
    ticketedChance: 0.1,
    prices: [5],
  },
];

const FESTIVALS = [
  'Sound Festival',
  'Design Week',
  'International Film Days',
  'Open Studios Weekend',
  'Maker Faire',
  'Jazz Festival',
  'Tech Conference',
];
/** Kinds of event that may take a whole day (markets, exhibitions); the others have a time. */
const ALL_DAY_KINDS = new Set(['arts', 'community']);
const TIMED_FESTIVALS = new Set(['Tech Conference', 'Maker Faire']);
const FESTIVAL_CATEGORY: Record<string, string> = {
  'Sound Festival': 'electronic',
  'Design Week': 'arts',
  'International Film Days': 'film',
  'Open Studios Weekend': 'arts',
  'Maker Faire': 'workshops',
  'Jazz Festival': 'jazz',
  'Tech Conference': 'tech',
};

const DEMO_AUTHOR = {
  login: 'demo',
  displayName: 'Demo Calendar',
  email: 'demo@example.com',
  role: 'administrator' as const,
};

// ---------------------------------------------------------------------------------------------------------------
// Executing mutations in process

type Run = (source: string, variables?: Record<string, unknown>) => Promise<Record<string, unknown>>;

function runner(db: Db, config: Config, viewer: Viewer): Run {
  return async (source, variables = {}) => {
    const contextValue = createContext(db, config, viewer);
    const result = (await execute({
      schema,
      document: parse(source),
      variableValues: variables,
      contextValue,
    })) as ExecutionResult;
    if (result.errors?.length) {
      const first = result.errors[0]!;
      throw new Error(`seed: ${first.path?.join('.') ?? 'operation'} failed: ${first.message}`, {
        cause: first.originalError ?? first,
      });
    }
    return result.data as Record<string, unknown>;
  };
}

/** Runs one mutation field per input, many per document (aliased), and answers the created IDs in order. */
async function createMany(
  run: Run,
  field: string,
  inputType: string,
  inputs: Array<Record<string, unknown>>,
  batchSize = 50,
): Promise<number[]> {
  const ids: number[] = [];
  for (let from = 0; from < inputs.length; from += batchSize) {
    const batch = inputs.slice(from, from + batchSize);
    const variables = batch.map((_, i) => `$i${i}: ${inputType}!`).join(', ');
    const fields = batch.map((_, i) => `m${i}: ${field}(input: $i${i}) { id: databaseId }`).join('\n  ');
    const data = await run(
      `mutation Seed(${variables}) {\n  ${fields}\n}`,
      Object.fromEntries(batch.map((input, i) => [`i${i}`, input])),
    );
    batch.forEach((_, i) => ids.push((data[`m${i}`] as { id: number }).id));
  }
  return ids;
}

interface TermNode {
  id: number;
  name: string;
  parentId?: number | null;
}

/** Every term of the taxonomy, page by page. */
async function existingTerms(run: Run, field: 'eventCategories' | 'eventTags'): Promise<TermNode[]> {
  const select = field === 'eventCategories' ? 'id: databaseId name parentId' : 'id: databaseId name';
  const terms: TermNode[] = [];
  for (let after: string | null = null; ; ) {
    const data = await run(
      `query ($after: String) { terms: ${field}(first: 100, after: $after, hideEmpty: false) { pageInfo { hasNextPage endCursor } edges { node { ${select} } } } }`,
      { after },
    );
    const page = data.terms as {
      pageInfo: { hasNextPage: boolean; endCursor: string };
      edges: Array<{ node: TermNode }>;
    };
    terms.push(...page.edges.map((edge) => edge.node));
    if (!page.pageInfo.hasNextPage) return terms;
    after = page.pageInfo.endCursor;
  }
}

/**
 * The demo categories (parents before children) and tags, reusing terms of the same name (and parent) that the
 * database already has: a forced second seed must not trip over WordPress's one-name-per-parent rule.
 */
async function ensureTerms(run: Run) {
  const categories = new Map<string, number>();
  const knownCategories = await existingTerms(run, 'eventCategories');
  for (const level of [CATEGORIES.filter((c) => !c.parent), CATEGORIES.filter((c) => c.parent)]) {
    const parentOf = (c: CategorySeed) => (c.parent ? categories.get(c.parent)! : null);
    const missing: CategorySeed[] = [];
    for (const c of level) {
      const found = knownCategories.find((t) => t.name === c.name && (t.parentId ?? null) === parentOf(c));
      if (found) categories.set(c.key, found.id);
      else missing.push(c);
    }
    const created = await createMany(
      run,
      'createEventCategory',
      'TermInput',
      missing.map((c) => ({
        name: c.name,
        description: c.description,
        ...(c.parent ? { parentId: parentOf(c) } : {}),
      })),
    );
    missing.forEach((c, i) => categories.set(c.key, created[i]!));
  }
  const knownTags = new Map((await existingTerms(run, 'eventTags')).map((t) => [t.name, t.id]));
  const missingTags = TAGS.filter((name) => !knownTags.has(name));
  const created = await createMany(
    run,
    'createEventTag',
    'TermInput',
    missingTags.map((name) => ({ name })),
  );
  missingTags.forEach((name, i) => knownTags.set(name, created[i]!));
  const tags = new Map(TAGS.map((name) => [name, knownTags.get(name)!]));
  return { categories, tags };
}

// ---------------------------------------------------------------------------------------------------------------
// Building the inputs

const slugPart = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function venueInputs(random: Random, authorId: number) {
  return VENUES.map((venue) => ({
    authorId,
    name: venue.name,
    description: `<p>${venue.name} in ${venue.city}: one of the places our calendar keeps coming back to.</p>`,
    excerpt: `${venue.city}, ${venue.country}`,
    address: venue.address,
    city: venue.city,
    country: venue.country,
    zip: venue.zip,
    state: venue.state ?? '',
    province: venue.province ?? '',
    stateProvince: venue.state ?? venue.province ?? '',
    phone: venue.phone,
    website: `https://${slugPart(venue.name)}.example`,
    showMap: venue.latitude !== undefined,
    showMapLink: true,
    ...(venue.latitude !== undefined ? { latitude: venue.latitude, longitude: venue.longitude } : {}),
    ...(random.chance(0.4) ? { image: `https://images.example.com/venues/${slugPart(venue.name)}.jpg` } : {}),
  }));
}

function organizerInputs(authorId: number) {
  return ORGANIZERS.map(({ region: _region, ...organizer }) => ({
    authorId,
    ...organizer,
    description: `<p>${organizer.name} organizes events for curious people.</p>`,
    excerpt: organizer.name,
  }));
}

function formatCost(
  random: Random,
  kind: Kind,
  currency: VenueSeed['currency'],
): { cost: string; currencyCode: string } {
  const scale = currency.code === 'JPY' ? 150 : 1;
  const low = random.pick(kind.prices) * scale;
  const amount = (n: number) => (currency.postfix ? `${n} ${currency.symbol}` : `${currency.symbol}${n}`);
  const cost = random.chance(0.25) ? `${amount(low)} – ${amount(low * 2)}` : amount(low);
  return { cost, currencyCode: currency.code };
}

/** The organizers working where an event happens (by its zone), and those working anywhere. */
function localOrganizers(ids: number[], timezone: string): number[] {
  const region = timezone.split('/')[0];
  return ids.filter((_, i) => [region, 'anywhere'].includes(ORGANIZERS[i]!.region));
}

interface Plan {
  input: Record<string, unknown>;
  draft: boolean;
  featured: boolean;
  ticketed: boolean;
  allDay: boolean;
  multiDay: boolean;
  timezone: string;
  start: DateTime;
}

function eventPlans(
  random: Random,
  count: number,
  ids: {
    author: number;
    venues: number[];
    organizers: number[];
    categories: Map<string, number>;
    tags: Map<string, number>;
  },
  today: DateTime,
): Plan[] {
  const plans: Plan[] = [];
  for (let n = 0; n < count; n++) {
    const festival = random.chance(0.06);
    const online = !festival && random.chance(0.07);
    const venueIndex = random.int(0, VENUES.length - 1);
    const venue = VENUES[venueIndex]!;
    const kind = festival
      ? KINDS.find((k) => k.category === FESTIVAL_CATEGORY[FESTIVALS[n % FESTIVALS.length]!]!)!
      : random.pick(KINDS);
    const timezone = online ? 'UTC' : venue.timezone;
    // Spread over the coming six months, a little denser in the first weeks (and a few in the recent past).
    const dayOffset = random.chance(0.04) ? -random.int(1, 20) : Math.floor(random.next() ** 1.3 * 180);
    const day = today.setZone(timezone).startOf('day').plus({ days: dayOffset });
    const festivalName = FESTIVALS[n % FESTIVALS.length]!;
    const timedFestival = festival && TIMED_FESTIVALS.has(festivalName);
    const allDay =
      (festival && !timedFestival) || (!festival && !online && ALL_DAY_KINDS.has(kind.category) && random.chance(0.3));
    const multiDay = festival || (allDay && random.chance(0.3));
    let start: DateTime;
    let end: DateTime;
    if (allDay) {
      start = day;
      end = day.plus({ days: multiDay ? random.int(1, 3) : 0 });
    } else if (timedFestival) {
      start = day.set({ hour: 9 });
      end = day.plus({ days: random.int(1, 2) }).set({ hour: 18 });
    } else {
      start = day.set({ hour: random.pick(kind.hours), minute: random.pick([0, 0, 0, 30]) });
      end = start.plus({ hours: random.pick(kind.durationHours) });
    }
    const city = online ? 'Online' : venue.city;
    const title = festival
      ? `${city} ${festivalName} ${start.year}`
      : `${random.pick(kind.titles)}${online ? ' (Online)' : random.chance(0.5) ? ` in ${city}` : ''}`;
    const ticketed = random.chance(kind.ticketedChance);
    const free = !ticketed && random.chance(0.5);
    const draft = random.chance(0.03);
    const featured = festival || random.chance(0.08);
    const categoryKeys = [kind.category, ...(random.chance(0.2) ? [random.pick(CATEGORIES).key] : [])];
    const parentKey = CATEGORIES.find((c) => c.key === kind.category)?.parent;
    if (parentKey && random.chance(0.6)) categoryKeys.push(parentKey);
    const tagNames = random.some(
      kind.tags.filter((tag) => tag !== 'Online' && tag !== 'Free entry'),
      random.int(0, 2),
    );
    if (online) tagNames.push('Online');
    if (free) tagNames.push('Free entry');
    if (ticketed && random.chance(0.05)) tagNames.push('Sold out soon');
    const organizerCount = random.chance(0.2) ? 2 : random.chance(0.85) ? 1 : 0;
    const input: Record<string, unknown> = {
      authorId: ids.author,
      title,
      description: `<p>${title}. ${festival ? 'Several days of programme across the venue.' : 'Doors open 30 minutes before the start.'}</p>`,
      excerpt: festival ? `A ${end.diff(start, 'days').days + 1}-day festival.` : '',
      timezone,
      startDate: start.toFormat(allDay ? 'yyyy-MM-dd' : WALL_CLOCK_FORMAT),
      endDate: end.toFormat(allDay ? 'yyyy-MM-dd' : WALL_CLOCK_FORMAT),
      allDay,
      status: draft ? 'DRAFT' : 'PUBLISH',
      featured,
      sticky: featured && random.chance(0.2),
      ticketed,
      showMap: !online,
      showMapLink: !online,
      website: `https://tickets.example.com/${slugPart(title)}-${n + 1}`,
      venues: online ? [] : [{ id: ids.venues[venueIndex] }],
      organizers: random.some(localOrganizers(ids.organizers, timezone), organizerCount).map((id) => ({ id })),
      categories: [...new Set(categoryKeys)].map((key) => String(ids.categories.get(key))),
      tags: [...new Set(tagNames)].map((name) => String(ids.tags.get(name))),
      ...(ticketed ? formatCost(random, kind, online ? USD : venue.currency) : free ? { cost: 'Free' } : {}),
      ...(random.chance(0.3) ? { image: `https://images.example.com/events/${n + 1}.jpg` } : {}),
    };
    plans.push({ input, draft, featured, ticketed, allDay, multiDay, timezone, start });
  }
  return plans;
}

/**
 * The demo images have made-up URLs that cannot be fetched (a seed must work offline): they are kept with the facts
 * a photo would have and given to the records by media ID, where a client's image URL would be fetched and checked.
 */
const DEMO_IMAGE = { mimeType: 'image/jpeg', width: 1200, height: 800 };

async function withDemoImages(db: Db, inputs: Array<Record<string, unknown>>): Promise<Array<Record<string, unknown>>> {
  for (const input of inputs) {
    if (typeof input.image === 'string') input.image = String(await rememberImage(db, input.image, DEMO_IMAGE));
  }
  return inputs;
}

// ---------------------------------------------------------------------------------------------------------------

/** Loads the demo data set; prints a one-line refusal or a summary. */
export async function seed(config: Config, options: SeedOptions = {}): Promise<SeedSummary | null> {
  const force = options.force ?? (process.argv.includes('--force') || process.env.SEED_FORCE === '1');
  await migrate(config);
  const db = createDb(config);
  try {
    const existing = await db.event.count();
    if (existing > 0 && !force) {
      console.log(
        `Not seeding: the database already has ${existing} event(s); run with --force (or SEED_FORCE=1) to add the demo data anyway.`,
      );
      return null;
    }
    const started = Date.now();
    // One commit per mutation: in WAL mode, NORMAL skips the per-commit fsync and still never corrupts the file.
    // It applies to this connection only; the server keeps its own setting.
    if (config.engine === 'sqlite') await db.$queryRawUnsafe('PRAGMA synchronous = NORMAL');
    const random = randomSequence(options.randomSeed ?? 20_240_601);
    // The demo records are written by a demo administrator (who has no credentials, so nobody can sign in as it).
    const author = await db.user.upsert({
      where: { login: DEMO_AUTHOR.login },
      create: DEMO_AUTHOR,
      update: {},
      select: { id: true, login: true, role: true },
    });
    const run = runner(db, config, { user: author });

    const venues = await createMany(
      run,
      'createVenue',
      'VenueInput',
      await withDemoImages(db, venueInputs(random, author.id)),
    );
    const organizers = await createMany(run, 'createOrganizer', 'OrganizerInput', organizerInputs(author.id));

    const { categories, tags } = await ensureTerms(run);
    const plans = eventPlans(
      random,
      options.events ?? 320,
      { author: author.id, venues, organizers, categories, tags },
      DateTime.now(),
    );
    await createMany(
      run,
      'createEvent',
      'EventInput',
      await withDemoImages(
        db,
        plans.map((p) => p.input),
      ),
    );

    const starts = plans.map((p) => p.start.toUTC()).sort((a, b) => a.toMillis() - b.toMillis());
    const summary: SeedSummary = {
      venues: venues.length,
      organizers: organizers.length,
      categories: categories.size,
      tags: tags.size,
      events: plans.length,
      drafts: plans.filter((p) => p.draft).length,
      featured: plans.filter((p) => p.featured).length,
      ticketed: plans.filter((p) => p.ticketed).length,
      allDay: plans.filter((p) => p.allDay).length,
      multiDay: plans.filter((p) => p.multiDay).length,
      timezones: [...new Set(plans.map((p) => p.timezone))].sort(),
      firstStart: starts[0]!.toISODate()!,
      lastStart: starts[starts.length - 1]!.toISODate()!,
    };
    console.log(
      `Seeded ${summary.events} events (${summary.drafts} drafts, ${summary.featured} featured, ${summary.ticketed} ticketed, ` +
        `${summary.allDay} all-day, ${summary.multiDay} multi-day) from ${summary.firstStart} to ${summary.lastStart}, ` +
        `${summary.venues} venues, ${summary.organizers} organizers, ${summary.categories} categories, ${summary.tags} tags ` +
        `in ${summary.timezones.length} time zones (${summary.timezones.join(', ')}) in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
    );
    return summary;
  } finally {
    await db.$disconnect();
  }
}
