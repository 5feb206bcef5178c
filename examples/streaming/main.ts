// `bun run example streaming --port <port>`: a response streamed in three parts.
import { serveExample } from "../shared/serve-example.ts";
import { createStreamingApp } from "./streaming-app.ts";

serveExample("streaming", createStreamingApp(), process.argv.slice(2));
