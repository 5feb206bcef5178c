import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Every ```ts block of the README and the docs is type-checked against the real API in one tsc
 * run, with the repo's compiler options and `corral` resolved as the repo resolves it, so an
 * example cannot drift from the code. The conventions (see the top of docs/guide.md):
 * - each block is a whole module of its own;
 * - a block whose first line is a comment naming a file (`// notes-data.ts`) is that file, so
 *   the other blocks of the same document may import it;
 * - a block that is not a whole module has `<!-- fragment -->` on the line before its fence and
 *   is not checked.
 */

const root = join(import.meta.dir, "..");
const documents = [
  "README.md",
  "docs/guide.md",
  "docs/migrating.md",
  "docs/deploying.md",
  "docs/static-files.md",
];
const fragmentMarker = "<!-- fragment -->";
/** Inside the repo, so `corral` resolves by the package's own name; ignored by git and tsc -p. */
const folder = join(root, ".docs-code-blocks");

interface CodeBlock {
  /** The line of the block's first code line in its document, from 1. */
  readonly firstLine: number;
  /** The file the block is written to. */
  readonly fileName: string;
  readonly code: string;
}

/** The blocks of a Markdown text to check, and how many were marked as fragments. */
function readBlocks(markdown: string): { blocks: CodeBlock[]; fragments: number } {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  let fragments = 0;
  for (let index = 0; index < lines.length; index++) {
    if (lines[index]?.trim() !== "```ts") continue;
    const start = index + 1;
    let end = start;
    while (end < lines.length && lines[end]?.trim() !== "```") end++;
    index = end;
    if (lines[start - 2]?.trim() === fragmentMarker) {
      fragments++;
      continue;
    }
    const named = /^\/\/ ([\w-]+\.ts)\b/.exec(lines[start] ?? "");
    blocks.push({
      firstLine: start + 1,
      fileName: named?.[1] ?? `block-line-${start + 1}.ts`,
      code: lines.slice(start, end).join("\n"),
    });
  }
  return { blocks, fragments };
}

afterAll(() => rmSync(folder, { recursive: true, force: true }));

test("the block reader: fences, fragment markers and file names", () => {
  const markdown = [
    "```ts", // line 1
    'import { App } from "corral";',
    "```",
    "<!-- fragment -->",
    "```ts",
    "app.route(…);",
    "```",
    "```sh",
    "bun test",
    "```",
    "```ts",
    "// shared-data.ts: imported by the block above",
    "export const data = 1;",
    "```",
  ].join("\n");
  expect(readBlocks(markdown)).toEqual({
    blocks: [
      { firstLine: 2, fileName: "block-line-2.ts", code: 'import { App } from "corral";' },
      {
        firstLine: 12,
        fileName: "shared-data.ts",
        code: "// shared-data.ts: imported by the block above\nexport const data = 1;",
      },
    ],
    fragments: 1,
  });
});

test("every ts code block of the README and the docs type-checks against the API", async () => {
  rmSync(folder, { recursive: true, force: true });
  const places = new Map<string, string>();
  const counts: Record<string, number> = {};
  for (const document of documents) {
    const { blocks } = readBlocks(await Bun.file(join(root, document)).text());
    counts[document] = blocks.length;
    // One folder per document: its blocks import one another by file name.
    const subfolder = document.replace(/[/.]/g, "-");
    mkdirSync(join(folder, subfolder), { recursive: true });
    for (const block of blocks) {
      const path = `${subfolder}/${block.fileName}`;
      if (places.has(path)) throw new Error(`${document}: two blocks are ${block.fileName}`);
      places.set(path, `${document}:${block.firstLine}`);
      // `export {}` makes every block a module, as a reader's file would be.
      writeFileSync(join(folder, path), `${block.code}\nexport {};\n`);
    }
  }
  writeFileSync(
    join(folder, "tsconfig.json"),
    JSON.stringify({ extends: "../tsconfig.json", include: [], files: [...places.keys()] }),
  );
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  const compiler = Bun.spawnSync([process.execPath, tsc, "-p", folder, "--pretty", "false"], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  // Each error is reported at its line in the document, not in the generated file.
  const errors = `${compiler.stdout}${compiler.stderr}`
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const match = /([\w-]+\/[\w-]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
      const place = match === null ? undefined : places.get(match[1]!);
      if (match === null || place === undefined) return line;
      const [document, firstLine] = place.split(":");
      return `${document}:${Number(firstLine) + Number(match[2]) - 1}:${match[3]} ${match[4]}`;
    });
  expect({ errors, exitCode: compiler.exitCode }).toEqual({ errors: [], exitCode: 0 });
  // A reader that found no blocks would pass vacuously.
  expect(Object.values(counts).every((count) => count > 0)).toBe(true);
}, 60_000);
