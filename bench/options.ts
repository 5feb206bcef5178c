/** Command-line options of `bun run bench`. */
export interface BenchOptions {
  /** Seconds of measured load per run. */
  readonly durationSeconds: number;
  /** Measured runs per scenario and server; the table shows their medians. */
  readonly repeats: number;
  /** Seconds of unmeasured load before each measured run (JIT warm-up). */
  readonly warmupSeconds: number;
  /** Seconds of load before the corral RSS check. */
  readonly rssCheckSeconds: number;
  readonly quick: boolean;
}

export const usage = `usage: bun run bench [--duration N] [--repeat N] [--quick]
  --duration N   seconds of measured load per run (default 5)
  --repeat N     runs per scenario and server, medians reported (default 3)
  --quick        smoke run: 1 s per run, once, no warm-up, 2 s RSS check`;

/** Parses argv; throws a message with the usage on anything unknown. */
export function parseOptions(argv: readonly string[]): BenchOptions {
  let durationSeconds = 5;
  let repeats = 3;
  let quick = false;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === "--quick") {
      quick = true;
    } else if (argument === "--duration") {
      durationSeconds = wholeNumber(argv[++index], "--duration", 600);
    } else if (argument === "--repeat") {
      repeats = wholeNumber(argv[++index], "--repeat", 20);
    } else {
      throw new Error(`unknown argument ${argument}\n${usage}`);
    }
  }
  if (quick) return { durationSeconds: 1, repeats: 1, warmupSeconds: 0, rssCheckSeconds: 2, quick };
  return { durationSeconds, repeats, warmupSeconds: 1, rssCheckSeconds: 10, quick };
}

function wholeNumber(text: string | undefined, name: string, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new Error(`${name} takes a whole number from 1 to ${max}\n${usage}`);
  }
  return value;
}
