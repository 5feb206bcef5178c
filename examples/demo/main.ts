// The demo executable: `bun run demo --port <port>` serves /hello, /form and /upload.
import { serveExample } from "../shared/serve-example.ts";
import { createDemoApp } from "./demo-app.ts";

serveExample("demo", createDemoApp(), process.argv.slice(2));
