import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { instructionsByFunction, readJitDumps, unnamed } from "../../bench/jit-functions.ts";

/** A JITDump file as the format defines it: a 40-byte header, then records. */
function jitDump(records: readonly Uint8Array[]): Uint8Array {
  const header = new Uint8Array(40);
  const view = new DataView(header.buffer);
  view.setUint32(0, 0x4a695444, true); // "JiTD"
  view.setUint32(4, 1, true);
  view.setUint32(8, 40, true);
  return Buffer.concat([header, ...records]);
}

/** A record: kind, size and time, then (for a code load) pid, tid, addresses, index, name, code. */
function record(kind: number, timestamp: number, body: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(16 + body.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, kind, true);
  view.setUint32(4, bytes.length, true);
  view.setBigUint64(8, BigInt(timestamp), true);
  bytes.set(body, 16);
  return bytes;
}

function codeLoad(timestamp: number, address: number, size: number, name: string): Uint8Array {
  const text = new TextEncoder().encode(`${name}\0`);
  const body = new Uint8Array(40 + text.length + size);
  const view = new DataView(body.buffer);
  view.setBigUint64(8, BigInt(address), true); // vma
  view.setBigUint64(16, BigInt(address), true); // code address
  view.setBigUint64(24, BigInt(size), true);
  body.set(text, 40);
  return record(0, timestamp, body);
}

const folder = mkdtempSync(join(tmpdir(), "corral-jitdump-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("naming JIT code from a JITDump", () => {
  test("an address is the function whose newest load covers it; other records are skipped", () => {
    writeFileSync(
      join(folder, "jit-1-1.dump"),
      jitDump([
        codeLoad(1, 0x1000, 0x100, "JSC-DFG: handle#A"),
        record(2, 2, new Uint8Array(24)), // debug information: not a load
        codeLoad(3, 0x2000, 0x40, "JSC-FTL: parse#B"),
        // The DFG code of handle was freed and its addresses reused by FTL code.
        codeLoad(4, 0x1000, 0x80, "JSC-FTL: handle#A"),
      ]),
    );
    writeFileSync(join(folder, "notes.txt"), "not a dump");
    const loads = readJitDumps(folder);
    expect(loads.map((load) => load.name)).toEqual([
      "JSC-DFG: handle#A",
      "JSC-FTL: parse#B",
      "JSC-FTL: handle#A",
    ]);
    const annotated = [
      "1,000 (10.0%)  ???:0x0000000000001010 [???]",
      "  500 ( 5.0%)  ???:0x00000000000010f0 [???]",
      "  300 ( 3.0%)  ???:0x000000000000203f [???]",
      "  200 ( 2.0%)  ???:0x0000000000002040 [???]",
      "9,000 (90.0%)  ???:0x0000000005d417a0 [/usr/lib/node_modules/bun/bin/bun.exe]",
    ].join("\n");
    expect(Object.fromEntries(instructionsByFunction(annotated, loads))).toEqual({
      "JSC-FTL: handle#A": 1000,
      "JSC-DFG: handle#A": 500,
      "JSC-FTL: parse#B": 300,
      [unnamed]: 200,
    });
  });
});
