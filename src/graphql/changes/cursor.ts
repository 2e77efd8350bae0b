import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
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
import type { Context } from '../builder.js';
import { ErrorCode } from '../errors.js';

/**
 * A change cursor: a place in the change log of one database, opaque to clients (base64url of
 * `<database epoch>:<version>.<seq>:<signature>`). The epoch is made once per database, so a cursor of another
 * database (or of one restored from a backup taken before the epoch existed) is refused instead of silently skipping
 * changes. The signature (HMAC-SHA-256 under a key kept in the database, cut to 16 bytes) makes every cursor the
 * service did not hand out, however well-formed (`<epoch>:0.0`), one it refuses. Both are made at start-up
 * (src/server.ts), so that reading the feed never writes.
 */
export async function prepareChangeCursors(db: DbTransaction): Promise<void> {
  await changeCursorEpoch(db);
  await changeCursorKey(db);
}

const changeCursorEpoch = (db: DbTransaction) =>
  permanentSetting(db, 'change_log_epoch', async () => randomBytes(6).toString('hex'));
const changeCursorKey = async (db: DbTransaction) =>
  Buffer.from(
    await permanentSetting(db, 'change_cursor_key', async () => randomBytes(32).toString('base64url')),
    'base64url',
  );

const SIGNATURE_BYTES = 16;
/** The decoded cursor, exactly: the epoch, the position as encodePosition writes it, the signature of both. */
const CURSOR_TEXT = /^([0-9a-f]{1,64}):([0-9]{1,18}\.[0-9]{1,10}):([A-Za-z0-9_-]{22})$/;

const signatureOf = (key: Buffer, signed: string) =>
  createHmac('sha256', key).update(signed).digest().subarray(0, SIGNATURE_BYTES);

/** The cursor of a position; `ctx` only lends its database client (a request's, or the process's for live streams). */
export async function encodeCursor(ctx: Pick<Context, 'db'>, position: ChangePosition): Promise<string> {
  const signed = `${await changeCursorEpoch(ctx.db)}:${encodePosition(position)}`;
  return Buffer.from(`${signed}:${signatureOf(await changeCursorKey(ctx.db), signed).toString('base64url')}`).toString(
    'base64url',
  );
}

/** The position a cursor names, if it is exactly one this database handed out; undefined otherwise. */
async function signedPosition(ctx: Context, cursor: string): Promise<ChangePosition | undefined> {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined;
  const decoded = Buffer.from(cursor, 'base64url');
  // Base64 forgives trailing bits; a cursor that is not exactly as it was handed out is not one.
  if (decoded.toString('base64url') !== cursor) return undefined;
  const [, epoch, position, signature] = CURSOR_TEXT.exec(decoded.toString('latin1')) ?? [];
  if (!epoch || !position || !signature || epoch !== (await changeCursorEpoch(ctx.db))) return undefined;
  const expected = signatureOf(await changeCursorKey(ctx.db), `${epoch}:${position}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return decodePosition(position);
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
  const position = await signedPosition(ctx, cursor);
  // A position after now was never handed out here (a database restored from a backup): following it would skip
  // the changes in between.
  if (!position || comparePositions(position, now) > 0) {
    throw new ResyncRequiredError('invalid', await encodeCursor(ctx, now));
  }
  const pruned = await prunedThrough(ctx.db);
  if (pruned && comparePositions(position, pruned) < 0)
    throw new ResyncRequiredError('expired', await encodeCursor(ctx, now));
  return position;
}
