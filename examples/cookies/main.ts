// `bun run example cookies --port <port>`: set, read, expire and delete cookies.
import { serveExample } from "../shared/serve-example.ts";
import { createCookiesApp } from "./cookies-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createCookiesApp;
export default createApp;

/** Where the printed URL opens: the example has no page at `/`. */
export const startPath = "/cookies";

if (import.meta.main)
  await serveExample("cookies", import.meta.path, createApp, process.argv.slice(2), startPath);
