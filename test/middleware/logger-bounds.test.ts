import { expect, test } from "bun:test";
import { App } from "corral";
import { logger } from "corral/middleware";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { LogQueue } from "../../src/middleware/log-queue.ts";

/** A sink that takes its first batch and never settles: a stalled log shipper. */
function stalledSink() {
  const batches: string[] = [];
  const sink = (text: string) => {
    batches.push(text);
    return new Promise<void>(() => {});
  };
  return { batches, sink };
}

test("maxQueuedBytes: lines exactly at the bound wait; one byte over is dropped and counted", async () => {
  const { batches, sink } = stalledSink();
  const queue = new LogQueue(sink, { maxQueuedLines: 100, maxQueuedBytes: 10 });
  queue.push("abcd\n");
  queue.push("efgh\n");
  queue.push("\n");
  expect(queue.stats()).toEqual({ written: 0, dropped: 1, queued: 2 });
  // Once the sink holds that batch, the bound applies to the lines waiting behind it.
  await waitUntil(() => batches.length === 1, "the first batch");
  expect(batches).toEqual(["abcd\nefgh\n"]);
  queue.push("123456789\n");
  queue.push("\n");
  expect(queue.stats()).toEqual({ written: 0, dropped: 2, queued: 1 });
});

test("maxQueuedBytes: a line longer than the bound is dropped, and bytes are UTF-8 bytes", () => {
  const { sink } = stalledSink();
  const queue = new LogQueue(sink, { maxQueuedLines: 100, maxQueuedBytes: 3 });
  queue.push("abcd\n");
  expect(queue.stats()).toEqual({ written: 0, dropped: 1, queued: 0 });
  queue.push("é\n"); // two characters, three bytes
  queue.push("\n");
  expect(queue.stats()).toEqual({ written: 0, dropped: 2, queued: 1 });
});

test("a stalled sink holds at most 1 MiB of lines by default, whatever their length", async () => {
  const { batches, sink } = stalledSink();
  const log = logger({ sink });
  const app = new App({ shared: {}, log: null }).use(log);
  app.get("/*rest", (ctx) => ctx.response.text(200, "ok"));
  const path = `/${"a".repeat(8000)}`;
  expect((await app.request(path)).status).toBe(200);
  await waitUntil(() => batches.length === 1, "the sink to take the first line");
  for (let index = 0; index < 299; index++) await app.request(path);
  const { queued, dropped } = log.stats();
  // A line is the path and under 300 bytes more. Before, all 299 lines of 8 KB waited (up to
  // 4096 of them: 34 MB).
  expect({
    accounted: queued + dropped,
    atMost1MiB: queued * path.length <= 1024 * 1024,
    upTo1MiB: queued >= Math.floor((1024 * 1024) / (path.length + 300)),
  }).toEqual({ accounted: 299, atMost1MiB: true, upTo1MiB: true });
  await app.stop();
});

test("maxQueuedLines and maxQueuedBytes are whole numbers >= 1", () => {
  for (const value of [0, -1, 1.5, Number.NaN]) {
    expect(() => logger({ maxQueuedBytes: value })).toThrow(
      new TypeError(`corral: maxQueuedBytes must be a whole number >= 1, got ${value}`),
    );
    expect(() => logger({ maxQueuedLines: value })).toThrow(
      new TypeError(`corral: maxQueuedLines must be a whole number >= 1, got ${value}`),
    );
  }
  expect(logger({ maxQueuedBytes: 1, maxQueuedLines: 1 }).stats()).toEqual({
    written: 0,
    dropped: 0,
    queued: 0,
  });
});
