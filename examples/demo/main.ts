// The demo executable: `bun run demo --port <port> [--processes <n>]` serves /hello, /form and /upload,
// and at / a page with a form for each.
import { serveExample } from "../shared/serve-example.ts";
import { createDemoApp } from "./demo-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createDemoApp;
export default createApp;

if (import.meta.main)
  await serveExample("demo", import.meta.path, createApp, process.argv.slice(2));
