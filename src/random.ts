/** mulberry32: tiny, fast, good enough for demo data, and the same numbers on every machine. */
export function randomSequence(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability: number) => next() < probability,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    some: <T>(items: readonly T[], count: number): T[] => {
      const pool = [...items];
      const chosen: T[] = [];
      while (chosen.length < count && pool.length) chosen.push(pool.splice(Math.floor(next() * pool.length), 1)[0]!);
      return chosen;
    },
  };
}
