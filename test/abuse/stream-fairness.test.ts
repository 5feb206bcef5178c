import { expect, test } from "bun:test";
import { App } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { writesPerTurn } from "../../src/response-stream.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

// The guide's `/numbers` stream, read by a fast client: each `print` fits in staging and settles
// at once, so before, the whole stream ran in one turn of the event loop (about 0.7 s for a
// million numbers) and a side client waited for all of it. A writer now lets the others run
// after every 256 writes in a row.

test("a fast reader of a stream of small writes: a side client is answered while the stream goes on", async () => {
  const total = 200_000;
  let printed = 0;
  const app = new App({ shared: {}, log: null });
  app.get("/numbers", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain; charset=utf-8").writer();
    for (let n = 0; n < total; n++) {
      await writer.print("{}\n", n);
      printed++;
    }
  });
  app.get("/side", (ctx) => ctx.response.text(200, `side after ${printed}`));
  const server = listenQuietly(app);
  using reader = await RawClient.connect(server.port);
  reader.send("GET /numbers HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => printed > 0, "the stream to start");
  using side = await RawClient.connect(server.port);
  side.send("GET /side HTTP/1.1\r\nHost: h\r\n\r\n");
  const printedBeforeSide = Number((await side.response()).text.split(" ").at(-1));
  expect(writesPerTurn).toBe(256);
  expect(printedBeforeSide).toBeLessThan(total / 4);
  const numbers = (await reader.response(30_000)).text.split("\n");
  expect([numbers.length, numbers[0], numbers[total - 1], numbers[total]]).toEqual([
    total + 1,
    "0",
    String(total - 1),
    "",
  ]);
  await app.stop();
}, 60_000);
