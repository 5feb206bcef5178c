// `bun run example negotiation --port <port>`: one resource as JSON, HTML or text by Accept.
import { serveExample } from "../shared/serve-example.ts";
import { createNegotiationApp } from "./negotiation-app.ts";

serveExample("negotiation", createNegotiationApp(), process.argv.slice(2));
