import {
  comparePositions,
  currentChangePosition,
  prunedThrough,
  readChangesAfter,
  type ChangeRecordType,
} from '../../db/change-log.js';
import { builder, type Context } from '../builder.js';
import { invalidField } from '../errors.js';
import { NodeInterface, type NodeTypeName, readNodeOf } from '../shared/node.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../shared/page-size.js';
import { encodeCursor, positionOf, ResyncRequiredError } from './cursor.js';
import { ChangeActionEnum, ChangeRecordTypeEnum } from './record-type.js';
import type { SeenChange } from './seen-change.js';
import { asSeenBy, withEmbeddingEvents } from './visibility.js';

// Incremental sync: the change feed (`changes`) and its live form (`changed`, over Server-Sent Events), both read
// from the change log the database triggers write (src/db/change-log.ts), each reader seeing only what they may read.

/** The GraphQL type each kind of record is, whose global IDs `nodeId` gives. */
const NODE_TYPE_OF: Record<ChangeRecordType, NodeTypeName> = {
  event: 'Event',
  venue: 'Venue',
  organizer: 'Organizer',
  category: 'EventCategory',
  tag: 'EventTag',
};

const ChangeType = builder.objectRef<SeenChange>('Change').implement({
  description:
    'A change of one record since the cursor, as the reader sees it (several changes of a record in one page are one).',
  fields: (t) => ({
    type: t.field({ type: ChangeRecordTypeEnum, description: 'The kind of record.', resolve: (change) => change.type }),
    databaseId: t.int({ description: 'The record’s database ID (REST `id`).', resolve: (change) => change.databaseId }),
    nodeId: t.globalID({
      description:
        'The record’s global ID, the `id` its own type answers: what a normalising client cache evicts or refetches ' +
        '(`node(id:)`) by. Kept for a deleted record too.',
      resolve: (change) => ({ type: NODE_TYPE_OF[change.type], id: change.databaseId }),
    }),
    node: t.field({
      type: NodeInterface,
      nullable: true,
      description:
        'The record as it is now, read with its type’s own visibility; null when the change is `DELETED` (or the ' +
        'record went away since). The reads of a page’s records are batched (a statement per type, not per change).',
      resolve: (change, _args, ctx, info) =>
        change.action === 'deleted' ? null : readNodeOf(ctx, info, NODE_TYPE_OF[change.type], change.databaseId),
    }),
    action: t.field({
      type: ChangeActionEnum,
      description: 'What happened to it, for this reader.',
      resolve: (change) => change.action,
    }),
    modifiedAt: t.field({
      type: 'DateTime',
      description: 'When the change was committed (REST `modified_utc`).',
      resolve: (change) => change.modifiedAt,
    }),
    cursor: t.string({
      description:
        'The cursor just after this change: `changes(since:)` or `changed(after:)` from it tells of what came after. In ' +
        '`changed`, the same as the Server-Sent Event’s `id` (and so EventSource’s `Last-Event-ID`).',
      resolve: (change) => change.cursor,
    }),
  }),
});

interface ChangePage {
  nodes: SeenChange[];
  next: string;
  more: boolean;
}

const ChangeConnectionType = builder.objectRef<ChangePage>('ChangeConnection').implement({
  description: 'A page of the change feed, in commit order.',
  fields: (t) => ({
    nodes: t.field({
      type: [ChangeType],
      description: 'The changes of this page, oldest first.',
      resolve: (page) => page.nodes,
    }),
    next: t.string({
      description:
        'The cursor to ask with next time (`since`); keep it only once the changes of this page are applied.',
      resolve: (page) => page.next,
    }),
    more: t.boolean({
      description: 'Whether more changes follow at once: ask again with `next` before waiting.',
      resolve: (page) => page.more,
    }),
  }),
});

