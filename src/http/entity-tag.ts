import { createHash } from 'node:crypto';
import { CONTENT_CODINGS } from './content-coding.js';

/** A strong entity tag naming `body`: equal bytes give equal tags, whatever request produced them. */
export function entityTagOf(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** The tag of the same representation sent with a content coding: `"abc"` → `"abc-br"`. */
export function codedEntityTag(tag: string, coding: string): string {
  return `${tag.slice(0, -1)}-${coding}"`;
}

/** The tags of one content in every coding: a client holding any of them holds the same content. */
export const tagsOfEveryCoding = (tag: string) => [
  tag,
  ...CONTENT_CODINGS.map((coding) => codedEntityTag(tag, coding)),
];

const opaque = (tag: string) => tag.replace(/^W\//, '');

/**
 * Which of `ours` If-None-Match names (weak comparison, RFC 9110 §13.1.2): the first listed tag that is one of ours,
 * `*` for any, or null when none is.
 */
export function matchedEntityTag(ifNoneMatch: string, ours: readonly string[]): string | null {
  if (ifNoneMatch.trim() === '*') return ours[0] ?? null;
  for (const tag of ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? []) {
    const found = ours.find((our) => opaque(our) === opaque(tag));
    if (found) return found;
  }
  return null;
}
