// `bun run build` (and `prepack`): the two entries users import, as ES modules and declarations.
//   dist/src/index.js     + dist/src/**/*.d.ts     "corral" (the App)
//   dist/engine/index.js  + dist/engine/**/*.d.ts  "corral/engine" (the engine)
//   dist/src/middleware/index.js                   "corral/middleware" (first-party middleware)
// dist/ also holds the examples' executables (`bun run examples`), so only these two folders are
// replaced.
import { rmSync } from "node:fs";
import { join, relative } from "node:path";
import { pruneDeclarations } from "./prune-declarations.ts";

const root = join(import.meta.dir, "..");
const outputDirectory = join(root, "dist");
const entries = ["src/index.ts", "engine/index.ts"];
// The middleware entry imports the App's entry ("corral"), which it must share, not copy: one
// HttpError class, one App.
const middlewareEntry = "src/middleware/index.ts";
// Executables beside the entries: the `corral` command and the script each supervised process runs.
const executables = ["src/supervisor/corral-command.ts", "src/supervisor/child-main.ts"];

for (const folder of ["src", "engine"]) {
  rmSync(join(outputDirectory, folder), { recursive: true, force: true });
}

/** Bundles `files`; their output sits `engineFromOutput` away from the engine's built entry. */
function bundle(files: readonly string[], engineFromOutput: string, appFromOutput?: string) {
  return Bun.build({
    entrypoints: files.map((entry) => join(root, entry)),
    root,
    outdir: outputDirectory,
    target: "bun",
    format: "esm",
    external: ["mustache"],
    plugins: [
      {
        // The App imports the engine's built entry, so `corral` and `corral/engine` share one
        // engine (one ResponseLimitError class, one defaultLimits) instead of each bundling a copy.
        name: "engine-entry",
        setup(build) {
          build.onResolve({ filter: /^corral\/engine$/ }, () => ({
            path: engineFromOutput,
            external: true,
          }));
          if (appFromOutput !== undefined) {
            build.onResolve({ filter: /^corral$/ }, () => ({
              path: appFromOutput,
              external: true,
            }));
          }
        },
      },
    ],
  });
}

const built = [await bundle(entries, "../engine/index.js")];
built.push(await bundle([middlewareEntry], "../../engine/index.js", "../index.js"));
built.push(await bundle(executables, "../../engine/index.js"));
const javascript = {
  success: built.every((result) => result.success),
  logs: built.flatMap((result) => result.logs),
  outputs: built.flatMap((result) => result.outputs),
};
if (!javascript.success) {
  for (const message of javascript.logs) console.error(message);
  throw new Error("bun build failed");
}

const declarations = Bun.spawnSync(
  ["bun", join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")],
  { cwd: root, stdout: "inherit", stderr: "inherit" },
);
if (declarations.exitCode !== 0) throw new Error("tsc failed to emit the declarations");

const removed = pruneDeclarations(
  outputDirectory,
  [...entries, middlewareEntry].map((entry) => entry.replace(/\.ts$/, ".d.ts")),
);
for (const output of javascript.outputs) {
  console.log(`built ${relative(root, output.path)} (${output.size} bytes)`);
}
console.log(`built declarations; left out ${removed} that no entry reaches`);
