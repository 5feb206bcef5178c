import { expect, test } from "bun:test";
import { App } from "corral";
import { isValidRequestId, requestId } from "corral/middleware";

const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function idApp(trustIncoming: boolean) {
  const app = new App({ shared: {}, log: null }).use(requestId({ trustIncoming }));
  app.get("/", (ctx) => ctx.response.text(200, ctx.locals.requestId));
  app.get("/fail", () => {
    throw new Error("broken");
  });
  app.get("/stream", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll(ctx.locals.requestId);
  });
  return app;
}

test("a new UUIDv7 per request, in locals and on every answer; an untrusted id is ignored", async () => {
  const app = idApp(false);
  const answers = [];
  for (const path of ["/", "/fail", "/stream", "/missing"]) {
    const response = await app.request(path, { headers: { "x-request-id": "client-chosen" } });
    const id = response.headers.get("x-request-id") ?? "";
    const body = await response.text();
    answers.push([
      response.status,
      uuidV7.test(id),
      path === "/" || path === "/stream" ? body === id : true,
    ]);
  }
  expect(answers).toEqual([
    [200, true, true],
    [500, true, true],
    [200, true, true],
    [404, true, true],
  ]);
  await app.stop();
});

test("a trusted sender's valid id is kept (128 characters at most, safe characters only)", async () => {
  const app = idApp(true);
  const ids = ["abc-123_x.y~z:1/2+3=4@5", "a".repeat(128), "a".repeat(129), "has space", "é"];
  const kept = [];
  for (const id of ids) {
    const response = await app.request("/", { headers: { "x-request-id": id } });
    kept.push(response.headers.get("x-request-id") === id);
  }
  expect(kept).toEqual([true, true, false, false, false]);
  expect([isValidRequestId(""), isValidRequestId("a\r\nb")]).toEqual([false, false]);
  await app.stop();
});
