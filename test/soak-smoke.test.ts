import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEST_ENGINE, TEST_POSTGRES_URL } from './support/database.js';

// The soak script works (npm run soak holds load for a minute; it never runs here): a few seconds of load, then its
// checks and its summary. In the PostgreSQL run it soaks PostgreSQL too, through SOAK_DATABASE_URL.

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function runSoak(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/soak.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

function resultLine(output: string): any {
  const line = output.split('\n').find((text) => text.startsWith('SOAK RESULT '));
  if (!line) throw new Error(`no SOAK RESULT line in:\n${output}`);
  return JSON.parse(line.slice('SOAK RESULT '.length));
}

describe('npm run soak', () => {
  it('holds a mixed load, checks the ledger after a restart, and reports a clean run', async () => {
    const engines = TEST_ENGINE === 'postgres' ? ['sqlite', 'postgres'] : ['sqlite'];
    const { code, output } = await runSoak({
      SOAK_DURATION: '3',
      SOAK_CLIENTS: '4',
      ...(TEST_ENGINE === 'postgres' ? { SOAK_DATABASE_URL: TEST_POSTGRES_URL } : {}),
    });
    const result = resultLine(output);
    expect(code, output).toBe(0);
    expect(result.ok).toBe(true);
    expect(result.results.map((run: { engine: string }) => run.engine)).toEqual(engines);
    for (const run of result.results) {
      expect(run.requests).toBeGreaterThan(0);
      expect(run.failures).toBe(0);
      expect(run.acknowledgedWrites).toBeGreaterThan(0);
      expect(run.recordsChecked).toBeGreaterThan(0);
      expect(run.mismatches).toBe(0);
      expect(run.memory.peakMb).toBeGreaterThan(0);
    }
    expect(output).toMatch(/Soak on sqlite: \d+ s, 4 clients/);
  }, 180_000);

  it('refuses a setting it cannot read, with the reason', async () => {
    const { code, output } = await runSoak({ SOAK_DURATION: 'a minute' });
    expect(code).toBe(1);
    expect(output).toContain('SOAK_DURATION must be a positive number, got "a minute"');
  });
});
