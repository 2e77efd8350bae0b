import type { ChangeRecordType } from '../../db/change-log.js';

/** A change as one reader is told of it. */
export interface SeenChange {
  type: ChangeRecordType;
  databaseId: number;
  action: 'created' | 'updated' | 'deleted';
  modifiedAt: Date;
  /** The cursor just after this change: following (or resuming `changed`) from it tells of what came after. */
  cursor: string;
}
