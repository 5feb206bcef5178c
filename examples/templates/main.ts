// `bun run example templates --port <port>`: a small site rendered from Mustache templates.
import { serveExample } from "../shared/serve-example.ts";
import { createTemplatesApp } from "./templates-app.ts";

serveExample("templates", createTemplatesApp(), process.argv.slice(2));
