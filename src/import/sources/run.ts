/**
 * One run of an import source (docs/import.md#import-sources), whichever its kind: an iCalendar feed
 * (src/import/ical/run.ts) or a site's REST API (./site.ts). A source whose kind is not known yet is found out by its
 * first run: a URL that answers a calendar is a feed, any other is asked whether it is a site's REST root. The run
 * holds the source's claim, so no other process runs it meanwhile, and records its outcome on the source: its report,
 * or its failure and when to try again (backoff).
 */
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { emptyReport, type RunReport, SourceClaim, type SourceKind } from '../../db/import-sources.js';
import { FeedUnreadable } from '../../ical/read-feed.js';
import { SourceUnavailable } from '../client.js';
import { type FetchedFeed, FeedFailure, fetchFeed, importFeed, type Source } from '../ical/run.js';
import { connectSite, importSiteSource } from './site.js';

/** The longest wait after failures in a row before the next try (a day); the first waits a minute, then doubling. */
const MAX_BACKOFF_MS = 24 * 60 * 60 * 1000;
/** How long a claim lasts unless extended (a third of it at a time, while the run goes on). */
const CLAIM_MS = 60_000;

/** Why a run failed as a whole: nothing could be fetched or read (the text completes "source 3: …"). */
export class SourceFailure extends Error {}

/** Another process is running the source now. */
export class SourceBusy extends Error {}

/**
 * What a run did. `incomplete`: why it is recorded as a failure although it wrote what it could read (a site whose
 * list pages could not all be read: nothing it did not see is trashed, and the next try comes after a backoff).
 */
export interface RunOutcome {
  kind: SourceKind;
  report: RunReport;
  incomplete?: string;
  /** Stopped by the server's shutdown before the end (a site's run stops between records). */
  interrupted?: boolean;
  /** The REST root a site given by its front page named: the source's URL from now on. */
  root?: string;
}

/**
 * Runs source `sourceId` once, now, and records what it did on it. Throws SourceBusy when another process is running
 * it, SourceFailure when it could not be read at all (recorded too). `signal` stops a site's run between records.
 */
export async function runSource(db: Db, config: Config, sourceId: number, signal?: AbortSignal): Promise<RunOutcome> {
  const claim = await SourceClaim.take(db, sourceId, CLAIM_MS);
  if (!claim) {
    if ((await db.importSource.count({ where: { id: sourceId } })) === 0)
      throw new SourceFailure('there is no such source (see: sources list)');
    throw new SourceBusy(`source ${sourceId} is being run by another process; try again when it is done`);
  }
  const startedAt = new Date();
  try {
    // Read once held: what the last run recorded (validators, failures) is final by now.
    const source = await db.importSource.findUniqueOrThrow({ where: { id: sourceId } });
    let outcome: RunOutcome & { validators?: Validators };
    try {
      outcome = await runByKind(db, config, source, signal);
    } catch (error) {
      const failure = asFailure(error, source.kind);
      await recordFailure(db, source, startedAt, failure.message);
      throw failure;
    }
    if (outcome.interrupted) await recordInterrupted(db, source, startedAt, outcome.report);
    else if (outcome.incomplete) await recordFailure(db, source, startedAt, outcome.incomplete, outcome);
    else await recordSuccess(db, source, startedAt, outcome);
    return outcome;
  } finally {
    await claim.release();
  }
}

type Validators = { etag: string | null; lastModified: string | null };

async function runByKind(
  db: Db,
  config: Config,
  source: Source,
  signal: AbortSignal | undefined,
): Promise<RunOutcome & { validators?: Validators }> {
  if (source.kind === 'site')
    return { kind: 'site', ...(await importSiteSource(db, config, source, source.url, signal)) };
  const fetched = await fetchFeed(source, config);
  if (!fetched) return { kind: 'ical', report: emptyReport(true) };
  if (source.kind === null && !isCalendar(fetched)) {
    const root = apiRootOf(fetched);
    const site = await connectSite(config, root ?? source.url).catch((error: unknown) => {
      if (!(error instanceof SourceUnavailable)) throw error;
      throw new SourceFailure(
        `${source.url} is neither an iCalendar feed nor the REST root of a site running The Events Calendar (${error.message})`,
      );
    });
    return { kind: 'site', ...(root ? { root } : {}), ...(await importSiteSource(db, config, source, site, signal)) };
  }
  const validators = { etag: fetched.etag, lastModified: fetched.lastModified };
  return { kind: 'ical', report: await importFeed(db, config, source, fetched.text), validators };
}

