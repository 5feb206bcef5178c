/**
 * Refuses to listen under `bun --hot`. Hot mode re-runs the changed modules in the same
 * process: the first App still holds its port (the new one fails with EADDRINUSE) and its
 * reserved memory and keeps answering with the old handlers. `bun --watch` restarts the whole
 * process instead: the port and memory are freed, and the new code serves.
 */
export function assertNotHotReloading(execArgv: readonly string[] = process.execArgv): void {
  if (!execArgv.includes("--hot")) return;
  throw new TypeError(
    "corral: bun --hot reloads modules in the same process, where the App already listening " +
      "keeps its port, its reserved memory and its old handlers; run with bun --watch instead " +
      "(it restarts the process on a change)",
  );
}
