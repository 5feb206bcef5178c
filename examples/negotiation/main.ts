// `bun run example negotiation --port <port>`: one resource as JSON, HTML or text by Accept.
import { serveExample } from "../shared/serve-example.ts";
import { createNegotiationApp } from "./negotiation-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createNegotiationApp;
export default createApp;

/** Where the printed URL opens: the example has no page at `/`. */
export const startPath = "/greeting";

if (import.meta.main)
  await serveExample("negotiation", import.meta.path, createApp, process.argv.slice(2), startPath);
