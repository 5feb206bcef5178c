// `bun run example crud --port <port>`: a bounded note collection with ETags and paging.
import { serveExample } from "../shared/serve-example.ts";
import { createCrudApp } from "./crud-app.ts";

serveExample("crud", createCrudApp(), process.argv.slice(2));
