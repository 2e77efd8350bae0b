// An event's venues, organizers and terms, read through the request's DataLoaders: the links of a page's events in
// one statement (src/db/event-links.ts), then each kind of linked record in one. Prisma's relation planning reads a
// link table and its linked table in a statement each, six for a page (it joins them on PostgreSQL only).
import { type EventLinks, readEventLinks } from '../../db/event-links.js';
import type { Organizer, Term, Venue } from '../../db/generated/prisma/client.js';
import { type Context, loaderOf } from '../builder.js';

/** Events whose links one statement reads at most: three IN lists of this many stay far below both engines' limits. */
const MAX_EVENTS_PER_STATEMENT = 1000;

interface LinkedRows {
  venue: Venue;
  organizer: Organizer;
  term: Term;
}

const IDS_OF: Record<keyof LinkedRows, keyof EventLinks> = {
  venue: 'venueIds',
  organizer: 'organizerIds',
  term: 'termIds',
};

/**
 * The records of `model` that event `eventId` links to, in the order they are shown, read with `query` (the selection
 * planned from what the GraphQL fields below ask, which Pothos then finds on the rows).
 */
export function linkedRecordsOf<M extends keyof LinkedRows>(
  ctx: Context,
  eventId: number,
  model: M,
  query: object,
): Promise<Array<LinkedRows[M]>> {
  const load = linksOf(ctx, eventId).then((links) => recordsById(ctx, model, query, links[IDS_OF[model]]));
  return ctx.relationLoads.track(load);
}

/** The links of one event, read with those of every other event the request asks for in the same wave. */
function linksOf(ctx: Context, eventId: number): Promise<EventLinks> {
  return loaderOf<number, EventLinks>(
    ctx,
    'EventLinks',
    async (eventIds) => {
      const links = await readEventLinks(ctx.db, ctx.config, eventIds);
      return eventIds.map((id) => links.get(id)!);
    },
    { maxBatchSize: MAX_EVENTS_PER_STATEMENT },
  ).load(eventId);
}

/**
 * Records of `model` by ID, in the order of `ids` (a record deleted meanwhile is left out), read with every other ID
 * asked for with the same selection in the same wave.
 */
async function recordsById<M extends keyof LinkedRows>(
  ctx: Context,
  model: M,
  query: object,
  ids: number[],
): Promise<Array<LinkedRows[M]>> {
  if (ids.length === 0) return [];
  const loader = loaderOf<number, LinkedRows[M] | null>(ctx, `${model} ${JSON.stringify(query)}`, async (keys) => {
    const delegate = ctx.db[model] as unknown as { findMany(args: object): Promise<Array<LinkedRows[M]>> };
    const rows = await delegate.findMany({ ...query, where: { id: { in: [...keys] } } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return keys.map((key) => byId.get(key) ?? null);
  });
  const rows = await loader.loadMany(ids);
  const failed = rows.find((row) => row instanceof Error);
  if (failed) throw failed;
  return rows.filter((row): row is LinkedRows[M] => row !== null);
}
