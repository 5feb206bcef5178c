import { expect, test } from "bun:test";
import { App, HttpError } from "corral";
import { cors, rateLimit } from "corral/middleware";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const allowed = "https://app.example";

function corsApp() {
  const app = new App({ shared: {}, log: null })
    .use(cors({ origin: [allowed], credentials: true, exposeHeaders: ["X-Total"] }))
    .use(rateLimit({ limit: 7 }));
  app.get("/items", (ctx) => ctx.response.json(200, []));
  app.post("/items", () => {
    throw new HttpError(422, "invalid", { body: { errors: [] } });
  });
  return app;
}

test("allowed origins get their origin back on every answer, errors included; Vary: Origin always", async () => {
  const app = corsApp();
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  const requests = [
    ["GET /items", allowed],
    ["GET /missing", allowed],
    ["DELETE /items", allowed],
    ["POST /items", allowed],
    ["GET /items", "https://evil.example"],
    ["GET /items", "null"],
    ["GET /items", undefined],
    ["GET /items", allowed],
  ] as const;
  client.send(
    requests
      .map(([line, origin], index) => {
        const originLine = origin === undefined ? "" : `Origin: ${origin}\r\n`;
        const body = line.startsWith("POST") ? "Content-Length: 0\r\n" : "";
        const close = index === requests.length - 1 ? "Connection: close\r\n" : "";
        return `${line} HTTP/1.1\r\nHost: h\r\n${originLine}${body}${close}\r\n`;
      })
      .join(""),
  );
  const responses = await client.responses(requests.length);
  expect(
    responses.map((response) => [
      response.status,
      response.header("access-control-allow-origin"),
      response.header("access-control-allow-credentials"),
      response.header("access-control-expose-headers"),
      response.header("vary"),
    ]),
  ).toEqual([
    [200, allowed, "true", "X-Total", "Origin"],
    [404, allowed, "true", "X-Total", "Origin"],
    [405, allowed, "true", "X-Total", "Origin"],
    [422, allowed, "true", "X-Total", "Origin"],
    [200, undefined, undefined, undefined, "Origin"],
    [200, undefined, undefined, undefined, "Origin"],
    [200, undefined, undefined, undefined, "Origin"],
    [429, allowed, "true", "X-Total", "Origin"],
  ]);
  await app.stop();
});

test("a preflight is a 204 with methods, headers and an explicit max age; the route does not run", async () => {
  const app = corsApp();
  const preflight = await app.request("/items", {
    method: "OPTIONS",
    headers: {
      origin: allowed,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, x-custom",
    },
  });
  const foreign = await app.request("/items", {
    method: "OPTIONS",
    headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
  });
  expect([
    preflight.status,
    preflight.headers.get("access-control-allow-origin"),
    preflight.headers.get("access-control-allow-methods"),
    preflight.headers.get("access-control-allow-headers"),
    preflight.headers.get("access-control-max-age"),
    foreign.status,
    foreign.headers.get("access-control-allow-origin"),
    foreign.headers.get("access-control-allow-methods"),
  ]).toEqual([
    204,
    allowed,
    "GET, HEAD, POST, PUT, PATCH, DELETE",
    "content-type, x-custom",
    "600",
    204,
    null,
    null,
  ]);
  await app.stop();
});

test("misconfigurations are TypeErrors: null, wildcard with credentials, not an origin", () => {
  expect(() => cors({ origin: ["null"] })).toThrow(TypeError);
  expect(() => cors({ origin: "*", credentials: true })).toThrow(TypeError);
  expect(() => cors({ origin: "app.example" })).toThrow(TypeError);
  expect(() => cors({ origin: "https://app.example/" })).toThrow(TypeError);
  expect(() => cors({ origin: allowed, maxAgeSeconds: -1 })).toThrow(TypeError);
});

test("an origin that no browser sends is a TypeError at cors(), naming the form it would send", () => {
  const refusals = [
    "https://App.Example",
    "https://a.example/app",
    "https://a.example:443",
    "http://a.example:80",
    "https://a.example?x",
    "https://a.example#top",
    " https://a.example",
    "https://user@a.example",
    "chrome-extension://abcdefgh/",
    "file:///index.html",
    "",
  ].map((entry) => {
    try {
      cors({ origin: [entry] });
      return [entry, "accepted"];
    } catch (error) {
      return [entry, error instanceof TypeError ? error.message : "not a TypeError"];
    }
  });
  const refused = (entry: string, sent?: string) =>
    `corral: cors origin ${JSON.stringify(entry)} is not an origin like "https://app.example"` +
    (sent === undefined ? "" : ` (a browser sends "${sent}")`);
  expect(refusals).toEqual([
    ["https://App.Example", refused("https://App.Example", "https://app.example")],
    ["https://a.example/app", refused("https://a.example/app", "https://a.example")],
    ["https://a.example:443", refused("https://a.example:443", "https://a.example")],
    ["http://a.example:80", refused("http://a.example:80", "http://a.example")],
    ["https://a.example?x", refused("https://a.example?x", "https://a.example")],
    ["https://a.example#top", refused("https://a.example#top", "https://a.example")],
    [" https://a.example", refused(" https://a.example", "https://a.example")],
    ["https://user@a.example", refused("https://user@a.example", "https://a.example")],
    [
      "chrome-extension://abcdefgh/",
      refused("chrome-extension://abcdefgh/", "chrome-extension://abcdefgh"),
    ],
    ["file:///index.html", refused("file:///index.html")],
    ["", refused("")],
  ]);
});

test("origins as browsers send them are accepted and matched exactly", async () => {
  const origins = [
    "https://a.example:8443",
    "http://127.0.0.1:3000",
    "http://[::1]:8080",
    "chrome-extension://abcdefgh",
  ];
  const app = new App({ shared: {}, log: null }).use(cors({ origin: origins }));
  app.get("/", (ctx) => ctx.response.text(200, "ok"));
  const allowedOrigins = [];
  for (const origin of [...origins, "https://a.example", "https://A.example:8443"]) {
    const response = await app.request("/", { headers: { origin } });
    allowedOrigins.push(response.headers.get("access-control-allow-origin"));
  }
  expect(allowedOrigins).toEqual([...origins, null, null]);
  await app.stop();
});

test("a function decides, and null is refused even when it says yes", async () => {
  const app = new App({ shared: {} }).use(cors({ origin: () => true }));
  app.get("/", (ctx) => ctx.response.text(200, "ok"));
  const fromNull = await app.request("/", { headers: { origin: "null" } });
  const fromAny = await app.request("/", { headers: { origin: "https://x.example" } });
  expect([
    fromNull.headers.get("access-control-allow-origin"),
    fromAny.headers.get("access-control-allow-origin"),
  ]).toEqual([null, "https://x.example"]);
  await app.stop();
});
