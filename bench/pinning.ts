import { availableParallelism } from "node:os";

/** Where the server and the load generator run. */
export interface Pinning {
  /** Command prefix for the server process (empty when not pinned). */
  readonly server: readonly string[];
  /** Command prefix for wrk (empty when not pinned). */
  readonly load: readonly string[];
  readonly cores: number;
  readonly description: string;
}

/**
 * With two or more cores and a working `taskset`: the server on core 0, wrk on core 1, and this
 * orchestrator (which only samples /proc) moved to core 1 too, so that core 0 is the server's.
 */
export function choosePinning(): Pinning {
  const cores = availableParallelism();
  if (cores < 2) {
    return { server: [], load: [], cores, description: `not pinned (${cores} core)` };
  }
  if (Bun.which("taskset") === null || Bun.spawnSync(["taskset", "-c", "1", "true"]).exitCode) {
    return { server: [], load: [], cores, description: "not pinned (taskset unavailable)" };
  }
  Bun.spawnSync(["taskset", "-a", "-cp", "1", String(process.pid)]);
  return {
    server: ["taskset", "-c", "0"],
    load: ["taskset", "-c", "1"],
    cores,
    description: `server on core 0, wrk (1 thread) on core 1, of ${cores} cores`,
  };
}
