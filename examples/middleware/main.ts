// `bun run example middleware --port <port>`: request ids, timing, bearer auth and cleanup counts.
import { serveExample } from "../shared/serve-example.ts";
import { createMiddlewareApp } from "./middleware-app.ts";

serveExample("middleware", createMiddlewareApp(), process.argv.slice(2));
