import { describe, expect, it } from 'vitest';
import { FairRunningLimit, StartPacing } from '../src/limits/admission.js';

const nextTurn = () => new Promise<void>((done) => setImmediate(done));

describe('start pacing (SQLite)', () => {
  it('starts a lone request at once, in the same tick', () => {
    const pacing = new StartPacing();
    let started = false;
    void pacing.run(async () => void (started = true));
    expect(started).toBe(true);
  });

  it('starts requests that arrive together one per turn of the event loop, in arrival order', async () => {
    const pacing = new StartPacing();
    const starts: [number, number][] = [];
    let turn = 0;
    const counter = (async () => {
      for (let i = 0; i < 50; i++) {
        await nextTurn();
        turn++;
      }
    })();
    const done = [0, 1, 2, 3].map((id) => pacing.run(async () => void starts.push([id, turn])));
    await Promise.all(done);
    await counter;
    expect(starts.map(([id]) => id)).toEqual([0, 1, 2, 3]);
    const turns = starts.map(([, at]) => at);
    for (let i = 1; i < turns.length; i++) expect(turns[i]!).toBeGreaterThan(turns[i - 1]!);
  });

  it('of the requests waiting, starts the lowest ranked first (the lightest client), in arrival order among equals', async () => {
    const pacing = new StartPacing();
    const starts: string[] = [];
    const load = { greedy: 100, polite: 1 };
    const run = (name: string, client: keyof typeof load) =>
      pacing.run(
        async () => void starts.push(name),
        () => load[client],
      );
    const done = [
      run('g1', 'greedy'),
      run('g2', 'greedy'),
      run('g3', 'greedy'),
      run('p1', 'polite'),
      run('g4', 'greedy'),
      run('p2', 'polite'),
    ];
    await Promise.all(done);
    expect(starts).toEqual(['g1', 'p1', 'p2', 'g2', 'g3', 'g4']);
  });

  it('answers what the work answers, and passes its failure on without stopping later starts', async () => {
    const pacing = new StartPacing();
    const failing = pacing.run(async () => {
      throw new Error('boom');
    });
    const next = pacing.run(async () => 42);
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe(42);
  });

  it('a request after a quiet turn starts at once again', async () => {
    const pacing = new StartPacing();
    await Promise.all([pacing.run(async () => 1), pacing.run(async () => 2)]);
    await nextTurn();
    await nextTurn();
    let started = false;
    void pacing.run(async () => void (started = true));
    expect(started).toBe(true);
  });
});

describe('the fair running limit (PostgreSQL)', () => {
  it('runs at most its limit at once; when one ends, the lowest ranked waiting request starts', async () => {
    const limit = new FairRunningLimit(2);
    const load = { greedy: 100, polite: 1 };
    const started: string[] = [];
    let running = 0;
    let most = 0;
    const run = (name: string, client: keyof typeof load) =>
      limit.run(
        async () => {
          started.push(name);
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
        },
        () => load[client],
      );
    await Promise.all([
      run('g1', 'greedy'),
      run('g2', 'greedy'),
      run('g3', 'greedy'),
      run('g4', 'greedy'),
      run('p1', 'polite'),
    ]);
    expect(most).toBe(2);
    expect(started).toEqual(['g1', 'g2', 'p1', 'g3', 'g4']);
    // Free again: a request starts at once.
    let now = false;
    void limit.run(async () => void (now = true));
    await Promise.resolve();
    expect(now).toBe(true);
  });
});
