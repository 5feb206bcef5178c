// The "bare engine" baseline for the App pipeline: a corral-engine handler doing the App route's
// decode work with the same codecs (`exchange.queryValueRaw("name")`, the engine's lookup the
// App's `queryValueRaw` uses, `percentDecodeText` into one 1024-byte buffer allocated at
// startup, `writeText`), the same
// request counter, and the same Content-Type, but no router, Context, request view, response
// draft or middleware chain: a path comparison by hand, 404 otherwise, and a DecodeError
// answered 400. Default limits.
import { DecodeError, percentDecodeText } from "corral";
import { listen } from "corral/engine";
import { announceReady, parsePort } from "./cli.ts";
import { reportCorral } from "./corral-control.ts";
import { helloText, nameBufferBytes, nameContentType, namePath } from "./payloads.ts";

const nameBuffer = new Uint8Array(nameBufferBytes);
/** The request counter the other servers keep in middleware, here counted inline. */
const counter = { requests: 0 };

const server = listen({
  port: parsePort(),
  log: null,
  handler(exchange) {
    counter.requests++;
    if (exchange.method !== "GET" || exchange.path !== namePath) {
      exchange.setStatus(404);
      return;
    }
    exchange.setHeader("Content-Type", nameContentType);
    const name = exchange.queryValueRaw("name");
    if (name === undefined) {
      exchange.writeText(helloText);
      return;
    }
    let text: string;
    try {
      text = percentDecodeText(name, nameBuffer);
    } catch (error) {
      exchange.setStatus(400);
      exchange.writeText(error instanceof DecodeError ? error.message : "invalid UTF-8");
      return;
    }
    exchange.writeText(text);
  },
});
reportCorral(server);
announceReady(server.port);
