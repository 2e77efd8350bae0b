import { memoryOf } from '../../bench/processes.js';

/** Resident memory of a process over time, from /proc/<pid>/status. */
export class RssSampler {
  readonly samples: Array<{ at: number; mb: number }> = [];
  #timer: NodeJS.Timeout | undefined;

  start(pid: number, everyMs = 500): void {
    const started = performance.now();
    const sample = () => {
      const memory = memoryOf(pid);
      if (memory) this.samples.push({ at: (performance.now() - started) / 1000, mb: memory.rssMb });
    };
    sample();
    this.#timer = setInterval(sample, everyMs);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

export interface MemoryVerdict {
  /** False when the run was too short to tell (then `ok` is true and nothing is claimed). */
  judged: boolean;
  ok: boolean;
  /** Mean RSS (MB) over the first and the last third of the samples after warm-up. */
  firstThirdMb: number;
  lastThirdMb: number;
  peakMb: number;
  /** (last − first) ÷ first. */
  growth: number;
  /** Mean RSS (MB) over each tenth of the whole run, warm-up included: the shape of the curve, for the summary. */
  timeline: number[];
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);

/**
 * Memory is flat when the mean RSS of the last third of the run after warm-up exceeds that of the first third by at
 * most `tolerance` (0.15 = 15%). Fewer than `minimumSamples` after warm-up: not judged.
 */
export function judgeMemory(
  samples: Array<{ at: number; mb: number }>,
  warmupSeconds: number,
  tolerance: number,
  minimumSamples = 30,
): MemoryVerdict {
  const measured = samples.filter((sample) => sample.at >= warmupSeconds).map((sample) => sample.mb);
  const third = Math.floor(measured.length / 3);
  const firstThirdMb = mean(measured.slice(0, third));
  const lastThirdMb = mean(measured.slice(measured.length - third));
  const peakMb = Math.max(0, ...samples.map((sample) => sample.mb));
  const judged = measured.length >= minimumSamples;
  const growth = third ? (lastThirdMb - firstThirdMb) / firstThirdMb : 0;
  return {
    judged,
    ok: !judged || growth <= tolerance,
    firstThirdMb,
    lastThirdMb,
    peakMb,
    growth,
    timeline: tenths(samples),
  };
}

function tenths(samples: Array<{ at: number; mb: number }>): number[] {
  const end = samples.at(-1)?.at ?? 0;
  const buckets: number[][] = Array.from({ length: 10 }, () => []);
  for (const sample of samples) buckets[Math.min(9, Math.floor((sample.at / (end || 1)) * 10))]!.push(sample.mb);
  return buckets.filter((bucket) => bucket.length).map((bucket) => Math.round(mean(bucket)));
}
