// `bun run example continuations --port <port>`: a chat room streamed to many clients on 4 workers.
import { serveExample } from "../shared/serve-example.ts";
import { createContinuationsApp } from "./continuations-app.ts";

serveExample("continuations", createContinuationsApp(), process.argv.slice(2));
