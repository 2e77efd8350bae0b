/**
 * Import sources (docs/import.md#import-sources): made, listed, asked to run and removed, from the CLI and GraphQL;
 * run by src/import/sources/, one process at a time per source (a claim, below).
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

export const emptyReport = (notModified: boolean): RunReport => ({
  notModified,
  created: 0,
  updated: 0,
  trashed: 0,
  unchanged: 0,
  skipped: 0,
  failed: 0,
  problems: [],
});

/** Why a source's settings were refused: the text names the setting. */
export class SourceInputError extends Error {}

/** An iCalendar feed, or a site's REST API (The Events Calendar's, or this service's). */
export const SOURCE_KINDS = ['ical', 'site'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export interface SourceInput {
  url: string;
  /** Left out: the first run finds out. */
  kind?: SourceKind;
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

/** `webcal://` is how calendar links name an http(s) feed; it is fetched over https. */
export const fetchedUrl = (url: string) => url.replace(/^webcals?:\/\//i, 'https://');

function checkedUrl(text: string, kind: SourceKind | undefined): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new SourceInputError(`the URL "${text}" is not an absolute URL`);
  }
  if (!['http:', 'https:', 'webcal:', 'webcals:'].includes(url.protocol))
    throw new SourceInputError(`the URL "${text}" must use http, https or webcal`);
  if (url.username || url.password) throw new SourceInputError('the URL must not hold a user name or password');
  if (kind === 'site' && url.protocol.startsWith('webcal'))
    throw new SourceInputError(
      'a site is read over http or https: give its REST root, e.g. https://example.org/wp-json/',
    );
  return url.href;
}

/** A URL without its scheme: webcal://, http:// and https:// name one feed on one host. */
const schemeless = (url: string) => url.replace(/^[a-z]+:\/\//i, '');

/** Two sources of one feed would import its events twice: each URL (whatever its scheme) is one source. */
async function refuseTwin(db: Db, url: string): Promise<void> {
  const twin = (await db.importSource.findMany({ select: { id: true, url: true } })).find(
    (source) => schemeless(source.url) === schemeless(url),
  );
  if (twin) throw new SourceInputError(`source ${twin.id} imports ${twin.url} already`);
}

function oneOf(name: string, value: string | undefined, allowed: string[], fallback: string): string {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) throw new SourceInputError(`${name} must be ${allowed.join(' or ')}, got "${value}"`);
  return value;
}

export async function addSource(db: Db, input: SourceInput) {
  const url = checkedUrl(input.url, input.kind);
  await refuseTwin(db, url);
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
      kind: input.kind ?? null,
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

/**
 * One process's hold on a source while it runs it, so that no other runs it at the same time (the scheduler of
 * another process, `sources run`): taken when the source is free or its holder's time has passed, extended while
 * the run goes on (a run may outlast any fixed time), given up at its end. Each step is one conditional statement.
 */
export class SourceClaim {
  private timer?: NodeJS.Timeout;
  private extending: Promise<void> = Promise.resolve();

  private constructor(
    private readonly db: Db,
    readonly sourceId: number,
    private until: Date,
    private readonly holdMs: number,
  ) {}

  /** The claim, or null when another process holds the source. */
  static async take(db: Db, sourceId: number, holdMs: number): Promise<SourceClaim | null> {
    const now = new Date();
    const until = new Date(now.getTime() + holdMs);
    const { count } = await db.importSource.updateMany({
      where: { id: sourceId, OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }] },
      data: { claimedUntil: until },
    });
    if (count === 0) return null;
    const claim = new SourceClaim(db, sourceId, until, holdMs);
    claim.timer = setInterval(() => {
      claim.extending = claim.extending.then(() => claim.extend());
    }, holdMs / 3).unref();
    return claim;
  }

  /** Moves the end on, unless another process took the source over meanwhile (this one was stalled past the end). */
  private async extend(): Promise<void> {
    const until = new Date(Date.now() + this.holdMs);
    const { count } = await this.db.importSource
      .updateMany({ where: { id: this.sourceId, claimedUntil: this.until }, data: { claimedUntil: until } })
      .catch(() => ({ count: 0 }));
    if (count > 0) this.until = until;
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.extending;
    await this.db.importSource.updateMany({
      where: { id: this.sourceId, claimedUntil: this.until },
      data: { claimedUntil: null },
    });
  }
}
