// `bun run example file-serving --port <port>`: an embedded page and asset, zero-copy.
import { serveExample } from "../shared/serve-example.ts";
import { createFileServingApp } from "./file-serving-app.ts";

serveExample("file-serving", await createFileServingApp(), process.argv.slice(2));
