import { CHANGE_RECORD_TYPES, type ChangeRecordType } from '../../db/change-log.js';
import { builder } from '../builder.js';
import type { SeenChange } from './seen-change.js';

/** Where each kind of record is read in REST. */
const REST_ROUTE: Record<ChangeRecordType, string> = {
  event: '/events',
  venue: '/venues',
  organizer: '/organizers',
  category: '/categories',
  tag: '/tags',
};

const NAME: Record<ChangeRecordType, string> = {
  event: 'An event',
  venue: 'A venue',
  organizer: 'An organizer',
  category: 'An event category',
  tag: 'An event tag',
};

/** The kinds of record the change log follows: what a change is about, and what a webhook subscribes to. */
export const ChangeRecordTypeEnum = builder.enumType('ChangeRecordType', {
  description: 'A kind of record whose changes are logged (the change feed, `changed` and webhooks).',
  values: Object.fromEntries(
    CHANGE_RECORD_TYPES.map((type) => [
      type.toUpperCase(),
      { value: type, description: `${NAME[type]} (REST \`${REST_ROUTE[type]}\`).` },
    ]),
  ) as Record<Uppercase<ChangeRecordType>, { value: ChangeRecordType; description: string }>,
});

/** What a change did: in the change feed, `changed` and webhook deliveries. */
export const ChangeActionEnum = builder.enumType('ChangeAction', {
  description: 'What happened to the record, as far as the reader can tell.',
  values: {
    CREATED: { value: 'created', description: 'It was created (and is in the reader’s view): read it.' },
    UPDATED: {
      value: 'updated',
      description: 'It changed, or came into the reader’s view: read it again (an upsert).',
    },
    DELETED: {
      value: 'deleted',
      description:
        'It is gone for this reader: deleted, trashed, or made draft, pending, private or password-protected.',
    },
  } satisfies Record<string, { value: SeenChange['action']; description: string }>,
});
