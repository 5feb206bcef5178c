// The entry module of the `cores` scenario's corral group: each process of `serve()` makes this
// App, `GET /` answering "Hello, World!". Default limits.
import { App } from "corral";
import { helloText } from "./payloads.ts";

export default function createHelloApp(): App<object> {
  const app = new App({ shared: {} });
  app.route("GET", "/", (ctx) => {
    ctx.response.text(200, helloText);
  });
  return app;
}
