import { copyFileSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import corralPackage from "../../../package.json";
import { mustRun } from "./run-command.ts";

const repositoryRoot = join(import.meta.dir, "../../..");

/** corral as a user gets it: a git clone to install from, and the tarball `bun pm pack` made. */
export interface PackedCorral {
  /** A git repository holding this working tree's files in one commit. */
  readonly clone: string;
  readonly tarball: string;
}

/** The files git would commit: tracked or new, not ignored (so no node_modules, no dist/). */
async function workingTreeFiles(): Promise<string[]> {
  const listing = await mustRun(
    ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    repositoryRoot,
  );
  return listing
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(repositoryRoot, file)));
}

/**
 * Copies this working tree to `clone`, commits it there, and packs it into `directory` with
 * `bun pm pack` (whose prepack builds dist/ in the copy, never in this repository). The copy uses
 * this repository's node_modules for the build, linked after the commit so git never sees it.
 */
export async function packCorral(clone: string, directory: string): Promise<PackedCorral> {
  for (const file of await workingTreeFiles()) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(repositoryRoot, file), join(clone, file));
  }
  const git = ["git", "-c", "user.name=corral test", "-c", "user.email=test@corral.invalid"];
  await mustRun(["git", "init", "--quiet", "--initial-branch=main"], clone);
  await mustRun([...git, "add", "--all"], clone);
  await mustRun([...git, "commit", "--quiet", "--no-gpg-sign", "--message", "corral"], clone);
  symlinkSync(join(repositoryRoot, "node_modules"), join(clone, "node_modules"), "dir");
  await mustRun(["bun", "pm", "pack", "--destination", directory], clone);
  return { clone, tarball: join(directory, `corral-${corralPackage.version}.tgz`) };
}
