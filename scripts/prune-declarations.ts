import { readdirSync, readFileSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** `from "./x.ts"` and `import("./x.ts")` in emitted declarations (our own output, not input). */
const relativeSpecifier = /(?:\bfrom\s+|\bimport\s*\(\s*)"(\.{1,2}\/[^"]+)"/g;

/** The relative specifiers one declaration file imports, as paths of declaration files. */
function importedDeclarations(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(relativeSpecifier)].map((match) =>
    normalize(join(dirname(file), match[1]!.replace(/\.ts$/, ".d.ts"))),
  );
}

function declarationFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".d.ts"))
    .map((name) => join(directory, name));
}

/** Removes the directories under `directory` that hold nothing, deepest first. */
function removeEmptyDirectories(directory: string): void {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.isDirectory()) removeEmptyDirectories(join(directory, entry.name));
  }
  if (readdirSync(directory).length === 0) rmdirSync(directory);
}

/**
 * Keeps the declarations (and their maps) that the entries reach through their imports and
 * removes the rest: what no entry reaches is not part of the API, and an internal file may name
 * types of a devDependency (mustache's), which users do not install. Returns how many it removed.
 */
export function pruneDeclarations(outputDirectory: string, entries: readonly string[]): number {
  const reached = new Set<string>();
  const pending = entries.map((entry) => join(outputDirectory, entry));
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    pending.push(...importedDeclarations(file));
  }
  let removed = 0;
  for (const folder of new Set(entries.map((entry) => entry.split("/")[0]!))) {
    const directory = join(outputDirectory, folder);
    for (const file of declarationFiles(directory)) {
      if (reached.has(file)) continue;
      rmSync(file);
      rmSync(`${file}.map`, { force: true });
      removed++;
    }
    removeEmptyDirectories(directory);
  }
  return removed;
}
