import type { PostStatus } from './operations/generated/graphql.js';

export const POST_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const;
export type RestPostStatus = (typeof POST_STATUSES)[number];

/** REST writes statuses as WordPress does (`publish`); GraphQL names its enum values in capitals (`PUBLISH`). */
export const graphqlStatus = (status: string): PostStatus => status.toUpperCase() as PostStatus;
export const restStatus = (status: PostStatus): RestPostStatus => status.toLowerCase() as RestPostStatus;
