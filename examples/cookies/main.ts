// `bun run example cookies --port <port>`: set, read, expire and delete cookies.
import { serveExample } from "../shared/serve-example.ts";
import { createCookiesApp } from "./cookies-app.ts";

serveExample("cookies", createCookiesApp(), process.argv.slice(2));
