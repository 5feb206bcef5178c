// `bun run example middleware --port <port>`: request ids, timing, bearer auth and cleanup counts.
import { serveExample } from "../shared/serve-example.ts";
import { createMiddlewareApp } from "./middleware-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createMiddlewareApp;
export default createApp;

if (import.meta.main)
  await serveExample("middleware", import.meta.path, createApp, process.argv.slice(2));
