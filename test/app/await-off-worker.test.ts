import { expect, test } from "bun:test";
import { App } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

const ping = "GET /ping HTTP/1.1\r\nHost: h\r\n\r\n";

test("ctx.awaitOffWorker gives the value or the error of the wait, with the worker back and drafted headers kept", async () => {
  const app = new App({ shared: {}, limits: { workers: 1 } });
  app.route("GET", "/value", async (ctx) => {
    ctx.response.header("X-Drafted", "before the wait");
    const value = await ctx.awaitOffWorker(Promise.resolve("the value"));
    ctx.response.text(200, value);
  });
  app.route("GET", "/error", async (ctx) => {
    try {
      await ctx.awaitOffWorker(Promise.reject(new Error("the wait failed")));
    } catch (error) {
      // The worker is back: a body can be drafted.
      ctx.response.text(200, `caught: ${(error as Error).message}`);
    }
  });
  app.route("GET", "/plain", async (ctx) => {
    // A value that is not a promise is given back as it is.
    const value = await ctx.awaitOffWorker("not a promise" as unknown as Promise<string>);
    ctx.response.text(200, value);
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /value HTTP/1.1\r\nHost: h\r\n\r\nGET /error HTTP/1.1\r\nHost: h\r\n\r\nGET /plain HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const responses = await client.responses(3);
  expect(
    responses.map((response) => [response.status, response.header("x-drafted"), response.text]),
  ).toEqual([
    [200, "before the wait", "the value"],
    [200, undefined, "caught: the wait failed"],
    [200, undefined, "not a promise"],
  ]);
  expect(server.stats().workersBusy).toBe(0);
  await app.stop();
});

test("a wait off the worker lets another route use the only worker, then waits its turn to take it back", async () => {
  const order: string[] = [];
  const { promise: slow, resolve: finishSlow } = Promise.withResolvers<string>();
  const { promise: hold, resolve: releaseHold } = Promise.withResolvers<void>();
  const app = new App({ shared: {}, limits: { workers: 1 } });
  app.route("GET", "/slow", async (ctx) => {
    const text = await ctx.awaitOffWorker(slow);
    order.push("slow");
    ctx.response.text(200, text);
  });
  app.route("GET", "/hold", async (ctx) => {
    await hold;
    order.push("hold");
    ctx.response.text(200, "held");
  });
  app.route("GET", "/ping", (ctx) => {
    order.push("ping");
    ctx.response.text(200, "pong");
  });
  const server = listenQuietly(app);
  using slowClient = await RawClient.connect(server.port);
  slowClient.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().workersBusy === 0, "the slow route to give its worker back");
  using holder = await RawClient.connect(server.port);
  holder.send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().workersBusy === 1, "the hold route to take the worker");
  // The wait ends while the only worker is held: the slow route waits for it, answering nothing.
  finishSlow("slow done");
  await Bun.sleep(20);
  expect([slowClient.receivedText, order]).toEqual(["", []]);
  releaseHold();
  const answers = await Promise.all([slowClient.response(), holder.response()]);
  using side = await RawClient.connect(server.port);
  side.send(ping);
  const pong = await side.response();
  expect({ answers: answers.map((answer) => answer.text), pong: pong.text, order }).toEqual({
    answers: ["slow done", "held"],
    pong: "pong",
    order: ["hold", "slow", "ping"],
  });
  await app.stop();
});

test("a client that leaves during the wait makes it reject with ClientGoneError, whatever the wait gave", async () => {
  const outcomes: string[] = [];
  const { promise: slow, resolve: finishSlow } = Promise.withResolvers<string>();
  const app = new App({ shared: {}, limits: { workers: 1 } });
  app.route("GET", "/slow", async (ctx) => {
    try {
      await ctx.awaitOffWorker(slow);
      outcomes.push("resolved");
    } catch (error) {
      outcomes.push((error as Error).name);
    }
  });
  const server = listenQuietly(app);
  const leaving = await RawClient.connect(server.port);
  leaving.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => server.stats().workersBusy === 0, "the worker to be given back");
  leaving.destroy();
  await Bun.sleep(20);
  finishSlow("too late");
  await waitUntil(() => outcomes.length === 1, "the handler to go on");
  expect(outcomes).toEqual(["ClientGoneError"]);
  await app.stop();
});
