import type { Config } from '../config.js';
import { type Db, rawTableName } from './client.js';
import { Prisma } from './generated/prisma/client.js';
import { readOfEventRows } from './request-client.js';

/** What links an event to its venues, organizers and terms: the linked records' IDs, in the order they are shown. */
export interface EventLinks {
  venueIds: number[];
  organizerIds: number[];
  termIds: number[];
}

interface LinkRow {
  kind: 'venue' | 'organizer' | 'term';
  eventId: number | bigint;
  id: number | bigint;
}

/**
 * The links of `eventIds`, by event, in one statement over the three link tables (Prisma reads each table, then each
 * linked table, in a statement of its own: six for a page). Venues and organizers come in the order they were given
 * (position, then ID); terms by name, then ID, in the database's collation, as a Prisma `orderBy` sorts them.
 */
export async function readEventLinks(
  db: Db,
  config: Pick<Config, 'engine' | 'databaseUrl'>,
  eventIds: readonly number[],
): Promise<Map<number, EventLinks>> {
  const table = (name: string) => Prisma.raw(rawTableName(config, name));
  const ids = Prisma.join(eventIds);
  const rows = await readOfEventRows(
    db,
    eventIds,
    (client) => client.$queryRaw<LinkRow[]>`
      SELECT 'venue' AS "kind", "eventId", "venueId" AS "id", "position", NULL AS "name"
        FROM ${table('EventVenue')} WHERE "eventId" IN (${ids})
      UNION ALL
      SELECT 'organizer', "eventId", "organizerId", "position", NULL
        FROM ${table('EventOrganizer')} WHERE "eventId" IN (${ids})
      UNION ALL
      SELECT 'term', link."eventId", link."termId", 0, term."name"
        FROM ${table('EventTerm')} link JOIN ${table('Term')} term ON term."id" = link."termId"
        WHERE link."eventId" IN (${ids})
      ORDER BY 2, 1, 4, 5, 3`,
  );
  const links = new Map<number, EventLinks>(
    eventIds.map((id) => [id, { venueIds: [], organizerIds: [], termIds: [] }]),
  );
  for (const row of rows) {
    const of = links.get(Number(row.eventId))!;
    (row.kind === 'venue' ? of.venueIds : row.kind === 'organizer' ? of.organizerIds : of.termIds).push(Number(row.id));
  }
  return links;
}
