import { describe, expect, it } from 'vitest';
import { runCommand } from './support/processes.js';

// The log lines' destination (StdoutLines in src/logging/logger.ts, through the logger), in a process of its own writing to a pipe, as the server does:
// lines written faster than the pipe takes them wait, up to a bound; past it they are dropped, counted and reported;
// `flush` calls back once all the others are written, whole lines in order (a graceful stop waits for it).

const LINES = 100_000;
const script = `
  import { createLogger } from './src/logging/logger.ts';
  const logger = createLogger('info');
  for (let n = 0; n < ${LINES}; n++) logger.info({ n, padding: 'x'.repeat(80) }, 'line');
  setTimeout(() => logger.flush(() => process.exit(0)), 1500);
`;

describe('the log lines destination', () => {
  it('keeps at most its bound waiting, reports the lines dropped past it, and writes the others before flush calls back', async () => {
    const run = await runCommand(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {});
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { n?: number; droppedLines?: number });
    const written = lines.filter((line) => line.n !== undefined).map((line) => line.n!);
    const dropped = lines.reduce((sum, line) => sum + (line.droppedLines ?? 0), 0);
    expect(dropped).toBeGreaterThan(0);
    expect(written.length + dropped).toBe(LINES);
    // Nothing written twice or out of order: the lines kept are the first ones, then none past the bound.
    expect(written).toEqual([...written.keys()]);
  });
});