/** A calendar by its type, or by its first line (many servers answer `text/plain` or `application/octet-stream`). */
function isCalendar(feed: FetchedFeed): boolean {
  if (feed.contentType?.toLowerCase().startsWith('text/calendar')) return true;
  return /^\uFEFF?\s*BEGIN:VCALENDAR/i.test(feed.text.slice(0, 100));
}

/**
 * The REST root a WordPress page names in its `Link: <…/wp-json/>; rel="https://api.w.org/"` header: a site given by
 * its front page. (REST answers carry the header too, with the root the site believes it has: the URL given wins.)
 */
function apiRootOf(feed: FetchedFeed): string | undefined {
  if (!feed.contentType?.toLowerCase().startsWith('text/html')) return undefined;
  return /<([^>]+)>\s*;\s*rel="https:\/\/api\.w\.org\/"/.exec(feed.links ?? '')?.[1];
}

function asFailure(error: unknown, kind: string | null): SourceFailure {
  if (error instanceof SourceFailure) return error;
  const what = kind === 'ical' ? 'the feed' : kind === 'site' ? 'the site' : 'the URL';
  if (error instanceof FeedUnreadable)
    return new SourceFailure(`${what} ${error.message.replace(/^not an iCalendar feed/, 'is not an iCalendar feed')}`);
  if (error instanceof FeedFailure) return new SourceFailure(`${what} ${error.message}`);
  if (error instanceof SourceUnavailable) return new SourceFailure(error.message);
  throw error;
}

const nextScheduled = (source: Source, from: Date) =>
  source.everySeconds ? new Date(from.getTime() + source.everySeconds * 1000) : null;

async function recordSuccess(
  db: Db,
  source: Source,
  startedAt: Date,
  outcome: RunOutcome & { validators?: Validators },
): Promise<void> {
  await db.importSource.update({
    where: { id: source.id },
    data: {
      kind: outcome.kind,
      ...(outcome.root ? { url: outcome.root } : {}),
      ...(outcome.validators ?? {}),
      lastRunAt: startedAt,
      nextRunAt: nextScheduled(source, startedAt),
      lastError: null,
      failures: 0,
      lastReport: JSON.stringify(outcome.report),
    },
  });
}

/** A failure: its reason, and the next try after a backoff (never later than the schedule's own next run). */
async function recordFailure(
  db: Db,
  source: Source,
  startedAt: Date,
  reason: string,
  partial?: RunOutcome,
): Promise<void> {
  const failures = source.failures + 1;
  const backoff = Math.min(MAX_BACKOFF_MS, 60_000 * 2 ** (failures - 1));
  const every = source.everySeconds ? source.everySeconds * 1000 : Number.POSITIVE_INFINITY;
  await db.importSource.update({
    where: { id: source.id },
    data: {
      ...(partial
        ? {
            kind: partial.kind,
            lastReport: JSON.stringify(partial.report),
            ...(partial.root ? { url: partial.root } : {}),
          }
        : {}),
      lastRunAt: startedAt,
      lastError: reason,
      failures,
      nextRunAt: source.everySeconds ? new Date(startedAt.getTime() + Math.min(backoff, every)) : null,
    },
  });
}

/** A run the server's shutdown stopped: due again at once, for whichever process runs sources next. */
async function recordInterrupted(db: Db, source: Source, startedAt: Date, report: RunReport): Promise<void> {
  await db.importSource.update({
    where: { id: source.id },
    data: {
      lastRunAt: startedAt,
      lastError: 'stopped by a shutdown before the end; the next run finishes it',
      lastReport: JSON.stringify(report),
      nextRunAt: new Date(),
    },
  });
}
