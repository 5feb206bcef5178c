// Elysia (on Bun.serve): one `derive` hook adding a typed request counter to the context, and
// `GET /hello` answering `query.name` or the greeting without a name, as a string (Elysia answers
// it as `text/plain;charset=utf-8`). Elysia splits the whole query into an object and, like Hono,
// decodes only values holding "%" or "+": for `name=world` it decodes nothing.
import { Elysia } from "elysia";
import { announceReady, parsePort } from "./cli.ts";
import { helloText, namePath } from "./payloads.ts";

let requests = 0;

const app = new Elysia()
  .derive(() => ({ requestNumber: ++requests }))
  .get(namePath, ({ query }) => query.name ?? helloText)
  .listen({ hostname: "127.0.0.1", port: parsePort(), development: false });

announceReady(app.server?.port ?? 0);
