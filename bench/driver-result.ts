// Starting bench/instruction-driver.ts and reading what it printed, for the tools that run it
// (bench/instructions.ts under valgrind, bench/in-process-time.ts and bench/perf-functions.ts
// without).

/** What the driver is told: the server, its request, and how many chunks of how many requests. */
export interface DriverSettings {
  readonly script: string;
  readonly target: string;
  readonly pipeline: number;
  readonly warmTurns: number;
  readonly turns: number;
  readonly browserHeaders?: boolean;
}

/** The driver's environment for `settings` (this process's, plus the driver's variables). */
export function driverEnvironment(settings: DriverSettings): Record<string, string | undefined> {
  return {
    ...process.env,
    SERVER: settings.script,
    TARGET: settings.target,
    PIPELINE: String(settings.pipeline),
    WARM_TURNS: String(settings.warmTurns),
    TURNS: String(settings.turns),
    BROWSER_HEADERS: settings.browserHeaders === true ? "1" : "0",
  };
}

/** The driver's `RESULT` line: requests answered, socket writes, and the time they took. */
export interface DriverResult {
  readonly requests: number;
  readonly writes: number;
  readonly bytesWritten: number;
  readonly nanosecondsPerRequest: number;
}

/**
 * Waits for `run` (the driver, or valgrind running it) to exit and returns its `RESULT`; throws
 * with what it printed, and the tail of its errors, when there is none. `how` says how it ran.
 */
export async function driverResult(
  run: Bun.Subprocess<"ignore", "pipe", "pipe">,
  script: string,
  how: string,
): Promise<DriverResult> {
  const [printed, errors] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
  ]);
  await run.exited;
  const result = printed.split("\n").find((line) => line.startsWith("RESULT "));
  if (result === undefined) {
    const tail = errors.split("\n").slice(-30).join("\n");
    throw new Error(`bench: ${script} printed no RESULT ${how}:\n${printed}\n${tail}`);
  }
  return JSON.parse(result.slice(7)) as DriverResult;
}
