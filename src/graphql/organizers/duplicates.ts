import { listVisibility } from '../access.js';
import { authorizeCreate } from '../shared/post-permissions.js';
import type { Prisma } from '../../db/generated/prisma/client.js';
import type { DbTransaction } from '../../db/client.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { checkOrganizerInput, OrganizerInput, OrganizerType, type OrganizerFields } from './index.js';

/** Fields compared for equality when they are given (the name always is). */
const SAME_FIELDS = ['description', 'excerpt', 'phone', 'email', 'website'] as const;

/**
 * Organizers, not in the trash, that an organizer created from `input` would duplicate: the same name and the same
 * value of each of description, excerpt, phone, email and website that the input gives (TEC's duplicate avoidance).
 */
export function duplicateOrganizerWhere(input: OrganizerFields): Prisma.OrganizerWhereInput {
  const where: Prisma.OrganizerWhereInput = { name: input.name?.trim() ?? '', status: { not: 'trash' } };
  for (const field of SAME_FIELDS) {
    const value = input[field];
    if (value != null) (where as Record<string, unknown>)[field] = value;
  }
  return where;
}

/** The ID of the oldest organizer the viewer may read that one created from `input` would duplicate, or null. */
export async function duplicateOrganizerId(ctx: Context, db: DbTransaction, input: OrganizerFields): Promise<number | null> {
  // Only records the viewer may read count: others' unpublished ones must not be answered to those who may not see them.
  const { condition } = listVisibility(ctx, undefined, 'input');
  const found = await db.organizer.findFirst({ where: { AND: [duplicateOrganizerWhere(input), condition] }, orderBy: { id: 'asc' }, select: { id: true } });
  return found?.id ?? null;
}

builder.queryFields((t) => ({
  matchingOrganizer: t.prismaField({
    type: OrganizerType,
    nullable: true,
    description:
      'The existing organizer that creating one from this input would duplicate, or null. The input is checked as ' +
      'createOrganizer checks it. An organizer matches when it is not in the trash, has the same name and the same value ' +
      'of each of description, excerpt, phone, email and website the input gives. The oldest match wins.',
    args: { input: t.arg({ type: OrganizerInput, required: true, description: 'The organizer you are about to create, as `createOrganizer` would take it.' }) },
    resolve: async (query, _root, args, ctx) => {
      await checkOrganizerInput(ctx, args.input, true);
      // Asking what a create would duplicate is part of creating: the same right is needed.
      authorizeCreate(ctx, args.input);
      const id = await duplicateOrganizerId(ctx, ctx.db, args.input);
      return id === null ? null : ctx.db.organizer.findUnique({ ...query, where: { id } });
    },
  }),
}));
