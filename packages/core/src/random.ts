/**
 * The project's one seeded generator: mulberry32, a tiny, fast 32-bit PRNG. Not cryptographic;
 * its point is that a seed reproduces the same shuffle, split, resample or random problem on every
 * machine. Uniform in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded source of random numbers with the draws tests and generators need. */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max] (both included). */
  int(min: number, max: number): number;
  /** Uniform in [min, max). */
  float(min: number, max: number): number;
  /** true with probability p (default 0.5). */
  bool(p?: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A value drawn with probability proportional to its weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T;
}

export function createRandom(seed: number): Random {
  const next = seededRandom(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    float: (min, max) => min + next() * (max - min),
    bool: (p = 0.5) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[Math.floor(next() * items.length)]!;
    },
    weighted: (entries) => {
      let total = 0;
      for (const [, w] of entries) total += w;
      let r = next() * total;
      for (const [value, w] of entries) {
        r -= w;
        if (r < 0) return value;
      }
      return entries[entries.length - 1]![0];
    },
  };
}

/** Fisher–Yates shuffle in place (from the last element down, one draw each). */
export function shuffleInPlace<T extends { length: number; [i: number]: unknown }>(
  items: T,
  random: () => number,
): T {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const tmp = items[i];
    items[i] = items[j];
    items[j] = tmp;
  }
  return items;
}
