/**
 * `import <REST root>`: the command-line face of src/import. The password comes from CALENDAR_IMPORT_PASSWORD
 * (or --password, which shell history and `ps` can see); it is never printed.
 */
import type { Config } from '../config.js';
import { SourceUnavailable } from '../import/client.js';
import { consoleProgress } from '../import/progress.js';
import { ImportRefused, runImport } from '../import/run.js';
import { formatSummary } from '../import/summary.js';
import { CliError, parseCommandLine } from './arguments.js';

const USAGE =
  'import <rest-root> [--namespace NS] [--user LOGIN] [--author LOGIN] [--retries N] [--per-page N] [--keep-ids]';

const HELP = `usage: npm run cli -- ${USAGE}

Copies the events, venues, organizers, categories and tags of a site running The Events Calendar (or another
instance of this service) into this one. Running it again updates what changed and finishes a stopped run.

  <rest-root>        the site's REST root, e.g. https://example.org/wp-json/
  --namespace NS     tribe/events/v1 or calendar/events/v1 (default: whichever the site answers)
  --user LOGIN       sign in with a WordPress application password, to import drafts and private records too;
                     the password comes from CALENDAR_IMPORT_PASSWORD (or --password, visible in shell history)
  --author LOGIN     local user the imported records are attributed to (default: importer)
  --retries N        retries of a request that failed on the network, 429 or 5xx (default 5)
  --per-page N       records per request, 1 to 50 (default 50)
  --keep-ids         give new copies of events, venues and organizers the IDs they have on the source (copies made
                     by an earlier run keep theirs); refused before anything is written when one of those IDs is
                     already an event's, venue's or organizer's here

Exit status: 0 all imported, 2 finished but some records failed (listed), 130 interrupted, 1 could not start.`;

/** Exit statuses: everything imported; finished, but some records failed; stopped by a signal. */
export const EXIT = { ok: 0, someFailed: 2, interrupted: 130 } as const;

function wholeNumber(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new CliError(`--${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

function readArgs(args: string[]) {
  const { positionals, values } = parseCommandLine(
    args,
    {
      namespace: { type: 'string' },
      user: { type: 'string' },
      password: { type: 'string' },
      author: { type: 'string' },
      retries: { type: 'string' },
      'per-page': { type: 'string' },
      'keep-ids': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    USAGE,
  );
  if (values.help) return null;
  if (positionals.length !== 1) throw new CliError(`usage: ${USAGE}`);
  const user = values.user ?? process.env.CALENDAR_IMPORT_USER;
  const password = values.password ?? process.env.CALENDAR_IMPORT_PASSWORD;
  delete process.env.CALENDAR_IMPORT_PASSWORD;
  if (user !== undefined && password === undefined)
    throw new CliError(`--user ${user} needs a password: set CALENDAR_IMPORT_PASSWORD (or give --password)`);
  if (password !== undefined && user === undefined)
    throw new CliError('a password was given without --user (or CALENDAR_IMPORT_USER)');
  return {
    root: positionals[0]!,
    namespace: values.namespace,
    user,
    password,
    author: values.author,
    retries: wholeNumber('retries', values.retries, 0, 20),
    perPage: wholeNumber('per-page', values['per-page'], 1, 50),
    keepIds: values['keep-ids'] ?? false,
  };
}

/** Runs the command; answers the exit status. */
export async function runImportCommand(config: Config, args: string[]): Promise<number> {
  const options = readArgs(args);
  if (!options) {
    console.log(HELP);
    return EXIT.ok;
  }
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(EXIT.interrupted);
    console.error('Stopping after the current record (again to stop at once)…');
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const summary = await runImport(config, { ...options, progress: consoleProgress(), signal: stop.signal });
    console.log(formatSummary(summary));
    if (summary.interrupted) return EXIT.interrupted;
    return summary.failures.length > 0 ? EXIT.someFailed : EXIT.ok;
  } catch (error) {
    if (error instanceof SourceUnavailable || error instanceof ImportRefused) throw new CliError(error.message);
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
