/**
 * The floor of the benchmark: a lower bound for the service's default REST events list (page, per_page, every
 * relation) with the same bytes. node:http and better-sqlite3 prepared statements on the same database file doing
 * what the service's database work cannot avoid: read the data version (one row) and remember the list total per
 * data version and window, as the service does; walk the listing index `Event_listing_idx` in list order and stop
 * after the page, with the same conditions the service sends (src/graphql/events/filter.ts, order.ts); then the
 * relations in three IN-list statements (venues, organizers, terms with their kept counts), and a hand-written
 * serializer (bench/floor-json.ts) into one Buffer. No GraphQL, no Prisma, no router, no date library per field.
 *
 * Answers GET /<REST_ROOT>/calendar/events/v1/events with `page` and `per_page` (the default date window, published
 * events, an anonymous reader); everything else is a 404.
 *
 *   DATABASE_URL=file:bench.db SITE_URL=http://calendar.bench PORT=0 npx tsx bench/floor.ts
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { DateTime } from 'luxon';
import { loadConfig } from '../src/config.js';
import { htmlSafeJson } from '../src/content/html.js';
import { MAX_PER_PAGE, pageLinks, totalPages } from '../src/rest/params.js';
import { restUrls } from '../src/urls.js';
import { endOfDayWallClock, startOfDayWallClock } from '../src/time/dates.js';
import { floorJson, type Row } from './floor-json.js';

export interface FloorOptions {
  /** `file:<path>` of the SQLite database (as DATABASE_URL). */
  databaseUrl: string;
  siteUrl: string;
  siteTimezone?: string;
  restRoot?: string;
}

/** Statements the floor sends for one list request once its total is remembered: version, page, venues, organizers, terms. */
export const FLOOR_STATEMENTS = 5;

const IN_IDS = `IN (SELECT value FROM json_each(?))`;
/** The service's list conditions (the whole-day window, and the `startsAt` bound it implies: zones lie within UTC+14). */
const LISTED = `e.hideFromListings = 0 AND e.isSeriesMaster = 0 AND e.status = 'publish' AND e.startLocal >= ? AND e.startsAt >= ? AND e.endLocal <= ?`;
const LATEST_OFFSET_MS = 14 * 3_600_000;

/** The default window of the events list (today to two years on, whole days in the site zone), recomputed each minute. */
function defaultWindow(siteTimezone: string) {
  let minute = -1;
  let window = { from: '', to: '', earliest: '' };
  return () => {
    const now = Math.floor(Date.now() / 60_000);
    if (now !== minute) {
      minute = now;
      const today = DateTime.now().setZone(siteTimezone);
      const from = startOfDayWallClock(today);
      const earliest = new Date(Date.parse(`${from.replace(' ', 'T')}Z`) - LATEST_OFFSET_MS).toISOString();
      window = { from, to: endOfDayWallClock(today.plus({ years: 2 })), earliest };
    }
    return window;
  };
}

const grouped = (rows: Row[]) => {
  const byEvent = new Map<number, Row[]>();
  for (const row of rows) {
    const id = row.eventId as number;
    const list = byEvent.get(id);
    if (list) list.push(row);
    else byEvent.set(id, [row]);
  }
  return byEvent;
};

