// The corral App pipeline: App -> one middleware (a `before` hook setting a typed local) ->
// router -> `GET /hello`, doing the demo's work: the raw `name` from the query
// (`ctx.request.queryValueRaw`), `params.percentDecodeText` into one 1024-byte buffer allocated
// at startup (percent-decoding and fatal UTF-8 decoding; a name with no escape and only ASCII is
// its own decoding), `ctx.response.text(200, text)`. Without a name: the shared greeting. A
// malformed escape, a name over 1024 bytes or invalid UTF-8 is a DecodeError, which the App
// answers 400. Default limits.
import { App, middleware, params } from "corral";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import { helloText, nameBufferBytes, namePath } from "./payloads.ts";

interface Shared {
  readonly greeting: string;
  /** Scratch for the decoded name; requests on this App run one at a time on one thread. */
  readonly nameBuffer: Uint8Array;
  requests: number;
}

/** Numbers every request: the typed local `requestNumber`. */
const requestCounter = middleware<{ requestNumber: number }, Record<never, never>, Shared>({
  before(ctx) {
    ctx.locals.requestNumber = ++ctx.shared.requests;
  },
});

const app = new App<Shared>({
  shared: { greeting: helloText, nameBuffer: new Uint8Array(nameBufferBytes), requests: 0 },
}).use(requestCounter);

app.route("GET", namePath, (ctx) => {
  const name = ctx.request.queryValueRaw("name");
  if (name === undefined) {
    ctx.response.text(200, ctx.shared.greeting);
    return;
  }
  const text = params.percentDecodeText(name, ctx.shared.nameBuffer);
  ctx.response.text(200, text);
});

const server = app.listen({ hostname: "127.0.0.1", port: parsePort() });
reportCorral({ budget: server.budget, limits: app.limits, stats: () => server.stats() });
announceReady(server.port);
