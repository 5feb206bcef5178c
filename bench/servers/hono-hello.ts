// Hono on Bun.serve: one middleware (`c.set` of a typed request counter, then `await next()`)
// and `GET /hello` answering `c.req.query("name")` with `c.text` (or the greeting without a
// name). Hono's query lookup slices the first `name` value out of the URL and decodes it only
// when it holds "%" or "+" ("+" becomes a space there): for `name=world` it does no decoding at
// all, which favours Hono slightly. Content-Type: `text/plain; charset=UTF-8`.
import { Hono } from "hono";
import { announceReady, parsePort } from "./cli.ts";
import { helloText, namePath } from "./payloads.ts";

let requests = 0;

const app = new Hono<{ Variables: { requestNumber: number } }>();
app.use(async (c, next) => {
  c.set("requestNumber", ++requests);
  await next();
});
app.get(namePath, (c) => c.text(c.req.query("name") ?? helloText));

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: parsePort(),
  development: false,
  fetch: app.fetch,
});
announceReady(server.port ?? 0);
