import { listVisibility } from '../access.js';
import { authorizeCreate } from '../shared/post-permissions.js';
import type { Prisma } from '../../db/generated/prisma/client.js';
import type { DbTransaction } from '../../db/client.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { checkVenueInput, VenueInput, VenueType, type VenueFields } from './index.js';

/** Fields compared for equality when they are given (the name always is). */
const SAME_FIELDS = ['description', 'excerpt', 'city', 'province', 'state', 'stateProvince', 'zip', 'phone'] as const;

/** The words of an address the way TEC's "like" match splits it: letters, digits and hyphens. */
export function addressWords(address: string): string[] {
  return address
    .toLowerCase()
    .split(/[^a-z\d-]+/i)
    .filter((word) => word !== '');
}

/** Whether every word of `wanted` occurs in `stored` (case folded); an empty `wanted` only matches an empty address. */
export function addressLike(stored: string, wanted: string): boolean {
  const words = addressWords(wanted);
  if (words.length === 0) return stored.trim() === '';
  const haystack = stored.toLowerCase();
  return words.every((word) => haystack.includes(word));
}

/**
 * The oldest venue, not in the trash, that a venue created from `input` would duplicate: the same name, the same
 * value of each of description, excerpt, city, province, state, stateProvince, zip and phone that the input gives,
 * and (when given) an address containing every word of the input's address. This is TEC's duplicate avoidance.
 */
export function duplicateVenueWhere(input: VenueFields): Prisma.VenueWhereInput {
  const where: Prisma.VenueWhereInput = { name: input.name?.trim() ?? '', status: { not: 'trash' } };
  for (const field of SAME_FIELDS) {
    const value = input[field];
    if (value != null) (where as Record<string, unknown>)[field] = value;
  }
  return where;
}

/** The ID of the oldest venue the viewer may read that a venue created from `input` would duplicate, or null. */
export async function duplicateVenueId(ctx: Context, db: DbTransaction, input: VenueFields): Promise<number | null> {
  const candidates = await db.venue.findMany({
    // Only records the viewer may read count: others' unpublished ones must not be answered to those who may not see them.
    where: { AND: [duplicateVenueWhere(input), listVisibility(ctx, undefined, 'input').condition] },
    select: { id: true, address: true },
    orderBy: { id: 'asc' },
  });
  const wanted = input.address;
  return candidates.find((venue) => wanted == null || addressLike(venue.address, wanted))?.id ?? null;
}

builder.queryFields((t) => ({
  matchingVenue: t.prismaField({
    type: VenueType,
    nullable: true,
    description:
      'The existing venue that creating one from this input would duplicate, or null. The input is checked as createVenue ' +
      'checks it. A venue matches when it is not in the trash, has the same name, the same value of each of description, ' +
      'excerpt, city, province, state, stateProvince, zip and phone the input gives, and an address that contains every ' +
      'word of the address the input gives (an empty address only matches an empty one). The oldest match wins.',
    args: { input: t.arg({ type: VenueInput, required: true, description: 'The venue you are about to create, as `createVenue` would take it.' }) },
    resolve: async (query, _root, args, ctx) => {
      await checkVenueInput(ctx, args.input, true);
      // Asking what a create would duplicate is part of creating: the same right is needed.
      authorizeCreate(ctx, args.input);
      const id = await duplicateVenueId(ctx, ctx.db, args.input);
      return id === null ? null : ctx.db.venue.findUnique({ ...query, where: { id } });
    },
  }),
}));
