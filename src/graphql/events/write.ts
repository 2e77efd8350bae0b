import type { DbTransaction } from '../../db/client.js';
import type { Prisma } from '../../db/generated/prisma/client.js';
import type { Context } from '../builder.js';
import { imageIdForWrite } from '../media/index.js';
import { organizerModel, type OrganizerFields } from '../organizers/index.js';
import {
  insertLinkedPost,
  insertUnlessDuplicate,
  type CheckedLinkedPost,
  type LinkedPostFields,
  type LinkedPostModel,
} from '../shared/linked-post-api.js';
import { modifiedNow, newPostDates } from '../shared/posts.js';
import { slugClashFilter, slugFromText, withFreeSlug } from '../shared/slugs.js';
import { termIdsForWrite } from '../terms/references.js';
import { venueModel, type VenueFields } from '../venues/index.js';
import { SERIES_TRANSACTION } from './series.js';
import type { CheckedEvent, EventFields, LinkPlan, OrganizerCheck, VenueCheck } from './input.js';

async function takenEventSlugs(db: DbTransaction, base: string, exceptId?: number) {
  const rows = await db.event.findMany({
    where: { ...slugClashFilter(base), NOT: exceptId ? { id: exceptId } : undefined },
    select: { slug: true },
  });
  return rows.map((row) => row.slug);
}

async function linkIds<Check, Fields>(
  plan: LinkPlan<Check, Fields>,
  insert: (input: Fields, checked: Check, reuseDuplicate: boolean) => Promise<number>,
) {
  const ids: number[] = [];
  for (const link of plan) {
    const id = 'id' in link ? link.id : await insert(link.input, link.checked, link.reuseDuplicate);
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** A venue or organizer brought along by an event: created, or (`reuseDuplicate`) an existing one like it. */
async function newLinkedPost<Fields extends LinkedPostFields>(
  model: LinkedPostModel<Fields>,
  ctx: Context,
  tx: DbTransaction,
  input: Fields,
  checked: CheckedLinkedPost,
  reuseDuplicate: boolean,
): Promise<number> {
  return reuseDuplicate
    ? insertUnlessDuplicate(model, ctx, tx, input, checked)
    : (await insertLinkedPost(model, ctx, tx, input, checked)).id;
}

/** Replaces the links the input names (venues, organizers, categories, tags); links not named stay. */
async function writeLinks(ctx: Context, tx: DbTransaction, eventId: number, checked: CheckedEvent) {
  if (checked.venues) {
    const ids = await linkIds<VenueCheck, VenueFields>(checked.venues, (input, c, reuse) =>
      newLinkedPost(venueModel, ctx, tx, input, c, reuse),
    );
    await tx.eventVenue.deleteMany({ where: { eventId } });
    await tx.eventVenue.createMany({ data: ids.map((venueId, position) => ({ eventId, venueId, position })) });
  }
  if (checked.organizers) {
    const ids = await linkIds<OrganizerCheck, OrganizerFields>(checked.organizers, (input, c, reuse) =>
      newLinkedPost(organizerModel, ctx, tx, input, c, reuse),
    );
    await tx.eventOrganizer.deleteMany({ where: { eventId } });
    await tx.eventOrganizer.createMany({
      data: ids.map((organizerId, position) => ({ eventId, organizerId, position })),
    });
  }
  for (const [assignment, taxonomy] of [
    [checked.categories, 'category'],
    [checked.tags, 'tag'],
  ] as const) {
    if (!assignment) continue;
    const ids = await termIdsForWrite(tx, taxonomy, assignment);
    await tx.eventTerm.deleteMany({ where: { eventId, term: { taxonomy } } });
    await tx.eventTerm.createMany({ data: [...new Set(ids)].map((termId) => ({ eventId, termId })) });
  }
}

/** Work done in the write's transaction after the event row and its links (a series materialises its occurrences). */
export type AfterWrite = (tx: DbTransaction, id: number) => Promise<void>;

interface WriteOptions {
  afterWrite?: AfterWrite;
  /** Columns the new event takes where the input gives none (a series split off another takes its fields). */
  base?: Partial<Prisma.EventUncheckedCreateInput>;
}

export async function insertEvent(
  ctx: Context,
  input: EventFields,
  checked: CheckedEvent,
  { afterWrite, base = {} }: WriteOptions = {},
): Promise<number> {
  return withFreeSlug(
    slugFromText(input.slug ?? input.title!),
    (base) => takenEventSlugs(ctx.db, base),
    (slug) =>
      ctx.db.$transaction(
        async (tx) => {
          const imageId = await imageIdForWrite(tx, checked.image);
          const { publishedAt: _p, publishedLocal: _l, ...columns } = checked.columns;
          const event = await tx.event.create({
            data: {
              ...base,
              ...(columns as Prisma.EventUncheckedCreateInput),
              slug,
              imageId: imageId === undefined ? (base.imageId ?? null) : imageId,
              ...newPostDates(
                ctx,
                checked.columns.publishedAt
                  ? { publishedAt: checked.columns.publishedAt, publishedLocal: checked.columns.publishedLocal! }
                  : undefined,
              ),
            },
            select: { id: true },
          });
          await writeLinks(ctx, tx, event.id, checked);
          await afterWrite?.(tx, event.id);
          return event.id;
        },
        afterWrite ? SERIES_TRANSACTION : undefined,
      ),
  );
}

export async function updateEvent(
  ctx: Context,
  id: number,
  currentSlug: string,
  input: EventFields,
  checked: CheckedEvent,
  { afterWrite }: WriteOptions = {},
) {
  const write = (slug: string | undefined) =>
    ctx.db.$transaction(
      async (tx) => {
        const imageId = await imageIdForWrite(tx, checked.image);
        // The event row first: on PostgreSQL its row lock makes a concurrent update of this event wait until this one
        // commits before it replaces the links, so the links always belong to the same write as the columns.
        await tx.event.update({
          where: { id },
          data: {
            ...(checked.columns as Prisma.EventUncheckedUpdateInput),
            ...(slug ? { slug } : {}),
            ...(imageId === undefined ? {} : { imageId }),
            ...modifiedNow(ctx),
          },
        });
        await writeLinks(ctx, tx, id, checked);
        await afterWrite?.(tx, id);
      },
      afterWrite ? SERIES_TRANSACTION : undefined,
    );
  const base = input.slug ? slugFromText(input.slug) : null;
  if (!base || base === currentSlug) return write(undefined);
  return withFreeSlug(base, (b) => takenEventSlugs(ctx.db, b, id), write);
}
