// "This and following": an update of an occurrence with scope FOLLOWING ends its series before it and starts a new
// series there, as calendar clients do. The occurrences from that start on move to the new series with their IDs, in
// steps (series-tasks.ts).
import type { DbTransaction } from '../../db/client.js';
import type { Event, Prisma } from '../../db/generated/prisma/client.js';
import { builder, type Context } from '../builder.js';
import { authorizeUpdate } from '../shared/post-permissions.js';
import { checkEventInput, type EventFields } from './input.js';
import { recurrenceColumns } from './columns.js';
import { occurrenceTimes } from '../../time/occurrence-times.js';
import { copiedColumns, splitRecurrence } from './series.js';
import { bringSeriesInLine, defaultReach, markSeriesWritten } from './series-sync.js';
import { queueSeriesMove } from './series-tasks.js';
import { insertEvent } from './write.js';

export const EventScopeEnum = builder.enumType('EventUpdateScope', {
  description: 'Which events of a recurring series an update of one of its occurrences changes.',
  values: {
    THIS: { description: 'Only this occurrence; it becomes an exception that later series edits leave alone.' },
    FOLLOWING: {
      description:
        'This occurrence and those after it: the series ends before it (UNTIL) and a new series starts at it with the changes.',
    },
    ALL: { description: 'The whole series (the same as updating the series itself).' },
  },
});

export const SCOPE_DESCRIPTION =
  'For an occurrence of a recurring series: which events the update changes. THIS when left out; ignored for other events.';

/** The master's links of the kinds the input does not name, copied to the new series. */
async function copyUnnamedLinks(tx: DbTransaction, from: number, to: number, input: EventFields) {
  if (input.venues == null) {
    const rows = await tx.eventVenue.findMany({ where: { eventId: from } });
    await tx.eventVenue.createMany({ data: rows.map((row) => ({ ...row, eventId: to })) });
  }
  if (input.organizers == null) {
    const rows = await tx.eventOrganizer.findMany({ where: { eventId: from } });
    await tx.eventOrganizer.createMany({ data: rows.map((row) => ({ ...row, eventId: to })) });
  }
  const taxonomies = (['category', 'tag'] as const).filter(
    (taxonomy) => (taxonomy === 'category' ? input.categories : input.tags) == null,
  );
  if (taxonomies.length) {
    const rows = await tx.eventTerm.findMany({ where: { eventId: from, term: { taxonomy: { in: taxonomies } } } });
    await tx.eventTerm.createMany({ data: rows.map((row) => ({ ...row, eventId: to })) });
  }
}

/** Splits the occurrence's series at it; answers the new series' master ID. */
export async function splitSeries(ctx: Context, occurrence: Event, input: EventFields): Promise<number> {
  const master = await ctx.db.event.findUniqueOrThrow({ where: { id: occurrence.recurringEventId! } });
  const splitLocal = occurrence.originalStartLocal!;
  const { before, after } = splitRecurrence(master, splitLocal);
  const start = {
    ...master,
    ...occurrenceTimes(master, splitLocal),
    recurringEventId: null,
    ...recurrenceColumns(after),
  };
  const checked = await checkEventInput(ctx, { ...input, recurrence: input.recurrence ?? after }, start);
  const { status: _requested, ...columns } = checked.columns;
  const allowed = authorizeUpdate(ctx, occurrence, input);
  const { publishedAt, publishedLocal, ...base } = copiedColumns(master);
  const reach = defaultReach(ctx);
  const id = await insertEvent(
    ctx,
    { ...input, slug: input.slug ?? master.slug },
    {
      ...checked,
      columns: { ...occurrenceTimes(master, splitLocal), ...columns, ...allowed, publishedAt, publishedLocal },
    },
    {
      base: base as Partial<Prisma.EventUncheckedCreateInput>,
      afterWrite: async (tx, id) => {
        await copyUnnamedLinks(tx, master.id, id, input);
        // The occurrences from the split on move to the new series in steps, before its sync (series-tasks.ts).
        await queueSeriesMove(tx, master.id, id, occurrence.originalStartsAt!);
        // The series keeps the occurrences before the split, all of its rule now (UNTIL): they exist already.
        await tx.event.update({
          where: { id: master.id },
          data: { ...recurrenceColumns(before), materializedUntil: null },
        });
        await markSeriesWritten(tx, id, reach);
      },
    },
  );
  await bringSeriesInLine(ctx, id);
  return id;
}
