import { expect, test } from "bun:test";
import { flushesPerTurn } from "../src/internal/flush-turns.ts";
import { RawClient } from "./support/raw-client.ts";
import { startServer, waitUntil } from "./support/test-server.ts";

// A flush the socket takes at once settles in the same turn of the event loop, and so does the
// handler's next step: a stream of small flushes to a fast reader could keep one turn going
// for most of a second. A stream's flushes settle at most 64 in a row before the next waits for
// the next turn, and the other clients run in between.

test("64 flushes in a row, then the next turn: a side client is answered while a long stream of small flushes goes on", async () => {
  const total = 20_000;
  let flushed = 0;
  await using server = startServer(async (exchange) => {
    if (exchange.path === "/side") {
      exchange.writeText(`side after ${flushed}`);
      return;
    }
    const stream = exchange.stream();
    for (let index = 0; index < total; index++) {
      stream.writeText(".");
      await stream.flush();
      flushed++;
    }
    await stream.finish();
  });
  using streaming = await RawClient.connect(server.port);
  streaming.send("GET /long HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(() => flushed > 0, "the stream to start");
  using side = await RawClient.connect(server.port);
  side.send("GET /side HTTP/1.1\r\nHost: h\r\n\r\n");
  const answer = (await side.response()).text;
  const flushedBeforeSide = Number(answer.split(" ").at(-1));
  expect(flushesPerTurn).toBe(64);
  expect(flushedBeforeSide).toBeLessThan(total / 4);
  const whole = await streaming.response(20_000);
  expect(whole.text).toBe(".".repeat(total));
});
