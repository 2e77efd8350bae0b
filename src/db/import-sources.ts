/**
 * Import sources (docs/import.md#icalendar-feeds): made, listed, asked to run and removed, from the CLI and GraphQL;
 * run by src/import/ical/.
 */
import type { Db } from './client.js';

/** What one run of a source did (kept as JSON in `ImportSource.lastReport`). */
export interface RunReport {
  /** The feed answered 304: nothing to do. */
  notModified: boolean;
  created: number;
  updated: number;
  trashed: number;
  unchanged: number;
  skipped: number;
  failed: number;
  /** What was not imported, and why (a line of the feed, `event <UID>`, a property): the feed's and refused writes. */
  problems: Array<{ where: string; reason: string }>;
}

/** Why a source's settings were refused: the text names the setting. */
export class SourceInputError extends Error {}

export interface SourceInput {
  url: string;
  everySeconds?: number | null;
  status?: string;
  categories?: string[];
  authorLogin?: string;
  onMissing?: string;
  localEdits?: string;
  /** When the server's scheduler is to run it first: now (GraphQL), or null when the caller runs it itself (CLI). */
  firstRunAt: Date | null;
}

/** The shortest schedule: a feed is not asked more often than this. */
export const SHORTEST_EVERY_SECONDS = 300;

function checkedUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new SourceInputError(`the URL "${text}" is not an absolute URL`);
  }
  if (!['http:', 'https:', 'webcal:', 'webcals:'].includes(url.protocol))
    throw new SourceInputError(`the URL "${text}" must use http, https or webcal`);
  if (url.username || url.password) throw new SourceInputError('the URL must not hold a user name or password');
  return url.href;
}

function oneOf(name: string, value: string | undefined, allowed: string[], fallback: string): string {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) throw new SourceInputError(`${name} must be ${allowed.join(' or ')}, got "${value}"`);
  return value;
}

export async function addSource(db: Db, input: SourceInput) {
  const url = checkedUrl(input.url);
  const every = input.everySeconds ?? null;
  if (every !== null && (!Number.isInteger(every) || every < SHORTEST_EVERY_SECONDS))
    throw new SourceInputError(`--every must be at least ${SHORTEST_EVERY_SECONDS / 60} minutes`);
  let authorId: number | null = null;
  if (input.authorLogin !== undefined) {
    const author = await db.user.findUnique({ where: { login: input.authorLogin }, select: { id: true } });
    if (!author) throw new SourceInputError(`--author: there is no user "${input.authorLogin}"`);
    authorId = author.id;
  }
  const categories = (input.categories ?? []).map((name) => name.trim()).filter(Boolean);
  if (categories.some((name) => name.includes(',')))
    throw new SourceInputError('--category takes one name (give it again for another)');
  return db.importSource.create({
    data: {
      url,
      everySeconds: every,
      eventStatus: oneOf('--status', input.status, ['publish', 'draft'], 'publish'),
      categories: categories.join(','),
      authorId,
      onMissing: oneOf('--missing', input.onMissing, ['trash', 'keep'], 'trash'),
      localEdits: oneOf('--local-edits', input.localEdits, ['overwrite', 'keep'], 'overwrite'),
      nextRunAt: input.firstRunAt,
    },
  });
}

export const listSources = (db: Db) => db.importSource.findMany({ orderBy: { id: 'asc' } });

/** Asks the server's scheduler to run a source at once (within FEED_CHECK_MS); false when there is none. */
export async function runSourceSoon(db: Db, id: number): Promise<boolean> {
  const { count } = await db.importSource.updateMany({ where: { id }, data: { nextRunAt: new Date() } });
  return count > 0;
}

/** Removes a source; the events it imported stay (they are the calendar's now). */
export async function removeSource(db: Db, id: number): Promise<boolean> {
  const { count } = await db.importSource.deleteMany({ where: { id } });
  return count > 0;
}
