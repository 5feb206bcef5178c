// Seeded randomness for the fuzz tests: every case has a seed of its own, named in its failure,
// so that one case can be replayed alone. CORRAL_FUZZ_SEED replays another run.
import { expect } from "bun:test";

/** The run's seed: CORRAL_FUZZ_SEED, or a fixed one so that CI runs the same cases every time. */
export const masterSeed = Number(process.env.CORRAL_FUZZ_SEED ?? 0x2b1f_c0de) >>> 0;

/** mulberry32: a tiny seeded PRNG, uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of case `index` of the run named `run`. */
export function caseSeed(run: string, index: number): number {
  let hash = masterSeed;
  for (let at = 0; at < run.length; at++) hash = Math.imul(hash ^ run.charCodeAt(at), 0x01000193);
  return (hash ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
}

/** Draws from one case's seed. */
export class SeededRandom {
  readonly #random: () => number;

  constructor(seed: number) {
    this.#random = mulberry32(seed);
  }

  /** An integer in [0, limit). */
  below(limit: number): number {
    return Math.floor(this.#random() * limit);
  }

  /** An integer in [low, high]. */
  between(low: number, high: number): number {
    return low + this.below(high - low + 1);
  }

  /** True once in `times` draws, on average. */
  oneIn(times: number): boolean {
    return this.below(times) === 0;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  /** Up to `most` sorted cut points inside `length`, splitting bytes into pieces. */
  cuts(length: number, most = 3): number[] {
    const cuts = new Set<number>();
    const count = this.below(most + 1);
    for (let index = 0; index < count && length > 1; index++) cuts.add(1 + this.below(length - 1));
    return [...cuts].sort((left, right) => left - right);
  }
}

/**
 * Fails with the run's seed, the first three mismatches (each naming its case's seed) and their
 * count, unless there are none.
 */
export function expectNoMismatches(mismatches: readonly unknown[]): void {
  expect({
    seed: masterSeed,
    mismatches: mismatches.slice(0, 3),
    count: mismatches.length,
  }).toEqual({
    seed: masterSeed,
    mismatches: [],
    count: 0,
  });
}
