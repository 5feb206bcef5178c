// `bun run example json-lookup --port <port>`: a JSON API whose answers are bounded by staging.
import { serveExample } from "../shared/serve-example.ts";
import { createJsonLookupApp } from "./json-lookup-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createJsonLookupApp;
export default createApp;

/** Where the printed URL opens: the example has no page at `/`. */
export const startPath = "/items";

if (import.meta.main)
  await serveExample("json-lookup", import.meta.path, createApp, process.argv.slice(2), startPath);
