// Seeded random requests sent both through `app.request()` (in process) and with `fetch` over a
// real socket: the guide promises the in-process `Response` is the one a fetch client gets, so a
// test written in process holds over the wire. Random methods, routes (text, JSON, a stream, 204,
// a redirect, cookies, thrown errors, an echoed body, a streamed upload, the query, 404 and 405),
// request headers, bodies and codings, through middleware that adds headers, ETags and
// compresses. Status, headers (all but `Date`) and body bytes must be the same.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { test } from "bun:test";
import { App, HttpError } from "corral";
import { compress, etag } from "corral/middleware";
import {
  caseSeed,
  expectNoMismatches,
  masterSeed,
  SeededRandom,
} from "../../engine/test/support/seeded-random.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const cases = 150;

function fuzzApp() {
  const app = new App({ shared: {}, log: null })
    .use({ after: (ctx) => ctx.response.header("X-After", "1") })
    .use(etag())
    .use(compress({ thresholdBytes: 100 }));
  app.get("/text/:size", (ctx) => ctx.response.text(200, "t".repeat(Number(ctx.params.size))));
  app.get("/json", (ctx) => ctx.response.json(200, { list: [1, 2, 3], text: "é ✓" }));
  app.get("/stream/:chunks", async (ctx) => {
    const stream = ctx.response.stream(200, "text/plain");
    const writer = stream.writer();
    for (let chunk = 0; chunk < Number(ctx.params.chunks); chunk++) {
      writer.writeAll(`chunk ${chunk}\n`);
      await writer.flush();
    }
    await stream.finish();
  });
  app.get("/empty", (ctx) => ctx.response.setStatus(204));
  app.get("/redirect", (ctx) => ctx.response.redirect(302, "/text/1"));
  app.get("/cookies", (ctx) => {
    ctx.response.setCookie("a", "1", { path: "/" });
    ctx.response.setCookie("b", "2", { httpOnly: true });
    ctx.response.text(200, "set");
  });
  app.get("/throw", () => {
    throw new Error("boom");
  });
  app.get("/teapot", () => {
    throw new HttpError(418, "short and stout", { headers: { "X-Why": "tea" } });
  });
  app.post("/echo", (ctx) => {
    const type = ctx.request.header("content-type") ?? "application/octet-stream";
    ctx.response.bytes(200, type, ctx.request.body.slice());
  });
  app.route(
    "PUT",
    "/upload",
    async (ctx) => {
      let size = 0;
      for await (const piece of ctx.request.bodyStream()) size += piece.length;
      ctx.response.text(201, `stored ${size}`);
    },
    { body: "stream" },
  );
  app.get("/query", (ctx) =>
    ctx.response.json(
      200,
      ctx.request.query().entries.map((entry) => [entry.nameRaw, entry.valueRaw]),
    ),
  );
  app.get("/header", (ctx) => ctx.response.text(200, ctx.request.header("x-custom") ?? "none"));
  return app;
}

interface Planned {
  readonly path: string;
  readonly init: RequestInit;
}

function plan(random: SeededRandom): Planned {
  const headers: Record<string, string> = {
    // Always set: fetch offers every coding unless told, and app.request() none.
    "Accept-Encoding": random.pick(["identity", "gzip", "br", "zstd, gzip", "gzip;q=0"]),
  };
  if (random.oneIn(3)) headers["X-Custom"] = random.pick(["a", "b c", "ünïcode".normalize()]);
  if (random.oneIn(5)) headers["If-None-Match"] = random.pick(["*", '"nope"']);
  const kind = random.pick([
    "text",
    "json",
    "stream",
    "empty",
    "redirect",
    "cookies",
    "throw",
    "teapot",
    "echo",
    "upload",
    "query",
    "header",
    "missing",
    "wrong method",
  ]);
  const method = random.oneIn(8) && ["text", "json", "empty"].includes(kind) ? "HEAD" : "GET";
  switch (kind) {
    case "text":
      return { path: `/text/${random.pick([0, 5, 99, 100, 5000])}`, init: { method, headers } };
    case "stream":
      return { path: `/stream/${random.between(0, 4)}`, init: { method, headers } };
    case "echo": {
      const body = new Uint8Array(random.pick([0, 1, 300, 60_000])).map((_, at) => at % 251);
      headers["Content-Type"] = random.pick(["application/octet-stream", "text/plain"]);
      return { path: "/echo", init: { method: "POST", headers, body } };
    }
    case "upload":
      return {
        path: "/upload",
        init: { method: "PUT", headers, body: "u".repeat(random.pick([0, 10, 100_000])) },
      };
    case "query":
      return {
        path: random.pick(["/query", "/query?a=1&b=%20x&a=2", "/query?=&&x", "/query?%C3%A9=1"]),
        init: { method, headers },
      };
    case "missing":
      return { path: "/nowhere", init: { method, headers } };
    case "wrong method":
      return { path: "/json", init: { method: "DELETE", headers } };
    default:
      return { path: `/${kind}`, init: { method, headers } };
  }
}

/** What a client sees of `response`: status, headers but `Date`, and the body's bytes. */
async function seen(response: Response) {
  const headers = [...response.headers].filter(([name]) => name !== "date");
  const body = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers, body: Buffer.from(body).toString("base64") };
}

test(`${cases} random requests: app.request() gives what fetch over a socket gives (seed ${masterSeed})`, async () => {
  const app = fuzzApp();
  const server = listenQuietly(app);
  const mismatches: unknown[] = [];
  try {
    for (let index = 0; index < cases; index++) {
      const seed = caseSeed("in-process", index);
      const { path, init } = plan(new SeededRandom(seed));
      const options = { ...init, decompress: false, redirect: "manual" as const };
      const inProcess = await seen(await app.request(path, options));
      const overSocket = await seen(await fetch(`http://127.0.0.1:${server.port}${path}`, options));
      if (!Bun.deepEquals(inProcess, overSocket)) {
        mismatches.push({ seed, path, method: init.method, inProcess, overSocket });
      }
    }
  } finally {
    await app.stop();
  }
  expectNoMismatches(mismatches);
});
