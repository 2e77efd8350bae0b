import type { Role } from '../db/generated/prisma/enums.js';

/**
 * What each WordPress role may do, written once. Posts are events, venues and organizers; terms are categories
 * and tags. The role table of docs/authentication.md is this table.
 */
export const CAPABILITIES = {
  read: 'read published records',
  edit_posts: 'create records and edit own drafts',
  edit_published_posts: 'edit own published records',
  edit_others_posts: "edit other users' records",
  publish_posts: 'publish records',
  delete_posts: 'delete own drafts',
  delete_published_posts: 'delete own published records',
  delete_others_posts: "delete other users' records",
  read_private_posts: 'read private, draft, pending and future records of others',
  manage_terms: 'create, edit and delete categories and tags',
  upload_files: 'give images by URL',
  manage_users: 'manage users and their application passwords',
  manage_webhooks: 'manage webhooks and read their deliveries',
  manage_imports: 'manage the feeds events are imported from',
} as const;

export type Capability = keyof typeof CAPABILITIES;

const AUTHOR: Capability[] = [
  'read',
  'edit_posts',
  'edit_published_posts',
  'publish_posts',
  'delete_posts',
  'delete_published_posts',
  'upload_files',
];
const EDITOR: Capability[] = [
  ...AUTHOR,
  'edit_others_posts',
  'delete_others_posts',
  'read_private_posts',
  'manage_terms',
];

export const ROLE_CAPABILITIES: Record<Role, readonly Capability[]> = {
  administrator: [...EDITOR, 'manage_users', 'manage_webhooks', 'manage_imports'],
  editor: EDITOR,
  author: AUTHOR,
  contributor: ['read', 'edit_posts', 'delete_posts'],
  subscriber: ['read'],
};

export function roleCan(role: Role | null | undefined, capability: Capability): boolean {
  return role ? ROLE_CAPABILITIES[role].includes(capability) : capability === 'read';
}
