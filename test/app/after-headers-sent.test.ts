import { expect, test } from "bun:test";
import { App, middleware } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { recordOutcomes } from "../support/outcome-recorder.ts";

/** Routes answering with a plain body, a stream flushed then returned, and a finished stream. */
function addRoutes(app: App<object>): void {
  app.route("GET", "/plain", (ctx) => ctx.response.text(200, "plain"));
  app.route("GET", "/flushed", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    await writer.writeAll("flushed");
    await writer.flush();
  });
  app.route("GET", "/finished", async (ctx) => {
    const stream = ctx.response.stream(200, "text/plain");
    await stream.writer().writeAll("finished");
    await stream.finish();
  });
}

const paths = ["/plain", "/flushed", "/finished"];

async function fetchAll(port: number) {
  const answers: Array<{ body: string; timing: string | undefined; complete: boolean }> = [];
  for (const path of paths) {
    using client = await RawClient.connect(port);
    client.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
    const response = await client.response();
    const chunked = response.header("transfer-encoding") === "chunked";
    answers.push({
      body: response.text,
      timing: response.header("server-timing"),
      complete: !chunked || client.receivedText.endsWith("0\r\n\r\n"),
    });
  }
  return answers;
}

test("an after hook that checks ctx.response.headersSent adds its header only where it can", async () => {
  const seen: boolean[] = [];
  const app = new App({ shared: {}, log: null }).use(
    middleware({
      after(ctx) {
        seen.push(ctx.response.headersSent);
        if (!ctx.response.headersSent) ctx.response.header("Server-Timing", "app;dur=1");
      },
    }),
  );
  addRoutes(app);
  const server = listenQuietly(app);
  expect({ answers: await fetchAll(server.port), seen }).toEqual({
    answers: [
      { body: "plain", timing: "app;dur=1", complete: true },
      { body: "flushed", timing: undefined, complete: true },
      { body: "finished", timing: undefined, complete: true },
    ],
    seen: [false, true, true],
  });
  await app.stop();
});

test("an after hook that fails once the headers are out never truncates the response; the App logs it", async () => {
  const logged: string[] = [];
  const outcomes: string[] = [];
  const app = new App({
    shared: {},
    log: { error: (...values: unknown[]) => logged.push(values.map(String).join(" ")) },
  })
    .use(recordOutcomes(outcomes))
    .use(
      middleware({
        after(ctx) {
          ctx.response.header("Server-Timing", "app;dur=1");
        },
      }),
    );
  addRoutes(app);
  const server = listenQuietly(app);
  const answers = await fetchAll(server.port);
  await waitUntil(() => outcomes.length === 3, "every cleanup");
  expect({
    answers,
    outcomes,
    logged: logged.map((line) => line.split("\n")[0]),
    handlerFailures: server.stats().handlerFailures,
  }).toEqual({
    answers: [
      { body: "plain", timing: "app;dur=1", complete: true },
      { body: "flushed", timing: undefined, complete: true },
      { body: "finished", timing: undefined, complete: true },
    ],
    outcomes: ["/plain success", "/flushed error", "/finished error"],
    logged: [
      "corral: GET /flushed: an after hook failed once the headers were sent; the response still ends normally: TypeError: corral: headers cannot change after the first flush of a stream",
      "corral: GET /finished: an after hook failed once the headers were sent; the response still ends normally: TypeError: corral: headers cannot change after the first flush of a stream",
    ],
    handlerFailures: 2,
  });
  await app.stop();
});
