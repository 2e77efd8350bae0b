import type { PostStatus, Role } from '../db/generated/prisma/enums.js';
import { roleCan } from './capabilities.js';

/** The signed-in user a request acts for, or null for an anonymous reader. */
export interface ViewerUser {
  id: number;
  login: string;
  role: Role;
}

export interface PostLike {
  status: PostStatus;
  authorId: number | null;
}

const PUBLISHED: PostStatus[] = ['publish', 'future', 'private'];
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
  const published = PUBLISHED.includes(post.status);
  if (!isOwn(user, post) && !roleCan(user.role, 'edit_others_posts')) return false;
  return roleCan(user.role, published ? 'edit_published_posts' : 'edit_posts');
}

/** WordPress's delete_post meta capability. */
export function canDeletePost(user: ViewerUser | null, post: PostLike): boolean {
  if (!user) return false;
  const published = PUBLISHED.includes(post.status);
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
  requested: PostStatus | undefined,
  creating: boolean,
): PostStatus | undefined {
  if (roleCan(user.role, 'publish_posts')) return requested ?? (creating ? 'publish' : undefined);
  if (requested === undefined) return creating ? 'draft' : undefined;
  return PUBLISHED.includes(requested) ? 'pending' : requested;
}

/** Statuses a list may show this viewer (others' non-public records only with read_private_posts). */
export function listableStatuses(user: ViewerUser | null): PostStatus[] {
  if (!user) return ['publish'];
  if (roleCan(user.role, 'read_private_posts') || roleCan(user.role, 'edit_posts'))
    return ['publish', 'future', 'draft', 'pending', 'private'];
  return ['publish'];
}
