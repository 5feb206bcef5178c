// `bun run example templates --port <port>`: a small site rendered from Mustache templates.
import { serveExample } from "../shared/serve-example.ts";
import { createTemplatesApp } from "./templates-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createTemplatesApp;
export default createApp;

if (import.meta.main)
  await serveExample("templates", import.meta.path, createApp, process.argv.slice(2));
