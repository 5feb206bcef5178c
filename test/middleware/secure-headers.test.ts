import { expect, test } from "bun:test";
import { App, HttpError } from "corral";
import { secureHeaders } from "corral/middleware";

async function headersOf(app: App<object>, path = "/"): Promise<Record<string, string>> {
  const response = await app.request(path);
  const headers = Object.fromEntries(response.headers);
  delete headers.date;
  delete headers["content-length"];
  delete headers["content-type"];
  delete headers.connection;
  return headers;
}

const helmetDefaults = {
  "content-security-policy":
    "default-src 'self'; base-uri 'self'; font-src 'self' https: data:; form-action 'self'; frame-ancestors 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' https: 'unsafe-inline'",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "origin-agent-cluster": "?1",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-dns-prefetch-control": "off",
  "x-download-options": "noopen",
  "x-frame-options": "SAMEORIGIN",
  "x-permitted-cross-domain-policies": "none",
  "x-xss-protection": "0",
};

test("helmet's default set on every answer, errors included; no HSTS over plain HTTP", async () => {
  const app = new App({ shared: {} }).use(secureHeaders());
  app.get("/", (ctx) => ctx.response.text(200, "ok"));
  app.get("/error", () => {
    throw new HttpError(400, "bad");
  });
  expect(await headersOf(app)).toEqual(helmetDefaults);
  expect(await headersOf(app, "/error")).toEqual(helmetDefaults);
  expect(await headersOf(app, "/missing")).toEqual(helmetDefaults);
  await app.stop();
});

test("each header can be replaced or left out; HSTS and upgrade-insecure-requests only behind TLS", async () => {
  const app = new App({ shared: {} }).use(
    secureHeaders({
      headers: {
        "X-Frame-Options": "DENY",
        "X-XSS-Protection": false,
        "Permissions-Policy": "camera=()",
      },
      behindTls: true,
    }),
  );
  app.get("/", (ctx) => ctx.response.text(200, "ok"));
  const { "x-xss-protection": _, ...rest } = helmetDefaults;
  expect(await headersOf(app)).toEqual({
    ...rest,
    "content-security-policy": `${helmetDefaults["content-security-policy"]}; upgrade-insecure-requests`,
    "x-frame-options": "DENY",
    "permissions-policy": "camera=()",
    "strict-transport-security": "max-age=31536000; includeSubDomains",
  });
  await app.stop();
});

test("option names are matched without case: a lower-case name replaces or removes its default, never a second line", async () => {
  // Lower-case names added a line beside the default (two X-Frame-Options, two HSTS) and
  // `false` removed nothing.
  const app = new App({ shared: {} }).use(
    secureHeaders({
      headers: {
        "x-frame-options": false,
        "strict-transport-security": "max-age=60",
        "content-security-policy": "default-src 'none'",
      },
      behindTls: true,
    }),
  );
  app.get("/", (ctx) => ctx.response.text(200, "ok"));
  const headers = await headersOf(app);
  expect({
    frame: headers["x-frame-options"],
    hsts: headers["strict-transport-security"],
    csp: headers["content-security-policy"],
  }).toEqual({ frame: undefined, hsts: "max-age=60", csp: "default-src 'none'" });
  await app.stop();
});

test("a bad header name or value is a TypeError when the middleware is made, not a 500 per request; a handler replaces a header by removing it first", async () => {
  expect(() => secureHeaders({ headers: { "X-Evil": "a\r\nb" } })).toThrow(TypeError);
  expect(() => secureHeaders({ headers: { "Bad Name": "x" } })).toThrow(TypeError);
  const app = new App({ shared: {} }).use(secureHeaders());
  app.get("/popup", (ctx) => {
    ctx.response.removeHeader("Cross-Origin-Opener-Policy");
    ctx.response.header("Cross-Origin-Opener-Policy", "same-origin-allow-popups");
    ctx.response.text(200, "ok");
  });
  expect((await headersOf(app, "/popup"))["cross-origin-opener-policy"]).toBe(
    "same-origin-allow-popups",
  );
  await app.stop();
});
