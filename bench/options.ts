import { type SectionId, sectionGroups, sectionIds } from "./scenarios.ts";

/** Command-line options of `bun run bench`. */
export interface BenchOptions {
  /** Seconds of measured load per run, and of each attack of the abuse scenario. */
  readonly durationSeconds: number;
  /** Measured runs per scenario and server; the table shows their medians. */
  readonly repeats: number;
  /** Seconds of unmeasured load before each measured run (JIT warm-up). */
  readonly warmupSeconds: number;
  /** Seconds of load before the corral RSS check. */
  readonly rssCheckSeconds: number;
  /** Idle SSE streams the `sse` and `redis-sse` scenarios open. */
  readonly sseStreams: number;
  /** What runs, in the order of `sectionIds`. */
  readonly only: readonly SectionId[];
  readonly quick: boolean;
}

const choices = [...sectionIds, ...Object.keys(sectionGroups)].join(", ");

export const usage = `usage: bun run bench [--only LIST] [--duration N] [--repeat N] [--sse-streams N] [--quick]
  --only LIST       run only these, comma-separated (repeatable): ${choices}
                    (engine = plain,pipelined,big,rss; app = app-plain,app-pipelined;
                    techempower = the six TechEmpower tests on SQLite and PostgreSQL); default all
  --duration N      seconds of measured load per run and per attack (default 5)
  --repeat N        runs per scenario and server, medians reported (default 3)
  --sse-streams N   idle SSE streams the sse and redis-sse scenarios open (default 10000)
  --quick           smoke run: 1 s per run, once, no warm-up, 2 s RSS check`;

/** Parses argv; throws a message with the usage on anything unknown. */
export function parseOptions(argv: readonly string[]): BenchOptions {
  let durationSeconds = 5;
  let repeats = 3;
  let sseStreams = 10_000;
  let quick = false;
  const only = new Set<SectionId>();
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === "--quick") {
      quick = true;
    } else if (argument === "--duration") {
      durationSeconds = wholeNumber(argv[++index], "--duration", 600);
    } else if (argument === "--repeat") {
      repeats = wholeNumber(argv[++index], "--repeat", 20);
    } else if (argument === "--sse-streams") {
      sseStreams = wholeNumber(argv[++index], "--sse-streams", 60_000);
    } else if (argument === "--only") {
      for (const section of parseSections(argv[++index])) only.add(section);
    } else {
      throw new Error(`unknown argument ${argument}\n${usage}`);
    }
  }
  const sections = only.size === 0 ? sectionIds : sectionIds.filter((id) => only.has(id));
  const common = { sseStreams, only: sections, quick };
  if (quick)
    return { durationSeconds: 1, repeats: 1, warmupSeconds: 0, rssCheckSeconds: 2, ...common };
  return { durationSeconds, repeats, warmupSeconds: 1, rssCheckSeconds: 10, ...common };
}

function parseSections(text: string | undefined): SectionId[] {
  if (text === undefined || text === "") throw new Error(`--only takes a list\n${usage}`);
  const sections: SectionId[] = [];
  for (const name of text.split(",")) {
    const group = sectionGroups[name];
    if (group !== undefined) {
      sections.push(...group);
    } else if ((sectionIds as readonly string[]).includes(name)) {
      sections.push(name as SectionId);
    } else {
      throw new Error(`--only: unknown scenario "${name}" (choose from ${choices})\n${usage}`);
    }
  }
  return sections;
}

function wholeNumber(text: string | undefined, name: string, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new Error(`${name} takes a whole number from 1 to ${max}\n${usage}`);
  }
  return value;
}
