// `bun run example sse-jobs --port <port>`: job progress as server-sent events, 200 ms per 10%.
import { serveExample } from "../shared/serve-example.ts";
import { createSseJobsApp } from "./sse-jobs-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = () => createSseJobsApp({ stepMs: 200 });
export default createApp;

if (import.meta.main)
  await serveExample("sse-jobs", import.meta.path, createApp, process.argv.slice(2));
