// `bun run example file-serving --port <port> [--dir <folder>]`: an embedded page and asset,
// zero-copy; with --dir, the folder's files at /files/<path> from disk.
import { serveExample } from "../shared/serve-example.ts";
import { takeDirectoryArgument } from "./directory-argument.ts";
import { createFileServingApp } from "./file-serving-app.ts";

/** Where the main process leaves `--dir` for the processes of `--processes N` (inherited). */
const directoryVariable = "CORRAL_FILE_SERVING_DIR";

/** Makes the App; each process of `--processes N` makes its own. */
function createApp() {
  return createFileServingApp({ directory: process.env[directoryVariable] });
}
export default createApp;

/**
 * Takes `--dir D` out of the command line and leaves it where `createApp` finds it (here and in
 * the processes of `--processes N`); returns the rest. A bad folder is one line and exit status 2.
 */
export function prepare(args: readonly string[]): readonly string[] {
  const parsed = takeDirectoryArgument(args);
  if (typeof parsed === "string") {
    console.error(parsed);
    process.exit(2);
  }
  if (parsed.directory !== undefined) process.env[directoryVariable] = parsed.directory;
  return parsed.rest;
}

if (import.meta.main) {
  await serveExample("file-serving", import.meta.path, createApp, prepare(process.argv.slice(2)));
}
