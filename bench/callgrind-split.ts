// The split of a callgrind count that bench/instructions.ts and bench/socket-instructions.ts
// print: JIT-compiled JavaScript, Bun's own code, and the rest.

/** A count's instructions: all of them, the JIT-compiled part and Bun's own part. */
export interface InstructionSplit {
  readonly total: number;
  readonly jit: number;
  readonly bun: number;
}

/**
 * Sums `callgrind_annotate`'s per-function lines: code in no file (`[???]`) is JavaScriptCore's
 * JIT-compiled JavaScript, code in Bun's executable is Bun's (the runtime, the collector, the
 * interpreter, uWebSockets for Bun.serve); the rest (libc, the loader) is `total - jit - bun`.
 */
export function splitCounts(annotated: string): InstructionSplit {
  let total = 0;
  let jit = 0;
  let bun = 0;
  for (const line of annotated.split("\n")) {
    const match = /^\s*([\d,]+) /.exec(line);
    if (match === null) continue;
    const instructions = Number(match[1]!.replaceAll(",", ""));
    if (line.includes("PROGRAM TOTALS")) total = instructions;
    else if (line.endsWith("[???]")) jit += instructions;
    else if (/bun(\.exe)?\]$/.test(line)) bun += instructions;
  }
  return { total, jit, bun };
}
