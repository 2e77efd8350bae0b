/**
 * The floor of the benchmark: the least a server can do to answer the default REST events list (page 1, per_page
 * 10, every relation) with the same bytes as the service. node:http, better-sqlite3 with hand-written prepared
 * statements on the same database file, the service's own serializers (src/rest/serialize) and JSON encoder (src/content/safe-json.ts); no
 * GraphQL, no Prisma, no router. What the service's list costs beyond this is the price of its layers.
 *
 * Answers GET /<REST_ROOT>/calendar/events/v1/events with `page` and `per_page` (the default date window, published
 * events, an anonymous reader); everything else is a 404.
 *
 *   DATABASE_URL=file:bench.db SITE_URL=http://calendar.bench PORT=0 npx tsx bench/floor.ts
 */
import { htmlSafeJson } from '../src/content/safe-json.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { DateTime } from 'luxon';
import { loadConfig } from '../src/config.js';
import { costValues } from '../src/graphql/events/cost.js';
import type { PostStatus, RestEventFragment, RestOrganizerFragment, RestVenueFragment } from '../src/rest/operations/generated/graphql.js';
import { MAX_PER_PAGE, pageLinks, totalPages } from '../src/rest/routes/shared.js';
import { blankProtectedEvent, eventToTec } from '../src/rest/serialize/event.js';
import { restUrls } from '../src/rest/urls.js';
import { endOfDayWallClock, fromWallClock, startOfDayWallClock, timeZoneAbbreviation } from '../src/time/dates.js';

export interface FloorOptions {
  /** `file:<path>` of the SQLite database (as DATABASE_URL). */
  databaseUrl: string;
  siteUrl: string;
  siteTimezone?: string;
  restRoot?: string;
}

type Row = Record<string, unknown>;

const LISTED = `e.hideFromListings = 0 AND e.status = 'publish' AND e.startLocal >= ? AND e.endLocal <= ?`;
const IN_IDS = `IN (SELECT value FROM json_each(?))`;

/** The image object GraphQL answers: the extension from the URL path. */
function image(id: unknown, url: unknown) {
  if (id == null) return null;
  const extension = /\.([A-Za-z0-9]{1,5})$/.exec(new URL(String(url)).pathname)?.[1]?.toLowerCase() ?? '';
  return { id: Number(id), url: String(url), extension };
}

const post = (row: Row) => ({
  id: row.id as number,
  authorId: row.authorId as number | null,
  status: row.status as PostStatus,
  publishedLocal: row.publishedLocal as string,
  publishedAt: row.publishedAt as string,
  modifiedLocal: row.modifiedLocal as string,
  modifiedAt: row.modifiedAt as string,
  name: row.name as string,
  slug: row.slug as string,
  hasPassword: row.password !== '',
  isLocked: row.password !== '',
});

/** A venue as the RestVenue fragment reads it for an anonymous reader (protected fields blanked when locked). */
function venue(row: Row): RestVenueFragment {
  const locked = row.password !== '';
  const text = (key: string) => (locked ? '' : (row[key] as string));
  return {
    ...post(row),
    description: text('description'),
    excerpt: text('excerpt'),
    address: text('address'),
    city: text('city'),
    country: text('country'),
    province: text('province'),
    state: row.state as string,
    zip: text('zip'),
    phone: text('phone'),
    website: text('website'),
    stateProvince: text('stateProvince'),
    latitude: locked ? null : (row.latitude as number | null),
    longitude: locked ? null : (row.longitude as number | null),
    showMap: row.showMap === 1,
    showMapLink: row.showMapLink === 1,
    image: locked ? null : image(row.imageId, row.imageUrl),
  };
}

function organizer(row: Row): RestOrganizerFragment {
  const locked = row.password !== '';
  const text = (key: string) => (locked ? '' : (row[key] as string));
  return {
    ...post(row),
    description: text('description'),
    excerpt: text('excerpt'),
    phone: text('phone'),
    website: text('website'),
    email: text('email'),
    image: locked ? null : image(row.imageId, row.imageUrl),
  };
}

