// What the counts over real sockets (bench/socket-instructions.ts, bench/websocket-instructions.ts)
// share: a server started under callgrind with counting off, switched on and off from outside
// around the load, then read back with callgrind_annotate.
import { rmSync } from "node:fs";

/** The command that runs `command` under callgrind, counting nothing until switched on. */
export function underCallgrind(output: string, command: readonly string[]): string[] {
  return [
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    `--callgrind-out-file=${output}`,
    ...command,
  ];
}

/**
 * The environment for a server under callgrind: JavaScriptCore compiles on the main thread, so no
 * compiler thread's work lands in the count.
 */
export function callgrindEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    BUN_JSC_useConcurrentJIT: "false",
    ...extra,
  };
}

/** Switches the counting of the process `pid` on or off. */
export async function switchCounting(pid: number, state: "on" | "off"): Promise<void> {
  const control = Bun.spawn(["callgrind_control", "-i", state, String(pid)], {
    stdout: "ignore",
    stderr: "ignore",
  });
  if ((await control.exited) !== 0) throw new Error(`bench: callgrind_control -i ${state} failed`);
}

/** callgrind_annotate's summary of `output`, which is then removed. */
export function annotateAndRemove(output: string): string {
  const annotated = Bun.spawnSync(["callgrind_annotate", "--threshold=100", output]).stdout;
  rmSync(output, { force: true });
  return annotated.toString();
}

/** Throws when valgrind or callgrind_control is not installed. */
export function requireValgrind(): void {
  if (Bun.which("valgrind") === null || Bun.which("callgrind_control") === null) {
    throw new Error("bench: valgrind is missing (apt-get install valgrind)");
  }
}
