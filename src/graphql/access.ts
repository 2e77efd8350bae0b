import { timingSafeEqual } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { roleCan, type Capability } from '../auth/capabilities.js';
import type { Context, ViewerUser } from './builder.js';
import { ErrorCode, invalidField, RateLimitedError } from './errors.js';
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
  if (ctx.offeredPasswords.length === 0) return true;
  const matched = ctx.offeredPasswords.some((offered) => samePassword(offered, post.password));
  ctx.passwordGuesses?.compared(matched);
  return !matched;
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

/**
 * canReadPost as a database condition: published records for everyone; the others for readers of private posts, and
 * for their own author when that author writes records.
 */
export function readableWhere(ctx: Context): object {
  const user = ctx.viewer.user;
  if (!user) return { status: 'publish' };
  if (roleCan(user.role, 'read_private_posts')) return {};
  if (!roleCan(user.role, 'edit_posts')) return { status: 'publish' };
  return { OR: [{ status: 'publish' }, { authorId: user.id }] };
}

const PUBLISHED_STATUSES: PostStatusValue[] = ['publish', 'future', 'private'];

/**
 * canEditPost as database conditions, all of which a record the viewer may edit meets: none when the viewer may edit
 * every record, null when none.
 */
function editableConditions(user: ViewerUser | null): object[] | null {
  if (!user || !roleCan(user.role, 'edit_posts')) return null;
  const conditions: object[] = [];
  if (!roleCan(user.role, 'edit_others_posts')) conditions.push({ authorId: user.id });
  if (!roleCan(user.role, 'edit_published_posts')) conditions.push({ status: { notIn: PUBLISHED_STATUSES } });
  return conditions;
}

/**
 * isLocked as a database condition: the records whose protected content this request may read (no password, the
 * right password offered, or editable by the viewer). A search over protected fields is limited to these, so that
 * matching is no oracle on content the viewer is not shown.
 */
export function unlockedWhere(ctx: Context): object {
  const editable = editableConditions(ctx.viewer.user);
  // (An empty AND inside an OR is false to Prisma: a viewer who may edit everything gets no condition at all.)
  if (editable?.length === 0) return {};
  return {
    OR: [
      { password: '' },
      ...(ctx.offeredPasswords.length ? [{ password: { in: ctx.offeredPasswords } }] : []),
      ...(editable ? [{ AND: editable }] : []),
    ],
  };
}

/**
 * Remembers a `password` argument for the fields resolved after it; refuses it (RATE_LIMITED) when the client has
 * guessed wrong too often lately (src/read/request-contexts.ts).
 */
export function offerPassword(ctx: Context, password: string | null | undefined): void {
  if (!password) return;
  const wait = ctx.passwordGuesses?.offer() ?? 0;
  if (wait > 0)
    throw new RateLimitedError(`Too many wrong passwords from this address. Try again in ${wait} seconds.`, wait);
  ctx.offeredPasswords.push(password);
}

const ALL_STATUSES: PostStatusValue[] = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];
const ANY_STATUS: PostStatusValue[] = ['publish', 'future', 'draft', 'pending', 'private'];

/**
 * Whether the viewer may list records in statuses other than published (drafts, pending, private, trash; REST's
 * `any`): users who write records. The one statement of the rule: GraphQL's `statuses` filters (listVisibility) and
 * REST's `status` parameter (src/rest/params.ts) both ask it.
 */
export function mayListOtherStatuses(user: ViewerUser | null): boolean {
  return !!user && roleCan(user.role, 'edit_posts');
}

/**
 * Which statuses a list may show this viewer, and the condition that keeps others' unpublished records out for
 * users who may not read them. Anonymous readers and subscribers see published records only and may not ask for
 * others (refused naming `field`); users who write records default to every status but trash (WordPress's `any`).
 */
export function listVisibility(ctx: Context, requested: readonly PostStatusValue[] | null | undefined, field: string) {
  const user = ctx.viewer.user;
  const writer = mayListOtherStatuses(user);
  const allowed = writer ? ALL_STATUSES : ['publish'];
  const refused = (requested ?? []).filter((status) => !allowed.includes(status));
  if (refused.length) throw invalidField(field, `not allowed to list ${refused.join(', ')} records`);
  const statuses = requested?.length ? [...requested] : writer ? ANY_STATUS : ['publish' as const];
  const ownOnly = writer && !roleCan(user!.role, 'read_private_posts');
  const condition = ownOnly ? { OR: [{ status: 'publish' as const }, { authorId: user!.id }] } : {};
  return { statuses, condition };
}

// WordPress's capabilities of posts (its meta capabilities read_post, edit_post, delete_post), for one viewer and
// one record.

export interface PostLike {
  status: PostStatusValue;
  authorId: number | null;
}

const isOwn = (user: ViewerUser, post: PostLike) => post.authorId === user.id;

/** WordPress's read_post: published records for everyone; others for their author or for readers of private posts. */
export function canReadPost(user: ViewerUser | null, post: PostLike): boolean {
  if (post.status === 'publish') return true;
  if (!user) return false;
  if (roleCan(user.role, 'read_private_posts')) return true;
  return isOwn(user, post) && roleCan(user.role, 'edit_posts');
}

/** WordPress's edit_post meta capability. */
export function canEditPost(user: ViewerUser | null, post: PostLike): boolean {
  if (!user) return false;
  const published = PUBLISHED_STATUSES.includes(post.status);
  if (!isOwn(user, post) && !roleCan(user.role, 'edit_others_posts')) return false;
  return roleCan(user.role, published ? 'edit_published_posts' : 'edit_posts');
}

/** WordPress's delete_post meta capability. */
export function canDeletePost(user: ViewerUser | null, post: PostLike): boolean {
  if (!user) return false;
  const published = PUBLISHED_STATUSES.includes(post.status);
  if (!isOwn(user, post) && !roleCan(user.role, 'delete_others_posts')) return false;
  return roleCan(user.role, published ? 'delete_published_posts' : 'delete_posts');
}

export function canCreatePosts(user: ViewerUser | null): boolean {
  return !!user && roleCan(user.role, 'edit_posts');
}

export function canManageTerms(user: ViewerUser | null): boolean {
  return !!user && roleCan(user.role, 'edit_posts') && roleCan(user.role, 'manage_terms');
}

/**
 * The status a write may set: users who may publish get what they ask for; others get `pending` instead of
 * `publish`/`future`/`private`, and `draft` when they ask for nothing (WordPress's scale-back).
 */
export function permittedStatus(
  user: ViewerUser,
  requested: PostStatusValue | undefined,
  creating: boolean,
): PostStatusValue | undefined {
  if (roleCan(user.role, 'publish_posts')) return requested ?? (creating ? 'publish' : undefined);
  if (requested === undefined) return creating ? 'draft' : undefined;
  return PUBLISHED_STATUSES.includes(requested) ? 'pending' : requested;
}
