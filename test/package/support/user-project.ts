import { copyFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { quickStart } from "./quick-start.ts";
import { mustRun } from "./run-command.ts";

/** The strict options a careful user turns on over what `bun init` writes, libraries checked. */
export const strictCompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noPropertyAccessFromIndexSignature: true,
  verbatimModuleSyntax: true,
  skipLibCheck: false,
} as const;

const userApp = join(import.meta.dir, "../fixtures/user-app.ts");
const readme = join(import.meta.dir, "../../../README.md");

/**
 * A new user's project in `directory`: `bun init -y`, then `bun add <source>` (a tarball or a git
 * URL, with the extra arguments given), the app of fixtures/user-app.ts as app.ts, the README's
 * quick start as index.ts, and bun init's tsconfig.json extended with `strictCompilerOptions`.
 */
export async function createUserProject(
  directory: string,
  source: string,
  addArguments: readonly string[] = [],
): Promise<string> {
  mkdirSync(directory, { recursive: true });
  await mustRun(["bun", "init", "-y"], directory);
  await mustRun(["bun", "add", ...addArguments, source], directory);
  copyFileSync(userApp, join(directory, "app.ts"));
  writeFileSync(join(directory, "index.ts"), quickStart(await Bun.file(readme).text()).code);
  renameSync(join(directory, "tsconfig.json"), join(directory, "tsconfig.init.json"));
  const tsconfig = { extends: "./tsconfig.init.json", compilerOptions: strictCompilerOptions };
  writeFileSync(join(directory, "tsconfig.json"), `${JSON.stringify(tsconfig, null, 2)}\n`);
  return directory;
}
