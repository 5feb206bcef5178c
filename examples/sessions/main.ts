// `bun run example sessions --port <port>`: login, a protected page and logout with sessions.
import { serveExample } from "../shared/serve-example.ts";
import { createSessionsApp } from "./sessions-app.ts";

serveExample("sessions", createSessionsApp(), process.argv.slice(2));
