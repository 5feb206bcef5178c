// `bun run example sse-jobs --port <port>`: job progress as server-sent events, 200 ms per 10%.
import { serveExample } from "../shared/serve-example.ts";
import { createSseJobsApp } from "./sse-jobs-app.ts";

serveExample("sse-jobs", createSseJobsApp({ stepMs: 200 }), process.argv.slice(2));
