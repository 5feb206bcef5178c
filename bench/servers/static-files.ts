import { mkdirSync, writeFileSync } from "node:fs";

/** The files of the static scenario: name, size, and the connections wrk opens for it. */
export const staticFiles = [
  { name: "1k.bin", bytes: 1024, connections: 64 },
  { name: "64k.bin", bytes: 64 * 1024, connections: 64 },
  { name: "10m.bin", bytes: 10 * 1024 * 1024, connections: 20 },
] as const;

/** Writes the files (random bytes, so nothing compresses or dedupes them) into `directory`. */
export function writeStaticFiles(directory: string): void {
  mkdirSync(directory, { recursive: true });
  for (const file of staticFiles) {
    const bytes = new Uint8Array(file.bytes);
    for (let offset = 0; offset < bytes.length; offset += 65536) {
      crypto.getRandomValues(bytes.subarray(offset, Math.min(bytes.length, offset + 65536)));
    }
    writeFileSync(`${directory}/${file.name}`, bytes);
  }
}

/** The `--dir D` argument every static server takes. */
export function parseDirectory(argv: readonly string[] = Bun.argv): string {
  const index = argv.indexOf("--dir");
  const directory = index >= 0 ? argv[index + 1] : undefined;
  if (directory === undefined) throw new TypeError("bench static server: --dir D is required");
  return directory;
}
