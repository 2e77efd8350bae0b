/**
 * `sources add|list|run|remove`: the feeds and sites the calendar imports from (src/import/sources/). As with the
 * other commands, whoever runs these can write the database anyway, so they act without credentials.
 */
import type { Config } from '../config.js';
import { createDb, type Db } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { runSource, SourceBusy, SourceFailure } from '../import/sources/run.js';
import {
  addSource,
  listSources,
  removeSource,
  type RunReport,
  SOURCE_KINDS,
  type SourceKind,
  SourceInputError,
} from '../db/import-sources.js';
import { CliError, parseCommandLine } from './arguments.js';
import { printTable, when } from './users.js';

export const SOURCES_USAGE: Array<[string, string]> = [
  [
    'sources add <url> [--kind ical|site] [--every 1h] [--status draft|publish] [--category NAME]… [--author LOGIN] [--missing trash|keep] [--local-edits overwrite|keep]',
    'import an iCalendar feed or a site now, and on a schedule with --every',
  ],
  ['sources list', 'the sources, with their last and next runs'],
  ['sources run <id>', 'import a source now'],
  ['sources remove <id>', 'stop importing a source (its events stay)'],
];

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `30m`, `1h`, `1d`, or seconds. */
function seconds(text: string): number {
  const match = /^(\d{1,7})([smhd]?)$/.exec(text.trim());
  if (!match) throw new CliError(`--every must be a duration such as 30m, 1h or 1d, got "${text}"`);
  return Number(match[1]) * UNITS[match[2] || 's']!;
}

function sourceId(text: string | undefined, usage: string): number {
  if (!text || !/^\d{1,9}$/.test(text))
    throw new CliError(`<id> must be a source ID (see: sources list); usage: ${usage}`);
  return Number(text);
}

const counts = (report: RunReport) =>
  report.notModified
    ? 'the feed has not changed since the last run'
    : `created ${report.created}, updated ${report.updated}, trashed ${report.trashed}, unchanged ${report.unchanged}, skipped ${report.skipped}, failed ${report.failed}`;

/** A run's counts in a table cell: `+2 ~1 -0 =5 skipped 0 failed 0`. */
const shortCounts = (report: RunReport) =>
  report.notModified
    ? 'not modified'
    : `+${report.created} ~${report.updated} -${report.trashed} =${report.unchanged} skipped ${report.skipped} failed ${report.failed}`;

function kindOf(text: string | undefined): SourceKind | undefined {
  if (text === undefined || (SOURCE_KINDS as readonly string[]).includes(text)) return text as SourceKind | undefined;
  throw new CliError(`--kind must be ${SOURCE_KINDS.join(' or ')}, got "${text}"`);
}

async function runAndTell(db: Db, config: Config, id: number): Promise<void> {
  try {
    const { report, incomplete } = await runSource(db, config, id);
    console.log(`Source ${id}: ${counts(report)}.`);
    for (const problem of report.problems) console.log(`  ${problem.where}: ${problem.reason}`);
    if (incomplete) throw new CliError(`source ${id}: ${incomplete}`);
  } catch (error) {
    if (error instanceof SourceBusy) throw new CliError(error.message);
    if (error instanceof SourceFailure) throw new CliError(`source ${id}: ${error.message}`);
    throw error;
  }
}

export async function runSourcesCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const usage = SOURCES_USAGE.find(
    ([line]) => line.startsWith(`sources ${action} `) || line === `sources ${action}`,
  )?.[0];
  if (!usage)
    throw new CliError(
      `${action ? `unknown command "sources ${action}"` : 'missing a command after "sources"'} (add, list, run, remove)`,
    );
  await migrate(config);
  const db = createDb(config);
  try {
    if (action === 'add') {
      const { positionals, values } = parseCommandLine(
        rest,
        {
          kind: { type: 'string' },
          every: { type: 'string' },
          status: { type: 'string' },
          category: { type: 'string', multiple: true },
          author: { type: 'string' },
          missing: { type: 'string' },
          'local-edits': { type: 'string' },
        },
        usage,
      );
      if (positionals.length !== 1) throw new CliError(`sources add takes one URL; usage: ${usage}`);
      const source = await addSource(db, {
        url: positionals[0]!,
        kind: kindOf(values.kind),
        everySeconds: values.every === undefined ? null : seconds(values.every),
        status: values.status,
        categories: values.category,
        authorLogin: values.author,
        onMissing: values.missing,
        localEdits: values['local-edits'],
        // Run here and now; its next run is set by that run.
        firstRunAt: null,
      }).catch((error: unknown) => {
        if (error instanceof SourceInputError) throw new CliError(error.message);
        throw error;
      });
      console.log(
        `Added source ${source.id}: ${source.url}${source.kind ? ` (${source.kind})` : ''}${source.everySeconds ? `, every ${source.everySeconds} s` : ''}.`,
      );
      await runAndTell(db, config, source.id);
      return;
    }
    const { positionals } = parseCommandLine(rest, {}, usage);
    if (action === 'list') {
      if (positionals.length) throw new CliError(`unexpected argument "${positionals[0]}"; usage: ${usage}`);
      const sources = await listSources(db);
      if (!sources.length) return void console.log('No sources. Add one with: sources add <url>');
      return printTable(
        ['id', 'kind', 'url', 'every', 'last run', 'next run', 'last counts', 'last error'],
        sources.map((source) => [
          String(source.id),
          source.kind ?? '?',
          source.url,
          source.everySeconds ? `${source.everySeconds} s` : 'on demand',
          when(source.lastRunAt, 'never'),
          when(source.nextRunAt, '-'),
          source.lastReport ? shortCounts(JSON.parse(source.lastReport) as RunReport) : '-',
          source.lastError ?? '',
        ]),
      );
    }
    if (positionals.length !== 1) throw new CliError(`usage: ${usage}`);
    const id = sourceId(positionals[0], usage);
    if (action === 'run') {
      await runAndTell(db, config, id);
      return;
    }
    if (!(await removeSource(db, id))) throw new CliError(`there is no source ${id} (see: sources list)`);
    console.log(`Removed source ${id}; the events it imported stay.`);
  } finally {
    await db.$disconnect();
  }
}
