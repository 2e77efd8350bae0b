// Events, venues and organizers share one ID space (as posts do on WordPress): the types of those records, and how one
// of them is given another ID.
import type { Db } from '../db/client.js';
import type { RecordType } from './remote.js';

export type PostType = Extract<RecordType, 'event' | 'venue' | 'organizer'>;

export const isPostType = (type: RecordType): type is PostType =>
  type === 'event' || type === 'venue' || type === 'organizer';

/** Changes a record's ID; its links follow (ON UPDATE CASCADE), the database refuses an ID another post has. */
export function rekeyStatement(db: Db, type: PostType, from: number, to: number) {
  const change = { where: { id: from }, data: { id: to }, select: { id: true } };
  if (type === 'event') return db.event.update(change);
  if (type === 'venue') return db.venue.update(change);
  return db.organizer.update(change);
}
