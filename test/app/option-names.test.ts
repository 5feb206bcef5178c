import { expect, test } from "bun:test";
import {
  App,
  EmbeddedAssets,
  EventChannel,
  HttpError,
  RedisConnection,
  RedisEventChannel,
  RedisRoomBridge,
  RedisSessionStore,
  Rooms,
  SessionCookie,
  SessionStore,
  serverSentEvents,
  serveStatic,
  TemplateSet,
  WorkerPool,
} from "corral";
import {
  compress,
  cors,
  etag,
  logger,
  rateLimit,
  requestId,
  secureHeaders,
} from "corral/middleware";

// Every call that takes an options object refuses one it does not know: a misspelt option was
// ignored without a word, its setting left at the default (a cookie without HttpOnly, a rate
// limit at its default, a session's lifetime at its default). Each is a cast, standing for
// JavaScript or an options object built elsewhere: the types refuse these already.
const loose = (options: object) => options as never;
const refusals: [string, string, () => unknown][] = [
  ["cors()", "orgin", () => cors(loose({ origin: "*", orgin: "x" }))],
  ["secureHeaders()", "frameOptions", () => secureHeaders(loose({ frameOptions: "DENY" }))],
  ["rateLimit()", "windowMS", () => rateLimit(loose({ limit: 10, windowMS: 1000 }))],
  ["compress()", "threshold", () => compress(loose({ threshold: 0 }))],
  ["etag()", "strong", () => etag(loose({ strong: true }))],
  ["logger()", "output", () => logger(loose({ output: () => {} }))],
  ["requestId()", "headerName", () => requestId(loose({ headerName: "X-Id" }))],
  ["serveStatic()", "allowDotFiles", () => serveStatic(loose({ root: ".", allowDotFiles: true }))],
  ["new SessionStore()", "lifetime", () => new SessionStore(loose({ capacity: 1, lifetime: 1 }))],
  [
    "new SessionCookie()",
    "sameSite",
    () => new SessionCookie(loose({ secure: true, sameSite: "Strict" })),
  ],
  ["new TemplateSet()", "partial", () => new TemplateSet(loose({ templates: {}, partial: {} }))],
  [
    "new EventChannel()",
    "capacity",
    () => new EventChannel(loose({ replayCapacity: 1, maxSubscribers: 1, capacity: 1 })),
  ],
  [
    "serverSentEvents()",
    "heartbeat",
    () =>
      serverSentEvents(
        new EventChannel({ replayCapacity: 1, maxSubscribers: 1 }),
        loose({ heartbeat: 1000 }),
      ),
  ],
  ["new HttpError()", "status", () => new HttpError(404, "gone", loose({ status: 410 }))],
  ["new WorkerPool()", "workers", () => new WorkerPool(loose({ script: "./job.ts", workers: 2 }))],
];

for (const [call, option, attempt] of refusals) {
  test(`${call} refuses a misspelt option (${option}) by name`, () => {
    expect(attempt).toThrow(`corral: ${call} has no option "${option}" (its options: `);
  });
}

test("setCookie refuses a misspelt attribute: a cookie meant HttpOnly is not sent without it", async () => {
  const app = new App({ log: null });
  app.get("/", (ctx) => {
    ctx.response.setCookie("session", "s", loose({ httponly: true }));
    ctx.response.text(200, "ok");
  });
  const response = await app.request("/");
  expect([response.status, response.headers.get("set-cookie")]).toEqual([500, null]);
  await app.stop();
});

test("the Redis calls and embedded assets refuse a misspelt option before they connect or read", async () => {
  await expect(
    RedisConnection.open(loose({ url: "redis://127.0.0.1:1", timeoutMs: 5 })),
  ).rejects.toThrow('corral: RedisConnection.open() has no option "timeoutMs"');
  const redis = loose({});
  await expect(
    RedisEventChannel.open(
      loose({
        redis,
        subscriber: redis,
        name: "n",
        replayCapacity: 1,
        maxSubscribers: 1,
        capacity: 1,
      }),
    ),
  ).rejects.toThrow('corral: RedisEventChannel.open() has no option "capacity"');
  await expect(
    RedisRoomBridge.open(new Rooms(), loose({ redis, subscriber: redis, chanel: "x" })),
  ).rejects.toThrow('corral: RedisRoomBridge has no option "chanel"');
  expect(
    () => new RedisSessionStore(loose({ redis, capacity: 1, lifetimeMs: 1, lifetime: 1 })),
  ).toThrow('corral: new RedisSessionStore() has no option "lifetime"');
  await expect(EmbeddedAssets.fromFiles({}, loose({ precompressed: ["br"] }))).rejects.toThrow(
    'corral: EmbeddedAssets has no option "precompressed"',
  );
});

test("the option checks list the right names", () => {
  expect(() => cors(loose({ origins: ["https://a.example"] }))).toThrow(
    'corral: cors() has no option "origins" (its options: origin, credentials, methods, allowHeaders, exposeHeaders, maxAgeSeconds)',
  );
});
