// `bun run example uploads --port <port> [--processes <n>] [--dir <folder>]`: streamed uploads
// to a folder.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveExample } from "../shared/serve-example.ts";
import { createUploadsApp } from "./uploads-app.ts";

/** Where the main process leaves the folder for the processes of `--processes N` (inherited). */
const directoryVariable = "CORRAL_UPLOADS_EXAMPLE_DIR";

/** Makes the App; each process of `--processes N` makes its own, writing to the same folder. */
function createApp() {
  const directory = process.env[directoryVariable];
  if (directory === undefined) throw new TypeError("corral uploads: call prepare() first");
  return createUploadsApp({ directory });
}
export default createApp;

/**
 * Takes `--dir <folder>` (a new temporary folder by default) out of the command line and leaves
 * it where `createApp` finds it; returns the rest for `serveExample`.
 */
export function prepare(args: readonly string[]): readonly string[] {
  let directory: string | undefined;
  const rest: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const argument = args[index]!;
    if (argument === "--dir") directory = args[++index] ?? "";
    else if (argument.startsWith("--dir=")) directory = argument.slice("--dir=".length);
    else rest.push(argument);
  }
  if (directory === "") {
    console.error("usage: bun run example uploads --port <0-65535> [--dir <folder>]");
    process.exit(2);
  }
  directory ??= mkdtempSync(join(tmpdir(), "corral-uploads-"));
  process.env[directoryVariable] = directory;
  console.log(`corral uploads: files go to ${directory}`);
  return rest;
}

if (import.meta.main) {
  await serveExample("uploads", import.meta.path, createApp, prepare(process.argv.slice(2)));
}
