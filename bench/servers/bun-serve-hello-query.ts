// Bun.serve (fetch handler) doing the App route's work by hand. `new URL(req.url).searchParams`
// would parse the whole URL and every pair, so instead: the path and the raw query are sliced from
// `request.url` (always absolute in Bun, so the path starts at the first "/" after "://"), the
// query is split on "&" and "=" until the first `name` entry, and its value is decoded with
// `decodeURIComponent` (percent-decoding plus fatal UTF-8 decoding, like percentDecodeText; a
// `+` stays `+` in both, and both return a value without escapes as it is). A malformed escape
// or invalid UTF-8 is a 400, another path a 404. Same request counter and Content-Type as the corral servers.
import { announceReady, parsePort } from "./cli.ts";
import { helloText, nameContentType, namePath } from "./payloads.ts";

const headers = { "Content-Type": nameContentType };
/** The request counter the other servers keep in middleware, here counted inline. */
const counter = { requests: 0 };

/** The raw value of the first `name` entry of a query (without "?"), or undefined. */
function firstNameRaw(query: string): string | undefined {
  let start = 0;
  while (start < query.length) {
    let end = query.indexOf("&", start);
    if (end < 0) end = query.length;
    const equals = query.indexOf("=", start);
    const nameEnd = equals >= 0 && equals < end ? equals : end;
    if (nameEnd - start === 4 && query.startsWith("name", start)) {
      return nameEnd === end ? "" : query.slice(nameEnd + 1, end);
    }
    start = end + 1;
  }
  return undefined;
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: parsePort(),
  development: false,
  fetch(request) {
    counter.requests++;
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("://") + 3);
    const queryStart = url.indexOf("?", pathStart);
    const path = queryStart < 0 ? url.slice(pathStart) : url.slice(pathStart, queryStart);
    if (request.method !== "GET" || path !== namePath) return new Response(null, { status: 404 });
    const raw = queryStart < 0 ? undefined : firstNameRaw(url.slice(queryStart + 1));
    if (raw === undefined) return new Response(helloText, { headers });
    let text: string;
    try {
      text = decodeURIComponent(raw);
    } catch {
      return new Response("malformed name", { status: 400, headers });
    }
    return new Response(text, { headers });
  },
});
announceReady(server.port ?? 0);
