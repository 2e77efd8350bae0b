/**
 * What an import shows while it runs: one progress bar per record type on a terminal, plain lines (one per page
 * and one per finished record type) otherwise, so logs and CI output stay readable. Warnings (retries, pages that
 * failed) go to stderr, or above the bars.
 */
import cliProgress from 'cli-progress';
import type { RecordType } from './remote.js';

/** `trashed` and `kept` happen only in a scheduled source's runs (src/import/sources/site.ts). */
export type Outcome = 'created' | 'updated' | 'unchanged' | 'failed' | 'missing' | 'trashed' | 'kept';

export type Counts = Record<Outcome, number>;

export const emptyCounts = (): Counts => ({
  created: 0,
  updated: 0,
  unchanged: 0,
  failed: 0,
  missing: 0,
  trashed: 0,
  kept: 0,
});

export const PLURAL: Record<RecordType, string> = {
  category: 'categories',
  tag: 'tags',
  venue: 'venues',
  organizer: 'organizers',
  event: 'events',
};

export interface TypeProgress {
  type: RecordType;
  /** Records handled so far. */
  done: number;
  /** As the source counts them; null until the first page says. */
  total: number | null;
  counts: Counts;
}

export interface ImportProgress {
  /** After each record. */
  update(state: TypeProgress): void;
  /** After each page, and once when a record type is finished (`finished`). */
  checkpoint(state: TypeProgress, finished: boolean): void;
  warn(message: string): void;
  stop(): void;
}

export function countsText(counts: Counts): string {
  const parts = [
    `created ${counts.created}`,
    `updated ${counts.updated}`,
    `unchanged ${counts.unchanged}`,
    `failed ${counts.failed}`,
  ];
  if (counts.missing) parts.push(`missing ${counts.missing}`);
  return parts.join(', ');
}

const LABEL_WIDTH = Math.max(...Object.values(PLURAL).map((label) => label.length));

class BarsProgress implements ImportProgress {
  private readonly bars = new Map<RecordType, cliProgress.SingleBar>();
  private readonly multibar: cliProgress.MultiBar;

  constructor(stream: NodeJS.WriteStream) {
    this.multibar = new cliProgress.MultiBar(
      {
        stream,
        format: '{label} {bar} {value}/{totalText}  {counts}',
        hideCursor: true,
        clearOnComplete: false,
        barsize: 20,
        autopadding: true,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  private bar(state: TypeProgress): cliProgress.SingleBar {
    let bar = this.bars.get(state.type);
    if (!bar) {
      bar = this.multibar.create(0, 0, this.payload(state));
      this.bars.set(state.type, bar);
    }
    return bar;
  }

  private payload(state: TypeProgress) {
    return {
      label: PLURAL[state.type].padEnd(LABEL_WIDTH),
      totalText: state.total ?? '?',
      counts: countsText(state.counts),
    };
  }

  update(state: TypeProgress): void {
    const bar = this.bar(state);
    bar.setTotal(Math.max(state.total ?? 0, state.done));
    bar.update(state.done, this.payload(state));
  }

  checkpoint(state: TypeProgress): void {
    this.update(state);
  }

  warn(message: string): void {
    this.multibar.log(`${message}\n`);
  }

  stop(): void {
    this.multibar.stop();
  }
}

class LinesProgress implements ImportProgress {
  constructor(
    private readonly out: (line: string) => void,
    private readonly err: (line: string) => void,
  ) {}

  update(): void {}

  checkpoint(state: TypeProgress, finished: boolean): void {
    const of = state.total === null ? '' : ` of ${Math.max(state.total, state.done)}`;
    this.out(`${PLURAL[state.type]}: ${state.done}${of}${finished ? ' done' : ''} (${countsText(state.counts)})`);
  }

  warn(message: string): void {
    this.err(message);
  }

  stop(): void {}
}

/** Bars when stdout is a terminal, lines otherwise. */
export function consoleProgress(): ImportProgress {
  if (process.stdout.isTTY) return new BarsProgress(process.stdout);
  return new LinesProgress(
    (line) => console.log(line),
    (line) => console.error(line),
  );
}

/** Collects the lines instead of printing them (tests, embedding). */
export function linesProgress(out: (line: string) => void, err: (line: string) => void = out): ImportProgress {
  return new LinesProgress(out, err);
}
