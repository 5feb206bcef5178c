// `bun run example sessions --port <port>`: login, a protected page and logout with sessions.
import { serveExample } from "../shared/serve-example.ts";
import { createSessionsApp } from "./sessions-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createSessionsApp;
export default createApp;

if (import.meta.main)
  await serveExample("sessions", import.meta.path, createApp, process.argv.slice(2));
