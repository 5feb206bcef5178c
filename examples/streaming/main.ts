// `bun run example streaming --port <port>`: a response streamed in three parts.
import { serveExample } from "../shared/serve-example.ts";
import { createStreamingApp } from "./streaming-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createStreamingApp;
export default createApp;

if (import.meta.main)
  await serveExample("streaming", import.meta.path, createApp, process.argv.slice(2));
