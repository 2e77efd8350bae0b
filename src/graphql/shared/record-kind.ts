import { builder } from '../builder.js';
import { isStorableId } from './ids.js';
import { isSeriesBeingDeleted } from '../events/series-tasks.js';

/**
 * Events, venues and organizers share one ID space, as WordPress posts do (database triggers keep it so, see the
 * shared_post_ids migration): an ID names at most one record of the three kinds.
 */
export const RecordKindEnum = builder.enumType('RecordKind', {
  description: 'The kind of record a database ID names: events, venues and organizers share one ID space.',
  values: {
    EVENT: { value: 'event', description: 'An event.' },
    VENUE: { value: 'venue', description: 'A venue.' },
    ORGANIZER: { value: 'organizer', description: 'An organizer.' },
  },
});

builder.queryFields((t) => ({
  recordKind: t.field({
    type: RecordKindEnum,
    nullable: true,
    description:
      'Which kind of record has this database ID, whatever its status, or null when none has it. It tells "not an ' +
      'event" from "no such record", as the REST API does (a venue\'s ID read as an event is a 400, an unused one a 404). ' +
      'A series whose deletion is under way (its occurrences go first) has none.',
    args: { id: t.arg.int({ required: true, description: 'A database ID of an event, venue or organizer.' }) },
    resolve: async (_root, args, ctx) => {
      if (!isStorableId(args.id)) return null;
      const where = { where: { id: args.id }, select: { id: true } };
      const [event, venue, organizer] = await Promise.all([
        ctx.db.event.findUnique(where),
        ctx.db.venue.findUnique(where),
        ctx.db.organizer.findUnique(where),
      ]);
      return event
        ? (await isSeriesBeingDeleted(ctx.db, args.id))
          ? null
          : 'event'
        : venue
          ? 'venue'
          : organizer
            ? 'organizer'
            : null;
    },
  }),
}));
