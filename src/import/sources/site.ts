/**
 * A site as a scheduled source (docs/import.md#import-sources): the importer of `import` (src/import/run.ts) run
 * anonymously within the server's outgoing rules, with the source's rules (its author, status and categories for the
 * events it writes; events the site no longer answers trashed or kept; records edited here kept or overwritten), its
 * summary told as a source's run report.
 */
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { RunReport } from '../../db/import-sources.js';
import { SourceClient } from '../client.js';
import type { Source } from '../ical/run.js';
import type { Outcome } from '../progress.js';
import { RECORD_TYPES } from '../remote.js';
import { type ImportSummary, importSite, type SourceRules } from '../run.js';

/** Tries of one request: the scheduler tries the whole run again later anyway. */
const RETRIES = 2;

/** The site at `root`, read as the server reads feeds: its address rules, time and size limits. */
export function connectSite(config: Config, root: string): Promise<SourceClient> {
  return SourceClient.connect({
    root,
    retries: RETRIES,
    timeoutMs: config.feeds.timeoutMs,
    outbound: { allowPrivate: config.feeds.allowPrivate, maxBytes: config.feeds.maxBytes },
  });
}

function rulesOf(source: Source): SourceRules {
  return {
    ...(source.authorId !== null ? { authorId: source.authorId } : {}),
    eventStatus: source.eventStatus === 'draft' ? 'DRAFT' : 'PUBLISH',
    extraCategories: source.categories.split(',').filter(Boolean),
    missingEvents: source.onMissing === 'keep' ? 'keep' : 'trash',
    localEdits: source.localEdits === 'keep' ? 'keep' : 'overwrite',
  };
}

/** Imports the site (given connected, or by its REST root); SourceUnavailable when it cannot be read at all. */
export async function importSiteSource(
  db: Db,
  config: Config,
  source: Source,
  site: SourceClient | string,
  signal: AbortSignal | undefined,
): Promise<{ report: RunReport; incomplete?: string; interrupted: boolean }> {
  const client = typeof site === 'string' ? await connectSite(config, site) : site;
  const summary = await importSite(db, config, client, { root: client.key, signal }, rulesOf(source));
  return {
    report: reportOf(summary),
    interrupted: summary.interrupted,
    ...(summary.unreadPages.length > 0 ? { incomplete: incompleteReason(summary.unreadPages) } : {}),
  };
}

/** Why a run that could not read every list page failed (each page is among the report's problems). */
function incompleteReason(pages: ImportSummary['unreadPages']): string {
  const [first] = pages;
  return `the site did not answer ${pages.length} list page(s), first ${first!.what} (${first!.reason}); nothing it did not list was trashed`;
}

function reportOf(summary: ImportSummary): RunReport {
  const total = (outcome: Outcome) => RECORD_TYPES.reduce((sum, type) => sum + summary.counts[type][outcome], 0);
  return {
    notModified: false,
    created: total('created'),
    updated: total('updated'),
    trashed: total('trashed'),
    unchanged: total('unchanged'),
    skipped: total('kept'),
    failed: total('failed'),
    problems: [
      ...summary.failures.map(({ what, reason }) => ({ where: what, reason })),
      ...summary.kept.map(({ what, reason }) => ({ where: what, reason })),
      ...summary.missing.map(({ what, reason }) => ({
        where: what,
        reason: `no longer on the site (kept here): ${reason}`,
      })),
    ],
  };
}
