import { randomBytes } from 'node:crypto';
import { GraphQLError } from 'graphql';
import {
  comparePositions,
  currentChangePosition,
  decodePosition,
  encodePosition,
  prunedThrough,
  type ChangePosition,
} from '../../db/change-log.js';
import type { DbTransaction } from '../../db/client.js';
import { permanentSetting } from '../../db/settings.js';
import type { Context } from '../context.js';
import { ErrorCode } from '../errors.js';

/**
 * A change cursor: a place in the change log of one database, opaque to clients (base64url of
 * `<database epoch>:<version>.<seq>`). The epoch is made once per database, so a cursor of another database (or of
 * one restored from a backup taken before the epoch existed) is refused instead of silently skipping changes.
 * Made at start-up (src/server.ts), so that reading the feed never writes.
 */
export const changeCursorEpoch = (db: DbTransaction) => permanentSetting(db, 'change_log_epoch', async () => randomBytes(6).toString('hex'));
const epochOf = (ctx: Context) => changeCursorEpoch(ctx.db);

export async function encodeCursor(ctx: Context, position: ChangePosition): Promise<string> {
  return Buffer.from(`${await epochOf(ctx)}:${encodePosition(position)}`).toString('base64url');
}

/** The client must read everything again: its cursor is unknown here or older than what the log keeps. */
export class ResyncRequiredError extends GraphQLError {
  constructor(reason: 'invalid' | 'expired', next: string) {
    const why = reason === 'expired' ? 'is older than the change log keeps' : 'is not a change cursor of this service';
    super(`The cursor ${why}: read the lists in full again, then follow the changes from \`next\`.`, {
      extensions: { code: ErrorCode.resyncRequired, reason, next },
    });
  }
}

/** The position a client's cursor names, or ResyncRequiredError when it names none this database still has. */
export async function positionOf(ctx: Context, cursor: string): Promise<ChangePosition> {
  const now = await currentChangePosition(ctx.db);
  const decoded = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url') : Buffer.alloc(0);
  // Base64 forgives trailing bits; a cursor that is not exactly as it was handed out is not one.
  const text = decoded.toString('base64url') === cursor ? decoded.toString('latin1') : '';
  const [epoch, stored] = text.split(':');
  const position = stored === undefined ? undefined : decodePosition(stored);
  // A position after now was never handed out: following it would skip the changes in between.
  if (!position || epoch !== (await epochOf(ctx)) || comparePositions(position, now) > 0) {
    throw new ResyncRequiredError('invalid', await encodeCursor(ctx, now));
  }
  const pruned = await prunedThrough(ctx.db);
  if (pruned && comparePositions(position, pruned) < 0) throw new ResyncRequiredError('expired', await encodeCursor(ctx, now));
  return position;
}
