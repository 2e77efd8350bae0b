import { listVisibility } from '../access.js';
import type { Context } from '../builder.js';
import { equalTextCandidates, foldAsciiCase } from './search.js';

// The Events Calendar avoids duplicate venues and organizers (Tribe__Duplicate__Post with its "same" and "like"
// strategies): creating one that matches an existing record answers that record instead. One rule per type, one
// implementation for POST /venues, POST /organizers, createVenue/createOrganizer with reuseDuplicate and the venues and
// organizers created inline with an event.

/** Which fields make two records the same: the name always; the others only when the new record gives them. */
export interface DuplicateRule {
  /** Fields equal, ASCII letters case-insensitively (as MySQL's default collation, which the original compares under). */
  same: readonly string[];
  /** A field whose stored value must contain every word of the given one (TEC's "like" match), if any. */
  words?: string;
}

/** The words of a value the way TEC's "like" match splits it: runs of letters, digits and hyphens, case folded. */
export function matchWords(value: string): string[] {
  return foldAsciiCase(value)
    .split(/[^\p{L}\p{N}-]+/u)
    .filter((word) => word !== '');
}

/** Whether every word of `wanted` occurs in `stored`; a `wanted` without words only matches an empty value. */
export function containsWords(stored: string, wanted: string): boolean {
  const words = matchWords(wanted);
  if (words.length === 0) return stored.trim() === '';
  const haystack = foldAsciiCase(stored);
  return words.every((word) => haystack.includes(word));
}

const sameText = (stored: unknown, wanted: unknown) =>
  foldAsciiCase(String(stored ?? '').trim()) === foldAsciiCase(String(wanted).trim());

/** What a duplicate must match, in words, for the schema's descriptions. */
export function describeDuplicateRule(rule: DuplicateRule): string {
  const words = rule.words
    ? `, and its ${rule.words} contains every word of the ${rule.words} the input gives (an empty one only matches an empty one)`
    : '';
  const same = `${rule.same.slice(0, -1).join(', ')} and ${rule.same.at(-1)}`;
  return `it is not in the trash and has the same name and the same value of each of ${same} that the input gives (ASCII letters in any case)${words}`;
}

interface Candidates {
  findMany(args: object): Promise<Array<Record<string, unknown>>>;
}

/**
 * The ID of the oldest record the viewer may read that a record created from `input` would duplicate, or null. Only
 * records the viewer may read count: others' unpublished ones must not be answered to those who may not see them.
 */
export async function findDuplicateId(
  ctx: Context,
  delegate: Candidates,
  rule: DuplicateRule,
  input: Record<string, unknown>,
): Promise<number | null> {
  const name = String(input.name ?? '').trim();
  const given = rule.same.filter((field) => input[field] != null);
  const select: Record<string, true> = { id: true, name: true };
  for (const field of [...given, ...(rule.words ? [rule.words] : [])]) select[field] = true;
  const rows = await delegate.findMany({
    where: {
      AND: [
        equalTextCandidates(ctx.config.engine, 'name', name),
        { status: { not: 'trash' } },
        listVisibility(ctx, undefined, 'input').condition,
      ],
    },
    select,
    orderBy: { id: 'asc' },
  });
  const wantedWords = rule.words ? input[rule.words] : undefined;
  const match = rows.find(
    (row) =>
      sameText(row.name, name) &&
      given.every((field) => sameText(row[field], input[field])) &&
      (wantedWords == null || containsWords(String(row[rule.words!] ?? ''), String(wantedWords))),
  );
  return match ? (match.id as number) : null;
}
