// `bun run example file-serving --port <port>`: an embedded page and asset, zero-copy.
import { serveExample } from "../shared/serve-example.ts";
import { createFileServingApp } from "./file-serving-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createFileServingApp;
export default createApp;

if (import.meta.main)
  await serveExample("file-serving", import.meta.path, createApp, process.argv.slice(2));
