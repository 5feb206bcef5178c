// `bun run example crud --port <port>`: a bounded note collection with ETags and paging.
import { serveExample } from "../shared/serve-example.ts";
import { createCrudApp } from "./crud-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createCrudApp;
export default createApp;

/** Where the printed URL opens: the example has no page at `/`. */
export const startPath = "/notes";

if (import.meta.main)
  await serveExample("crud", import.meta.path, createApp, process.argv.slice(2), startPath);
