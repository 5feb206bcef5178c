// `bun run example json-lookup --port <port>`: a JSON API whose answers are bounded by staging.
import { serveExample } from "../shared/serve-example.ts";
import { createJsonLookupApp } from "./json-lookup-app.ts";

serveExample("json-lookup", createJsonLookupApp(), process.argv.slice(2));
