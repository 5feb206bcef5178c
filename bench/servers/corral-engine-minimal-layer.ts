// The least an App-like layer on the bare engine does for `GET /hello?name=`, as a yardstick for
// the App's own cost (bench/README.md, "Where the App's pipelined time goes"): a context with a
// request view (liveness check, the query parsed once) and a response view (status, body, type
// written at the end), one `before` hook setting a local, a map from path to route, and the same
// decoding as `corral-engine-hello-query.ts`. No middleware chain, error mapping, cleanup,
// dispatch key, body checks or streams: not an App anyone should ship.
import { ParameterRecords, percentDecodeText } from "corral";
import { type Exchange, listen } from "corral/engine";
import { announceReady, parsePort } from "./cli.ts";
import { helloText, nameBufferBytes, nameContentType, namePath } from "./payloads.ts";

const nameBuffer = new Uint8Array(nameBufferBytes);
const shared = { requests: 0 };

class MinimalRequest {
  #exchange: Exchange;
  #active = true;
  #query: ParameterRecords | undefined;
  constructor(exchange: Exchange) {
    this.#exchange = exchange;
  }
  query(): ParameterRecords {
    if (!this.#active || !this.#exchange.live) throw new TypeError("stale");
    this.#query ??= ParameterRecords.parse(this.#exchange.query);
    return this.#query;
  }
  end() {
    this.#active = false;
  }
}
class MinimalResponse {
  #exchange: Exchange;
  #type: string | undefined;
  constructor(exchange: Exchange) {
    this.#exchange = exchange;
  }
  text(status: number, text: string) {
    if (status !== 200) this.#exchange.setStatus(status);
    this.#type = nameContentType;
    this.#exchange.writeText(text);
  }
  finalize() {
    if (this.#type !== undefined) this.#exchange.setHeader("Content-Type", this.#type);
  }
}
class MinimalContext {
  readonly request: MinimalRequest;
  readonly response: MinimalResponse;
  readonly shared = shared;
  readonly locals: { requestNumber?: number } = {};
  constructor(exchange: Exchange) {
    this.request = new MinimalRequest(exchange);
    this.response = new MinimalResponse(exchange);
  }
}
const before = (ctx: MinimalContext) => {
  ctx.locals.requestNumber = ++ctx.shared.requests;
};
const route = (ctx: MinimalContext) => {
  const name = ctx.request.query().firstRaw("name");
  if (name === undefined) {
    ctx.response.text(200, helloText);
    return;
  }
  ctx.response.text(200, percentDecodeText(name.valueRaw, nameBuffer));
};
const routes = new Map([[namePath, route]]);
const server = listen({
  port: parsePort(),
  log: null,
  handler(exchange) {
    const ctx = new MinimalContext(exchange);
    before(ctx);
    const handler = exchange.method === "GET" ? routes.get(exchange.path) : undefined;
    if (handler === undefined) {
      exchange.setStatus(404);
      return;
    }
    handler(ctx);
    ctx.response.finalize();
    ctx.request.end();
  },
});
announceReady(server.port);
