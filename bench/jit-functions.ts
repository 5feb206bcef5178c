// Names the JIT-compiled code in a callgrind count, for `bench/instructions.ts --functions`.
// Callgrind sees JavaScriptCore's compiled code only as addresses in no file; with
// `BUN_JSC_useJITDump` the process also writes a JITDump file (the format `perf inject` reads),
// one record per compiled function: its address, size and name (`JSC-FTL: handle#CiqNlc`, the
// tier, the function's name, a hash of its source). An address is the function whose newest
// record covers it (code is freed and its addresses reused).
import { readdirSync, readFileSync } from "node:fs";

/** One compiled function: where its code lies, its name, and when it was compiled. */
interface CompiledCode {
  readonly start: bigint;
  readonly end: bigint;
  readonly name: string;
  readonly timestamp: bigint;
}

/** JITDump's record kinds: only loads (0) name code; moves, debug and unwinding data do not. */
const codeLoad = 0;

/** The code loads of every JITDump file in `folder`, oldest first. */
export function readJitDumps(folder: string): CompiledCode[] {
  const loads: CompiledCode[] = [];
  for (const name of readdirSync(folder)) {
    if (name.endsWith(".dump")) loads.push(...readJitDump(`${folder}/${name}`));
  }
  return loads.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
}

function readJitDump(path: string): CompiledCode[] {
  const bytes = readFileSync(path);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const loads: CompiledCode[] = [];
  // The header's third field is its size; each record starts with its kind, size and time.
  for (let offset = view.getUint32(8, true); offset + 16 <= bytes.length; ) {
    const kind = view.getUint32(offset, true);
    const size = view.getUint32(offset + 4, true);
    if (size === 0 || offset + size > bytes.length) break;
    if (kind === codeLoad) {
      const start = view.getBigUint64(offset + 32, true);
      const nameStart = offset + 56;
      const nameEnd = bytes.indexOf(0, nameStart);
      loads.push({
        start,
        end: start + view.getBigUint64(offset + 40, true),
        name: bytes.subarray(nameStart, nameEnd).toString("latin1"),
        timestamp: view.getBigUint64(offset + 8, true),
      });
    }
    offset += size;
  }
  return loads;
}

/** Instructions by function name in `callgrind_annotate` output: JIT code named from `loads`. */
export function instructionsByFunction(
  annotated: string,
  loads: readonly CompiledCode[],
): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (name: string, instructions: number) =>
    counts.set(name, (counts.get(name) ?? 0) + instructions);
  for (const line of annotated.split("\n")) {
    const jit = /^\s*([\d,]+) .*\?\?\?:0x([0-9a-f]+) \[\?\?\?\]$/.exec(line);
    if (jit === null) continue;
    const instructions = Number(jit[1]!.replaceAll(",", ""));
    const address = BigInt(`0x${jit[2]}`);
    let name = unnamed;
    for (let index = loads.length - 1; index >= 0; index--) {
      const code = loads[index]!;
      if (address >= code.start && address < code.end) {
        name = code.name;
        break;
      }
    }
    add(name, instructions);
  }
  return counts;
}

/** JIT code no record covers: the JITDump was cut short (see `bench/instructions.ts`). */
export const unnamed = "(JIT code with no JITDump record)";