/** The floor's request handler and its database; `close` closes the database. */
export function createFloor(options: FloorOptions) {
  const config = loadConfig({
    DATABASE_URL: options.databaseUrl,
    SITE_URL: options.siteUrl,
    SITE_TIMEZONE: options.siteTimezone ?? 'UTC',
    REST_ROOT: options.restRoot ?? 'wp-json',
  });
  const urls = restUrls(config);
  const listPath = `/${config.restRoot}/calendar/events/v1/events`;
  const db = new Database(resolve(config.databaseUrl.replace(/^file:/, '').replace(/\?.*$/, '')), { fileMustExist: true, timeout: 5000 });

  const countEvents = db.prepare(`SELECT count(*) AS n FROM Event e WHERE ${LISTED}`).pluck();
  // The page walks the (startsAt, id) index in order and stops after the page: the wall-clock conditions are kept out
  // of index choice (`+`), and the window's start bounds startsAt too (no zone is more than 14 hours ahead of UTC).
  const pageOfEvents = db.prepare(
    `SELECT e.*, m.url AS imageUrl FROM Event e LEFT JOIN Media m ON m.id = e.imageId
     WHERE e.hideFromListings = 0 AND +e.status = 'publish' AND +e.startLocal >= ? AND +e.endLocal <= ? AND e.startsAt >= ?
     ORDER BY e.startsAt ASC, e.id ASC LIMIT ? OFFSET ?`,
  );
  const venuesOf = db.prepare(
    `SELECT l.eventId, v.*, m.url AS imageUrl FROM EventVenue l JOIN Venue v ON v.id = l.venueId LEFT JOIN Media m ON m.id = v.imageId
     WHERE l.eventId ${IN_IDS} ORDER BY l.eventId, l.position, l.venueId`,
  );
  const organizersOf = db.prepare(
    `SELECT l.eventId, o.*, m.url AS imageUrl FROM EventOrganizer l JOIN Organizer o ON o.id = l.organizerId LEFT JOIN Media m ON m.id = o.imageId
     WHERE l.eventId ${IN_IDS} ORDER BY l.eventId, l.position, l.organizerId`,
  );
  const termsOf = db.prepare(
    `SELECT l.eventId, t.id, t.taxonomy, t.name, t.slug, t.description, t.parentId FROM EventTerm l JOIN Term t ON t.id = l.termId
     WHERE l.eventId ${IN_IDS} ORDER BY l.eventId, t.name, t.id`,
  );
  // WordPress's term `count`: published events carrying the term, live. Driven by the terms (the link table's termId
  // index), the published events as a set: the fastest of the plain-SQL forms tried on this schema.
  const termCounts = db.prepare(
    `SELECT l.termId, count(*) AS n FROM EventTerm l
     WHERE l.termId ${IN_IDS} AND l.eventId IN (SELECT id FROM Event WHERE status = 'publish') GROUP BY l.termId`,
  );
  // The zone abbreviation depends on the zone and its offset at the start only: computed once per pair (the offset
  // read off the stored wall clock and instant), where the service asks ICU for every event.
  const abbreviations = new Map<string, string>();
  const abbreviation = (row: Row) => {
    const offset = Date.parse(`${(row.startLocal as string).replace(' ', 'T')}Z`) - Date.parse(row.startsAt as string);
    const key = `${row.timezone}|${offset}`;
    let name = abbreviations.get(key);
    if (name === undefined) {
      name = timeZoneAbbreviation(fromWallClock(row.startLocal as string, row.timezone as string));
      abbreviations.set(key, name);
    }
    return name;
  };

  const grouped = <T>(rows: Row[], map: (row: Row) => T) => {
    const byEvent = new Map<number, T[]>();
    for (const row of rows) {
      const id = row.eventId as number;
      let list = byEvent.get(id);
      if (!list) byEvent.set(id, (list = []));
      list.push(map(row));
    }
    return byEvent;
  };

  /** The body of the events list, page `page` of `perPage`, in the default window of today. */
  function listBody(page: number, perPage: number) {
    const now = DateTime.now().setZone(config.siteTimezone);
    const from = startOfDayWallClock(now);
    const to = endOfDayWallClock(now.plus({ years: 2 }));
    const total = countEvents.get(from, to) as number;
    const pages = totalPages(total, perPage);
    if (page > 1 && page > pages) return null;
    const earliest = new Date(Date.parse(`${from.replace(' ', 'T')}Z`) - 14 * 3_600_000).toISOString().replace('Z', '+00:00');
    const rows = pageOfEvents.all(from, to, earliest, perPage, (page - 1) * perPage) as Row[];
    const open = rows.filter((row) => row.password === '').map((row) => row.id as number);
    const ids = JSON.stringify(open);
    const venues = grouped(venuesOf.all(ids) as Row[], venue);
    const organizers = grouped(organizersOf.all(ids) as Row[], organizer);
    const termRows = termsOf.all(ids) as Row[];
    const counts = new Map(
      (termCounts.all(JSON.stringify([...new Set(termRows.map((row) => row.id as number))])) as Row[]).map((row) => [row.termId as number, row.n as number]),
    );
    const terms = grouped(termRows, (row) => ({
      taxonomy: row.taxonomy as string,
      id: row.id as number,
      name: row.name as string,
      slug: row.slug as string,
      description: row.description as string,
      parentId: row.parentId as number | null,
      count: counts.get(row.id as number) ?? 0,
    }));

    const events = rows.map((row) => {
      const locked = row.password !== '';
      const id = row.id as number;
      const cost = locked ? '' : (row.cost as string);
      const eventTerms = terms.get(id) ?? [];
      const node: RestEventFragment = {
        id,
        authorId: row.authorId as number | null,
        status: row.status as PostStatus,
        publishedLocal: row.publishedLocal as string,
        publishedAt: row.publishedAt as string,
        modifiedLocal: row.modifiedLocal as string,
        modifiedAt: row.modifiedAt as string,
        title: row.title as string,
        description: locked ? '' : (row.description as string),
        excerpt: locked ? '' : (row.excerpt as string),
        slug: row.slug as string,
        image: locked ? null : image(row.imageId, row.imageUrl),
        allDay: row.allDay === 1,
        startsAtLocal: row.startLocal as string,
        endsAtLocal: row.endLocal as string,
        startsAt: row.startsAt as string,
        endsAt: row.endsAt as string,
        timezone: row.timezone as string,
        timezoneAbbreviation: abbreviation(row),
        cost,
        costDetails: locked
          ? { currencySymbol: '', currencyCode: '', currencyPosition: '', values: [] }
          : {
              currencySymbol: row.currencySymbol as string,
              currencyCode: row.currencyCode as string,
              currencyPosition: row.currencyPosition as string,
              values: costValues(cost),
            },
        website: locked ? '' : (row.website as string),
        showMap: row.showMap === 1,
        showMapLink: row.showMapLink === 1,
        hideFromListings: row.hideFromListings === 1,
        sticky: row.sticky === 1,
        featured: row.featured === 1,
        ticketed: row.ticketed === 1,
        hasPassword: locked,
        isLocked: locked,
        parentId: row.parentId as number | null,
        categories: eventTerms.filter((term) => term.taxonomy === 'category'),
        tags: eventTerms.filter((term) => term.taxonomy === 'tag'),
        venues: venues.get(id) ?? [],
        organizers: organizers.get(id) ?? [],
      };
      return locked ? blankProtectedEvent(eventToTec(urls, node)) : eventToTec(urls, node);
    });
    const args: [string, unknown][] = [
      ['page', page],
      ['per_page', perPage],
      ['start_date', from],
      ['end_date', to],
      ['status', 'publish'],
    ];
    return { body: { events, ...pageLinks(`${urls.api}/events/`, args, page, pages), total, total_pages: pages }, total, pages };
  }

  const positive = (value: string | null, fallback: number) => (value !== null && /^\d+$/.test(value) && Number(value) >= 1 ? Number(value) : fallback);

  function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://floor');
    const path = url.pathname.replace(/\/+$/, '');
    if (request.method !== 'GET' || path !== listPath) {
      response.writeHead(404, { 'Content-Type': 'application/json; charset=UTF-8' }).end('{"code":"rest_no_route"}');
      return;
    }
    try {
      const page = positive(url.searchParams.get('page'), 1);
      const perPage = Math.min(MAX_PER_PAGE, positive(url.searchParams.get('per_page'), 10));
      const list = listBody(page, perPage);
      if (!list) {
        response.writeHead(404, { 'Content-Type': 'application/json; charset=UTF-8' }).end('{"code":"event-archive-page-not-found"}');
        return;
      }
      response
        .writeHead(200, {
          'Content-Type': 'application/json; charset=UTF-8',
          'X-TEC-Total': String(list.total),
          'X-TEC-TotalPages': String(list.pages),
        })
        .end(htmlSafeJson(list.body));
    } catch (error) {
      console.error('floor: request failed:', error);
      response.writeHead(500, { 'Content-Type': 'application/json; charset=UTF-8' }).end('{"code":"rest_internal_error"}');
    }
  }

  return { handle, listPath, close: () => db.close() };
}

export interface RunningFloor {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Starts the floor on `host:port` (0: a free port). */
export async function startFloor(options: FloorOptions & { port?: number; host?: string }): Promise<RunningFloor> {
  const floor = createFloor(options);
  const server = createServer(floor.handle);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => done());
  });
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    server,
    url,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => {
          floor.close();
          done();
        });
        server.closeIdleConnections();
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const env = process.env;
  if (!env.DATABASE_URL?.startsWith('file:')) {
    console.error('floor: DATABASE_URL must name a SQLite file (file:<path>)');
    process.exit(1);
  }
  const floor = await startFloor({
    databaseUrl: env.DATABASE_URL,
    siteUrl: env.SITE_URL ?? 'http://localhost',
    siteTimezone: env.SITE_TIMEZONE,
    restRoot: env.REST_ROOT,
    port: Number(env.PORT ?? 0),
    host: env.HOST ?? '127.0.0.1',
  });
  console.log(`Floor server on ${floor.url}`);
  const stop = () => floor.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
