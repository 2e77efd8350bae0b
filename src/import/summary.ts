import { PLURAL, type Counts } from './progress.js';
import { RECORD_TYPES } from './remote.js';
import type { ImportSummary, Problem } from './run.js';

const COLUMNS: Array<keyof Counts> = ['created', 'updated', 'unchanged', 'failed', 'missing'];
/** Problems listed one by one; beyond that, a count (the counts table has them all). */
const LISTED_PROBLEMS = 50;

function table(summary: ImportSummary): string[] {
  const labelWidth = Math.max(...RECORD_TYPES.map((type) => PLURAL[type].length));
  const header = ['', ...COLUMNS].map((cell, i) => (i === 0 ? cell.padEnd(labelWidth) : cell.padStart(cell.length)));
  const rows = RECORD_TYPES.map((type) => [
    PLURAL[type].padEnd(labelWidth),
    ...COLUMNS.map((column) => String(summary.counts[type][column]).padStart(column.length)),
  ]);
  return [header, ...rows].map((row) => `  ${row.join('  ')}`.trimEnd());
}

function problems(title: string, list: Problem[]): string[] {
  if (list.length === 0) return [];
  const shown = list.slice(0, LISTED_PROBLEMS).map((problem) => `  ${problem.what}: ${problem.reason}`);
  const more = list.length > LISTED_PROBLEMS ? [`  … and ${list.length - LISTED_PROBLEMS} more`] : [];
  return [`${title} (${list.length}):`, ...shown, ...more];
}

/** The report printed at the end of an import. */
export function formatSummary(summary: ImportSummary): string {
  const how = `${summary.namespace}, ${summary.authenticated ? 'with credentials' : 'anonymously'}`;
  const first = summary.interrupted
    ? `Import from ${summary.source} (${how}) interrupted after ${summary.seconds.toFixed(1)} s; run the same command again to finish it.`
    : `Import from ${summary.source} (${how}) finished in ${summary.seconds.toFixed(1)} s.`;
  return [
    first,
    ...table(summary),
    ...problems('Failed, not imported', summary.failures),
    ...problems('Imported before, no longer answered by the source (left as they are)', summary.missing),
  ].join('\n');
}
