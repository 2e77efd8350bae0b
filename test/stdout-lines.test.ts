import { describe, expect, it } from 'vitest';
import { runCommand } from './support/processes.js';

// The log lines' destination (src/logging/stdout-lines.ts), in a process of its own writing to a pipe, as the server
// does: lines written faster than the pipe takes them wait, up to a bound; past it they are dropped and counted;
// `flush` calls back once all are written, whole lines in order (a graceful stop waits for it).

const LINES = 20_000;
const script = `
  import { StdoutLines } from './src/logging/stdout-lines.ts';
  const lines = new StdoutLines(1, ${256 * 1024});
  for (let n = 0; n < ${LINES}; n++) lines.write(JSON.stringify({ n, padding: 'x'.repeat(80) }) + '\\n');
  process.stderr.write(String(lines.takeDropped()));
  lines.flush(() => process.exit(0));
`;

describe('the log lines destination', () => {
  it('keeps at most its bound waiting, counts the lines dropped past it, and writes the others before flush calls back', async () => {
    const run = await runCommand(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {});
    expect(run.code, run.stderr).toBe(0);
    const dropped = Number(run.stderr);
    const written = run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { n: number });
    expect(dropped).toBeGreaterThan(0);
    expect(written.length + dropped).toBe(LINES);
    // Nothing written twice or out of order: the lines kept are the first ones, then none past the bound.
    expect(written.map((line) => line.n)).toEqual([...written.keys()]);
  });
});
