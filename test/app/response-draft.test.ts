import { expect, test } from "bun:test";
import { App } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { getPipelined } from "../support/get-pipelined.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

test("text, bytes, json, print, header and redirect put exact bytes on the wire", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/text", (ctx) => {
    ctx.response.text(201, "first");
    ctx.response.text(202, "héllo"); // replaces the body
  });
  app.route("GET", "/bytes", (ctx) =>
    ctx.response.bytes(200, "application/octet-stream", new Uint8Array([0, 1, 2, 255])),
  );
  app.route("GET", "/json", (ctx) => {
    ctx.response.header("Cache-Control", "no-store");
    ctx.response.json(200, { n: 1, s: "x" });
  });
  app.route("GET", "/print", (ctx) => {
    ctx.response.print("{} of {} {{done}}\n", 3, 10);
    ctx.response.print("{}\n", "more");
  });
  app.route("GET", "/go", (ctx) => ctx.response.redirect(303, "/elsewhere?x=1"));
  app.route("GET", "/typed", (ctx) => {
    ctx.response.header("Content-Type", "text/csv");
    ctx.response.print("a,b\n");
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    ["/text", "/bytes", "/json", "/print", "/go", "/typed"]
      .map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`)
      .join(""),
  );
  const responses = await client.responses(6);
  const view = responses.map((response) => ({
    status: response.status,
    type: response.header("content-type"),
    length: response.header("content-length"),
    body: Buffer.from(response.body).toString("latin1"),
  }));
  expect(view).toEqual([
    { status: 202, type: "text/plain; charset=utf-8", length: "6", body: "hÃ©llo" },
    { status: 200, type: "application/octet-stream", length: "4", body: "\x00\x01\x02\xff" },
    { status: 200, type: "application/json", length: "15", body: '{"n":1,"s":"x"}' },
    {
      status: 200,
      type: "text/plain; charset=utf-8",
      length: "20",
      body: "3 of 10 {done}\nmore\n",
    },
    { status: 303, type: undefined, length: "0", body: "" },
    { status: 200, type: "text/csv", length: "4", body: "a,b\n" },
  ]);
  expect(responses[2]!.header("cache-control")).toBe("no-store");
  expect(responses[4]!.header("location")).toBe("/elsewhere?x=1");
  await app.stop();
});

test("a body replaces whatever was drafted before it: status, staged text or a borrowed body (by borrowBody)", async () => {
  const app = new App({ shared: {} });
  const borrowed = new Uint8Array(300).fill(0x62);
  app.route("GET", "/status-then-text", (ctx) => {
    ctx.response.setStatus(404);
    ctx.response.text(200, "a");
  });
  app.route("GET", "/text-then-text", (ctx) => {
    ctx.response.text(201, "first");
    ctx.response.text(200, "b");
  });
  app.route("GET", "/print-then-json", (ctx) => {
    ctx.response.print("junk");
    ctx.response.json(200, 1);
  });
  app.route("GET", "/borrow-then-borrow", (ctx) => {
    ctx.response.borrowBody(202, "application/octet-stream", borrowed);
    ctx.response.borrowBody(200, "application/octet-stream", new Uint8Array([1]));
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  const paths = ["/status-then-text", "/text-then-text", "/print-then-json", "/borrow-then-borrow"];
  client.send(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
  const responses = await client.responses(paths.length);
  expect(
    responses.map((response) => [response.status, Buffer.from(response.body).toString("latin1")]),
  ).toEqual([
    [200, "a"],
    [200, "b"],
    [200, "1"],
    [200, "\x01"],
  ]);
  await app.stop();
});

test("setCookie writes validated Set-Cookie lines; invalid ones throw TypeError; cookies are read", async () => {
  const app = new App({ shared: {} });
  const errors: string[] = [];
  app.route("GET", "/", (ctx) => {
    ctx.response.setCookie("session", "abc123", {
      maxAge: 3600,
      path: "/",
      secure: true,
      httpOnly: true,
      sameSite: "Lax",
    });
    ctx.response.setCookie("__Host-id", "1", { path: "/", secure: true });
    ctx.response.setCookie("when", "x", { expires: new Date(Date.UTC(2026, 9, 21, 7, 28)) });
    ctx.response.deleteCookie("old", { path: "/" });
    for (const attempt of [
      () => ctx.response.setCookie("bad name", "v"),
      () => ctx.response.setCookie("n", "a;b"),
      () => ctx.response.setCookie("__Host-x", "1", { path: "/", secure: false }),
      () => ctx.response.setCookie("n", "v", { sameSite: "None" }),
    ]) {
      try {
        attempt();
      } catch (error) {
        errors.push((error as Error).name);
      }
    }
    ctx.response.text(
      200,
      `theme=${ctx.request.cookie("theme")} all=${ctx.request.cookies().length}`,
    );
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\nCookie: theme=dark; lang=en; theme=light\r\n\r\n");
  const response = await client.response();
  const cookies = response.headers.filter(([name]) => name === "set-cookie").map(([, v]) => v);
  expect({ cookies, errors, body: response.text }).toEqual({
    cookies: [
      "session=abc123; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Lax",
      "__Host-id=1; Path=/; Secure",
      "when=x; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
      "old=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/",
    ],
    errors: ["TypeError", "TypeError", "TypeError", "TypeError"],
    body: "theme=dark all=3",
  });
  await app.stop();
});

test("borrowBody sends caller bytes without copying them into staging; headers before and after", async () => {
  const page = new TextEncoder().encode(`<!doctype html>${"<p>corral</p>".repeat(500)}`);
  const app = new App({ shared: {}, limits: { stagingBytes: 4096 } });
  app.route("GET", "/", (ctx) => {
    ctx.response.header("X-Before", "1");
    ctx.response.borrowBody(200, "text/html; charset=utf-8", page);
    ctx.response.header("X-After", "2");
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  expect({
    type: response.header("content-type"),
    before: response.header("x-before"),
    after: response.header("x-after"),
    same: Buffer.from(response.body).equals(Buffer.from(page)),
    copied: server.stats().bytesCopiedToStaging,
    borrowed: server.stats().bytesBorrowed,
  }).toEqual({
    type: "text/html; charset=utf-8",
    before: "1",
    after: "2",
    same: true,
    copied: 0,
    borrowed: page.length,
  });
  await app.stop();
});

test("output past staging is a typed error mapped to 500, never a truncated response", async () => {
  const app = new App({ shared: {}, limits: { stagingBytes: 64 } });
  const names: string[] = [];
  app.route("GET", "/big", (ctx) => ctx.response.text(200, "x".repeat(65)));
  app.route("GET", "/caught", (ctx) => {
    try {
      ctx.response.json(200, { data: "y".repeat(100) });
    } catch (error) {
      names.push((error as Error).name);
      ctx.response.text(507, "too big");
    }
  });
  const big = await app.request("/big");
  const caught = await app.request("/caught");
  expect([big.status, await big.text(), caught.status, await caught.text(), names]).toEqual([
    500,
    "Internal Server Error\n",
    507,
    "too big",
    ["ResponseLimitError"],
  ]);
  await app.stop();
});

test("a 304 leaves out the Content-Type its handler drafted (RFC 9110 §15.4.5); other statuses keep it", async () => {
  const app = new App({ shared: {} });
  for (const status of [304, 200, 204]) {
    app.route("GET", `/${status}`, (ctx) => {
      ctx.response.header("Content-Type", "text/html");
      ctx.response.header("ETag", '"v1"');
      ctx.response.setStatus(status);
    });
  }
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    ["/304", "/200", "/204"].map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""),
  );
  const responses = await client.responses(3);
  expect(
    responses.map((response) => [
      response.status,
      response.header("content-type"),
      response.header("etag"),
    ]),
  ).toEqual([
    [304, undefined, '"v1"'],
    [200, "text/html", '"v1"'],
    [204, "text/html", '"v1"'],
  ]);
  await app.stop();
});

test("a Content-Type set by header() before text() or json() is kept; bytes() and an error answer set their own", async () => {
  const app = new App({ log: null });
  const html = "text/html; charset=utf-8";
  app.get("/html-before", (ctx) => {
    ctx.response.header("Content-Type", html);
    ctx.response.text(200, "<p>before</p>");
  });
  app.get("/html-after", (ctx) => {
    ctx.response.text(200, "<p>after</p>");
    ctx.response.header("Content-Type", html);
  });
  app.get("/problem", (ctx) => {
    ctx.response.header("Content-Type", "application/problem+json");
    ctx.response.json(404, { title: "missing" });
  });
  app.get("/bytes-wins", (ctx) => {
    ctx.response.header("Content-Type", html);
    ctx.response.bytes(200, "image/png", new Uint8Array([137]));
  });
  app.get("/bytes-then-text", (ctx) => {
    ctx.response.bytes(200, "image/png", new Uint8Array([137]));
    ctx.response.text(200, "plain again");
  });
  app.get("/thrown", (ctx) => {
    ctx.response.header("Content-Type", html);
    throw new Error("fails after setting the type");
  });
  const paths = [
    "/html-before",
    "/html-after",
    "/problem",
    "/bytes-wins",
    "/bytes-then-text",
    "/thrown",
  ];
  const responses = await getPipelined(app, paths);
  expect(
    responses.map(
      (response) =>
        `${response.status} ${response.headers.find(([name]) => name === "content-type")?.[1]}`,
    ),
  ).toEqual([
    `200 ${html}`,
    `200 ${html}`,
    "404 application/problem+json",
    "200 image/png",
    "200 text/plain; charset=utf-8",
    "500 text/plain; charset=utf-8",
  ]);
  expect(responses[0]!.text).toBe("<p>before</p>");
  await app.stop();
});
