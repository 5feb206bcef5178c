// `prepare`, when dist/ is missing. Bun runs it after `bun install` in a clone of this repository
// (nothing to do: tests and examples import the sources) and, for a user who trusts corral
// (`bun add --trust git+...`), after installing corral from a git URL: a git checkout holds no
// dist/, so this builds it as `bun pm pack` would. A tarball holds dist/ and never gets here.
import { existsSync, rmSync } from "node:fs";
import { join, sep } from "node:path";

const packageDirectory = join(import.meta.dir, "..");

function run(command: string[]): void {
  const result = Bun.spawnSync(command, {
    cwd: packageDirectory,
    stdout: "inherit",
    stderr: "inherit",
  });
  if (result.exitCode !== 0) {
    throw new Error(`corral: \`${command.join(" ")}\` failed while building the git install`);
  }
}

if (packageDirectory.split(sep).includes("node_modules")) {
  const installedDirectory = join(packageDirectory, "node_modules");
  const hadInstalledDirectory = existsSync(installedDirectory);
  // The build needs the devDependencies (TypeScript and the type packages); Bun installs none for
  // a dependency. --ignore-scripts keeps this install from running `prepare` again; the optional
  // ones are platform binaries of tools the build does not run (Biome).
  run(["bun", "install", "--frozen-lockfile", "--ignore-scripts", "--omit=optional"]);
  run(["bun", "run", "build"]);
  // The built code needs only mustache, which the user's install provides; a node_modules that
  // Bun made for a conflicting mustache version stays.
  if (!hadInstalledDirectory) rmSync(installedDirectory, { recursive: true, force: true });
}
