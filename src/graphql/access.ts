import { timingSafeEqual } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { roleCan, type Capability } from '../auth/capabilities.js';
import { canEditPost, canReadPost, type PostLike, type ViewerUser } from '../auth/permissions.js';
import type { Context } from './context.js';
import { ErrorCode, invalidField } from './errors.js';
import type { PostStatusValue } from './shared/posts.js';

/** Why a record is withheld; the REST layer turns each into the original's error code. */
export type ForbiddenReason = 'NOT_ACCESSIBLE' | 'NO_LONGER_AVAILABLE' | 'NOT_ALLOWED';

export class UnauthenticatedError extends GraphQLError {
  constructor() {
    super('Sign in to do that.', { extensions: { code: ErrorCode.unauthenticated } });
  }
}

export class ForbiddenError extends GraphQLError {
  constructor(reason: ForbiddenReason = 'NOT_ALLOWED', message = 'Sorry, you are not allowed to do that.') {
    super(message, { extensions: { code: ErrorCode.forbidden, reason } });
  }
}

/** Refuses the operation: 401-like for anonymous callers, 403-like for signed-in users. */
export function refuse(ctx: Context): never {
  throw ctx.viewer.user ? new ForbiddenError() : new UnauthenticatedError();
}

export function requireCapability(ctx: Context, capability: Capability): ViewerUser {
  const user = ctx.viewer.user;
  if (!user || !roleCan(user.role, capability)) refuse(ctx);
  return user;
}

export interface ProtectedPost extends PostLike {
  password: string;
}

function samePassword(offered: string, stored: string): boolean {
  const a = Buffer.from(offered);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a password-protected record's content is withheld from this request: it is unless the viewer may edit
 * the record or the request offered the right password.
 */
export function isLocked(ctx: Context, post: ProtectedPost): boolean {
  if (post.password === '') return false;
  if (canEditPost(ctx.viewer.user, post)) return false;
  return !ctx.offeredPasswords.some((offered) => samePassword(offered, post.password));
}

/** A single read: trashed records are gone for readers who may not edit them; unpublished ones need read_post. */
export function assertReadable(ctx: Context, post: PostLike): void {
  if (post.status === 'trash' && !canEditPost(ctx.viewer.user, post)) throw new ForbiddenError('NO_LONGER_AVAILABLE');
  if (!canReadPost(ctx.viewer.user, post)) throw new ForbiddenError('NOT_ACCESSIBLE');
}

/**
 * The linked venues or organizers of an event that the viewer may read. Embedding a record is reading it: a draft,
 * pending or private one is left out for whoever could not read it by its own route, on every path that embeds one
 * (REST single events and lists, the iCalendar feeds, GraphQL). Password-protected ones stay, their content withheld
 * where they are shown (`isLocked`).
 */
export function readableLinkedPosts<P extends PostLike>(ctx: Context, linked: P[]): P[] {
  return linked.filter((post) => post.status !== 'trash' && canReadPost(ctx.viewer.user, post));
}

/** Remembers a `password` argument for the fields resolved after it. */
export function offerPassword(ctx: Context, password: string | null | undefined): void {
  if (password) ctx.offeredPasswords.push(password);
}

const ALL_STATUSES: PostStatusValue[] = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];
const ANY_STATUS: PostStatusValue[] = ['publish', 'future', 'draft', 'pending', 'private'];

/**
 * Which statuses a list may show this viewer, and the condition that keeps others' unpublished records out for
 * users who may not read them. Anonymous readers and subscribers see published records only and may not ask for
 * others (refused naming `field`); users who write records default to every status but trash (WordPress's `any`).
 */
export function listVisibility(ctx: Context, requested: readonly PostStatusValue[] | null | undefined, field: string) {
  const user = ctx.viewer.user;
  const writer = !!user && roleCan(user.role, 'edit_posts');
  const allowed = writer ? ALL_STATUSES : ['publish'];
  const refused = (requested ?? []).filter((status) => !allowed.includes(status));
  if (refused.length) throw invalidField(field, `not allowed to list ${refused.join(', ')} records`);
  const statuses = requested?.length ? [...requested] : writer ? ANY_STATUS : ['publish' as const];
  const ownOnly = writer && !roleCan(user!.role, 'read_private_posts');
  const condition = ownOnly ? { OR: [{ status: 'publish' as const }, { authorId: user!.id }] } : {};
  return { statuses, condition };
}
