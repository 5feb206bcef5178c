import { expect } from "bun:test";

/**
 * Erases the input type of one case, so cases of different inputs fit in one table.
 *
 * @example
 * linearCase({ name: "commas", build: (bytes) => ",".repeat(bytes), run: parseAccept });
 */
export function linearCase<Input>(testCase: LinearCase<Input>): LinearCase<unknown> {
  return testCase as LinearCase<unknown>;
}

/** The two input sizes every parser is fed: 1 KiB and 64 KiB. */
export const smallBytes = 1024;
export const largeBytes = 65536;

/**
 * The most the work per input byte may grow from 1 KiB to 64 KiB. Linear work gives about 1
 * (less when a fixed cost per call dominates the small input); quadratic work gives 64. The
 * margin covers cache effects of the larger input, not noise: noise is removed by taking the
 * fastest of several batches.
 */
const maxGrowthPerByte = 4;
/** Bytes each timed batch processes, so a batch of each size does the same linear work. */
const batchBytes = 4 * largeBytes;
const minRounds = 5;
const maxRounds = 25;
/** A quadratic parser takes seconds per large input: stop retrying it once this much has gone. */
const retryBudgetMs = 3000;

/** One parser fed the worst input found for it. */
export interface LinearCase<Input> {
  readonly name: string;
  /** Makes the worst input of about `bytes` bytes (within a few bytes). */
  readonly build: (bytes: number) => Input;
  /** Runs the parser over the input; the result is checked by `check`. */
  readonly run: (input: Input) => unknown;
  /** What the parser must return for the input of each size: it did the work, not nothing. */
  readonly check?: (result: unknown) => void;
}

/** Keeps each result reachable, so the compiler cannot drop the work that made it. */
const sink: unknown[] = [undefined];

function batchNanoseconds<Input>(testCase: LinearCase<Input>, input: Input, runs: number): number {
  const start = Bun.nanoseconds();
  for (let run = 0; run < runs; run++) sink[0] = testCase.run(input);
  return Bun.nanoseconds() - start;
}

/**
 * Asserts that the parser's work grows at most linearly from 1 KiB to 64 KiB of worst input:
 * time(64 KiB) / time(1 KiB) < 64 x 4, each time the fastest of several batches that process
 * 256 KiB each (256 runs of the small input, 4 of the large one), after a warm-up. Batches of
 * the two sizes alternate, so both meet the same load and the same compiled code; the fastest
 * batch is the one least disturbed by other processes and the collector.
 */
export function expectLinear<Input>(testCase: LinearCase<Input>): void {
  const small = testCase.build(smallBytes);
  const large = testCase.build(largeBytes);
  testCase.check?.(testCase.run(small));
  testCase.check?.(testCase.run(large));
  const smallRuns = batchBytes / smallBytes;
  const largeRuns = batchBytes / largeBytes;
  batchNanoseconds(testCase, small, smallRuns);
  const started = performance.now();
  let smallBest = Number.POSITIVE_INFINITY;
  let largeBest = Number.POSITIVE_INFINITY;
  for (let round = 1; round <= maxRounds; round++) {
    smallBest = Math.min(smallBest, batchNanoseconds(testCase, small, smallRuns));
    largeBest = Math.min(largeBest, batchNanoseconds(testCase, large, largeRuns));
    // Stop early only when clearly linear; near the bound, more rounds find quieter batches.
    if (round >= minRounds && largeBest < (smallBest * maxGrowthPerByte) / 2) break;
    if (performance.now() - started > retryBudgetMs) break;
  }
  sink[0] = undefined;
  const growthPerByte = Math.round((largeBest / smallBest) * 100) / 100;
  expect({
    parser: testCase.name,
    growthPerByte,
    linear: growthPerByte < maxGrowthPerByte,
  }).toEqual({ parser: testCase.name, growthPerByte, linear: true });
}

/** `prefix`, then `unit` repeated, then `suffix`: `bytes` long give or take one unit. */
export function filled(bytes: number, prefix: string, unit: string, suffix = ""): string {
  const repeats = Math.max(1, Math.round((bytes - prefix.length - suffix.length) / unit.length));
  return prefix + unit.repeat(repeats) + suffix;
}

/** The bytes of a Latin-1 string. */
export function latin1Bytes(text: string): Buffer {
  return Buffer.from(text, "latin1");
}