/** One page of changes after the cursor `since`; without one, an empty page and the cursor of now. */
async function readFeed(ctx: Context, since: string | null | undefined, first: number): Promise<ChangePage> {
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE)
    throw invalidField('first', `must be from 1 to ${MAX_PAGE_SIZE}`);
  if (since == null)
    return { nodes: [], next: await encodeCursor(ctx, await currentChangePosition(ctx.db)), more: false };
  const from = await positionOf(ctx, since);
  const entries = await readChangesAfter(ctx.db, from, first + 1);
  // Pruned while reading: what was read may lack entries the cursor should have seen.
  const pruned = await prunedThrough(ctx.db);
  if (pruned && comparePositions(from, pruned) < 0)
    throw new ResyncRequiredError('expired', await encodeCursor(ctx, await currentChangePosition(ctx.db)));
  const page = entries.slice(0, first);
  const told = await withEmbeddingEvents(ctx, page);
  return {
    nodes: await asSeenBy(ctx, told.entries, told.inView),
    next: await encodeCursor(ctx, page.at(-1) ?? from),
    more: entries.length > first,
  };
}

builder.queryField('changes', (t) =>
  t.field({
    type: ChangeConnectionType,
    description:
      'What changed since a cursor, for incremental sync: start without `since` (an empty page and a cursor), read the ' +
      'lists in full, then ask with `next` from time to time. A record out of the reader’s view appears as `DELETED`. An ' +
      'update of a venue, organizer or term is also an `UPDATED` of each event that embeds it, in the same page (which ' +
      'may so hold more than `first` records). An ' +
      'unknown or expired cursor (older than the retention, CHANGES_RETENTION_DAYS) fails with code `RESYNC_REQUIRED` and ' +
      'a fresh cursor in `extensions.next`: read everything again.',
    args: {
      since: t.arg.string({ description: 'The `next` of the previous page; left out: start from now.' }),
      first: t.arg.int({
        defaultValue: DEFAULT_PAGE_SIZE,
        description: `At most this many changes, 1 to ${MAX_PAGE_SIZE}.`,
      }),
    },
    resolve: (_root, args, ctx) => readFeed(ctx, args.since, args.first ?? DEFAULT_PAGE_SIZE),
  }),
);

builder.subscriptionType({ description: 'Live notifications, over Server-Sent Events (`Accept: text/event-stream`).' });

builder.subscriptionField('changed', (t) =>
  t.field({
    type: ChangeType,
    description:
      'Each change committed after subscribing (or after `after`), once, in commit order, whichever server process made ' +
      'it, as the subscriber sees it (as in `changes`, but one by one: a record changed twice is told of twice). Each ' +
      'Server-Sent Event carries the change’s `cursor` as its `id`; a stream the server ends without `complete` ' +
      '(shutting down, a subscriber too far behind, a changed role) is to be opened again from the last cursor received ' +
      '(`after`, or the `Last-Event-ID` header, which EventSource sends by itself): nothing is lost or told twice. A ' +
      'client address may hold SUBSCRIPTIONS_PER_CLIENT streams and a process SUBSCRIPTIONS_PER_PROCESS; past either, ' +
      'the subscription is refused with code `TOO_MANY_SUBSCRIPTIONS` (HTTP 429 or 503, with Retry-After).',
    args: {
      types: t.arg({
        type: [ChangeRecordTypeEnum],
        description: 'Only changes of these kinds; every kind when left out or empty.',
      }),
      after: t.arg.string({
        description:
          'Resume: every change after this cursor (a `cursor` this subscription told of, or a `next` of `changes`) is ' +
          'told of first, then the live ones. The `Last-Event-ID` header, when sent, takes its place. An unknown or ' +
          'expired cursor fails with code `RESYNC_REQUIRED`, as in `changes`.',
      }),
    },
    subscribe: async (_root, args, ctx) => {
      if (!ctx.changes) throw new Error('change notifications are not available in this context');
      return ctx.changes.open(ctx, (args.types ?? []) as ChangeRecordType[], args.after ?? undefined);
    },
    resolve: (change) => change,
  }),
);