/** The floor's request handler and its database; `close` closes the database. */
export function createFloor(options: FloorOptions) {
  const config = loadConfig({
    DATABASE_URL: options.databaseUrl,
    SITE_URL: options.siteUrl,
    SITE_TIMEZONE: options.siteTimezone ?? 'UTC',
    REST_ROOT: options.restRoot ?? 'wp-json',
  });
  const urls = restUrls(config);
  const json = floorJson(urls, config.defaultCurrency);
  const listPath = `/${config.restRoot}/calendar/events/v1/events`;
  const window = defaultWindow(config.siteTimezone);
  const db = new Database(resolve(config.databaseUrl.replace(/^file:/, '').replace(/\?.*$/, '')), {
    fileMustExist: true,
    timeout: 5000,
  });

  const dataVersion = db.prepare('SELECT "version" FROM "DataVersion" WHERE "id" = 1').pluck().safeIntegers();
  const countEvents = db.prepare(`SELECT count(*) FROM Event e WHERE ${LISTED}`).pluck();
  const pageOfEvents = db.prepare(
    `SELECT e.*, m.url AS imageUrl, m.mimeType AS imageMime, m.width AS imageWidth, m.height AS imageHeight, m.filesize AS imageFilesize FROM Event e LEFT JOIN Media m ON m.id = e.imageId
     WHERE ${LISTED} ORDER BY e.startsAt ASC, e.id ASC LIMIT ? OFFSET ?`,
  );
  const venuesOf = db.prepare(
    `SELECT l.eventId, v.*, m.url AS imageUrl, m.mimeType AS imageMime, m.width AS imageWidth, m.height AS imageHeight, m.filesize AS imageFilesize FROM EventVenue l JOIN Venue v ON v.id = l.venueId LEFT JOIN Media m ON m.id = v.imageId
     WHERE l.eventId ${IN_IDS} ORDER BY l.eventId, l.position, l.venueId`,
  );
  const organizersOf = db.prepare(
    `SELECT l.eventId, o.*, m.url AS imageUrl, m.mimeType AS imageMime, m.width AS imageWidth, m.height AS imageHeight, m.filesize AS imageFilesize FROM EventOrganizer l JOIN Organizer o ON o.id = l.organizerId LEFT JOIN Media m ON m.id = o.imageId
     WHERE l.eventId ${IN_IDS} ORDER BY l.eventId, l.position, l.organizerId`,
  );
  const termsOf = db.prepare(
    `SELECT l.eventId, t.id, t.taxonomy, t.name, t.slug, t.description, t.parentId, t.eventCount FROM EventTerm l JOIN Term t ON t.id = l.termId
     WHERE l.eventId ${IN_IDS} ORDER BY l.eventId, t.name, t.id`,
  );

  /** List totals remembered per window while the data version stays the same (as the service remembers them). */
  let totalsVersion: bigint | undefined;
  const totals = new Map<string, number>();
  const total = (from: string, earliest: string, to: string) => {
    const version = dataVersion.get() as bigint;
    if (version !== totalsVersion) {
      totals.clear();
      totalsVersion = version;
    }
    const key = `${from}|${to}`;
    let count = totals.get(key);
    if (count === undefined) totals.set(key, (count = countEvents.get(from, earliest, to) as number));
    return count;
  };

  /** The body of the events list, page `page` of `perPage`, in the default window of today; null past the last page. */
  function listBody(page: number, perPage: number) {
    const { from, to, earliest } = window();
    const count = total(from, earliest, to);
    const pages = totalPages(count, perPage);
    if (page > 1 && page > pages) return null;
    const rows = pageOfEvents.all(from, earliest, to, perPage, (page - 1) * perPage) as Row[];
    const ids = JSON.stringify(rows.filter((row) => row.password === '').map((row) => row.id));
    const events = json.events(rows, {
      venues: grouped(venuesOf.all(ids) as Row[]),
      organizers: grouped(organizersOf.all(ids) as Row[]),
      terms: grouped(termsOf.all(ids) as Row[]),
    });
    const args: [string, unknown][] = [
      ['page', page],
      ['per_page', perPage],
      ['start_date', from],
      ['end_date', to],
      ['status', 'publish'],
    ];
    const links = htmlSafeJson(pageLinks(`${urls.api}/events/`, args, page, pages)).slice(1, -1);
    return {
      body: Buffer.from(`{"events":${events},${links},"total":${count},"total_pages":${pages}}`),
      total: count,
      pages,
    };
  }

  const positive = (value: string | null, fallback: number) =>
    value !== null && /^\d+$/.test(value) && Number(value) >= 1 ? Number(value) : fallback;

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
        response
          .writeHead(404, { 'Content-Type': 'application/json; charset=UTF-8' })
          .end('{"code":"event-archive-page-not-found"}');
        return;
      }
      response
        .writeHead(200, {
          'Content-Type': 'application/json; charset=UTF-8',
          'Content-Length': list.body.length,
          'X-TEC-Total': String(list.total),
          'X-TEC-TotalPages': String(list.pages),
        })
        .end(list.body);
    } catch (error) {
      console.error('floor: request failed:', error);
      response
        .writeHead(500, { 'Content-Type': 'application/json; charset=UTF-8' })
        .end('{"code":"rest_internal_error"}');
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
