import { roleCan } from '../../auth/capabilities.js';
import {
  canCreatePosts,
  canDeletePost,
  canEditPost,
  permittedStatus,
  type PostLike,
  ForbiddenError,
  refuse,
} from '../access.js';
import type { Context } from '../builder.js';
import { invalidField } from '../errors.js';
import type { PostStatusValue } from './posts.js';

export interface WriteRequest {
  status?: PostStatusValue | null;
  authorId?: number | null;
  image?: string | null;
}

function checkAuthorAndImage(ctx: Context, input: WriteRequest, currentAuthor: number | null): void {
  const user = ctx.viewer.user!;
  if (
    input.authorId != null &&
    input.authorId !== (currentAuthor ?? user.id) &&
    !roleCan(user.role, 'edit_others_posts')
  ) {
    throw new ForbiddenError('NOT_ALLOWED', 'Sorry, you are not allowed to write records as another user.');
  }
  if (input.image && !/^\s*\d+\s*$/.test(input.image)) assertMayGiveImageUrl(ctx, 'image');
}

/** Giving an image by URL (which the service then fetches) needs upload_files; `field` names the input field. */
export function assertMayGiveImageUrl(ctx: Context, field: string): void {
  if (!roleCan(ctx.viewer.user?.role, 'upload_files'))
    throw invalidField(field, 'giving an image by URL needs the upload_files capability');
}

/**
 * May the viewer create this record, and as what: the status is scaled back for users who may not publish
 * (WordPress's rule) and the author defaults to the viewer.
 */
export function authorizeCreate(ctx: Context, input: WriteRequest): { status: PostStatusValue; authorId: number } {
  if (!canCreatePosts(ctx.viewer.user)) refuse(ctx);
  checkAuthorAndImage(ctx, input, null);
  const user = ctx.viewer.user!;
  return { status: permittedStatus(user, input.status ?? undefined, true)!, authorId: input.authorId ?? user.id };
}

/** May the viewer edit this record; answers the status the edit may set (undefined: unchanged). */
export function authorizeUpdate(ctx: Context, current: PostLike, input: WriteRequest): { status?: PostStatusValue } {
  if (!canEditPost(ctx.viewer.user, current)) refuse(ctx);
  checkAuthorAndImage(ctx, input, current.authorId);
  const status = input.status == null ? undefined : permittedStatus(ctx.viewer.user!, input.status, false);
  return status === undefined || status === current.status ? {} : { status };
}

export function authorizeDelete(ctx: Context, current: PostLike): void {
  if (!canDeletePost(ctx.viewer.user, current)) refuse(ctx);
}

/**
 * A write to a record that does not exist: WordPress checks the fallback capability (edit_posts, delete_posts) before
 * answering that it is missing, so only users who write records learn it (401 anonymous, 403 the others).
 */
export function authorizeMissing(ctx: Context): void {
  if (!canCreatePosts(ctx.viewer.user)) refuse(ctx);
}
