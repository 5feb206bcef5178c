import { describe, expect, test } from "bun:test";
import { createEngine, type Handler } from "../index.ts";
import {
  inboundBytesPerYoungCollection,
  inboundChunkMinimumBytes,
  requestsPerYoungCollection,
  textBytesPerRequestWeight,
  textWeightCap,
  upgradeWeight,
  waitWeight,
  YoungCollection,
} from "../src/internal/young-collection.ts";
import { RawClient } from "./support/raw-client.ts";
import { startServer, waitUntil } from "./support/test-server.ts";

function counted() {
  let runs = 0;
  const collection = new YoungCollection(() => runs++);
  return { collection, runs: () => runs };
}

describe("YoungCollection", () => {
  test("collects once the bytes read reach inboundBytesPerYoungCollection, not a byte before", () => {
    const { collection, runs } = counted();
    collection.countInbound(inboundBytesPerYoungCollection - 1);
    expect(runs()).toBe(0);
    collection.countInbound(1);
    expect(runs()).toBe(1);
    collection.countInbound(inboundBytesPerYoungCollection - 1);
    expect(runs()).toBe(1);
  });

  test("a chunk smaller than inboundChunkMinimumBytes counts as that many bytes", () => {
    const { collection, runs } = counted();
    const chunks = inboundBytesPerYoungCollection / inboundChunkMinimumBytes;
    // A one-byte chunk (a keep-alive request is about 40) weighs as much as a 1 KiB one.
    for (let chunk = 1; chunk < chunks; chunk++) collection.countInbound(1);
    expect(runs()).toBe(0);
    collection.countInbound(1);
    expect(runs()).toBe(1);
    // At the minimum and above, a chunk counts its own bytes.
    for (let chunk = 1; chunk < chunks; chunk++) collection.countInbound(inboundChunkMinimumBytes);
    expect(runs()).toBe(1);
    collection.countInbound(inboundChunkMinimumBytes + 1);
    expect(runs()).toBe(2);
  });

  test("collects every requestsPerYoungCollection requests; an upgrade weighs upgradeWeight", () => {
    const { collection, runs } = counted();
    for (let request = 1; request < requestsPerYoungCollection; request++) collection.count();
    expect(runs()).toBe(0);
    collection.count();
    expect(runs()).toBe(1);
    for (let upgrade = 0; upgrade < requestsPerYoungCollection / upgradeWeight; upgrade++) {
      collection.count(upgradeWeight);
    }
    expect(runs()).toBe(2);
  });

  test("either reason starts both counts over: the next collection is a whole period away", () => {
    const { collection, runs } = counted();
    collection.count(requestsPerYoungCollection - 1);
    collection.countInbound(inboundBytesPerYoungCollection);
    expect(runs()).toBe(1);
    // The requests counted before that collection no longer count.
    collection.count(requestsPerYoungCollection - 1);
    expect(runs()).toBe(1);
    collection.countInbound(inboundBytesPerYoungCollection - 1);
    collection.count();
    expect(runs()).toBe(2);
    // Nor do the bytes counted before this one.
    collection.countInbound(inboundBytesPerYoungCollection - 1);
    expect(runs()).toBe(2);
  });

  test("a request weight makes each request count that many: weight 4 collects every requestsPerYoungCollection / 4", () => {
    let runs = 0;
    const collection = new YoungCollection(() => runs++, 4);
    for (let request = 1; request < requestsPerYoungCollection / 4; request++) collection.count();
    expect(runs).toBe(0);
    collection.count();
    expect(runs).toBe(1);
    // Explicit weights (an upgrade, a stream flush) stay what they are.
    collection.count(requestsPerYoungCollection - 1);
    expect(runs).toBe(1);
  });
});

/** Sends pipelined requests in rounds of these counts; the young collections after each round. */
async function collectionsAfter(handler: Handler, requests: number[]): Promise<number[]> {
  await using server = startServer(handler);
  using client = await RawClient.connect(server.port);
  const seen: number[] = [];
  let sent = 0;
  for (const count of requests) {
    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(count));
    sent += count;
    const expected = sent;
    await waitUntil(() => server.stats().responses["2xx"] === expected, `${expected} answers`);
    seen.push(server.stats().youngCollections);
  }
  return seen;
}

describe("response text toward young collections", () => {
  test("text under textBytesPerRequestWeight counts nothing; at it, one request; past the cap, textWeightCap", () => {
    const { collection, runs } = counted();
    collection.count(requestsPerYoungCollection - 1);
    collection.countText(textBytesPerRequestWeight - 1);
    expect(runs()).toBe(0);
    collection.countText(textBytesPerRequestWeight);
    expect(runs()).toBe(1);
    collection.count(requestsPerYoungCollection - textWeightCap - 1);
    collection.countText(textBytesPerRequestWeight * (textWeightCap + 100));
    expect(runs()).toBe(1);
    collection.countText(textBytesPerRequestWeight);
    expect(runs()).toBe(2);
  });

  const bodyBytes = textBytesPerRequestWeight * (textWeightCap + 1);
  const text = "x".repeat(bodyBytes);
  const bytes = new TextEncoder().encode(text);
  /** Requests (each weighing 1 + textWeightCap when its body is text) between two collections. */
  const period = requestsPerYoungCollection / (textWeightCap + 1);

  test("a response whose handler wrote text counts 1 + textWeightCap requests: a collection exactly every requestsPerYoungCollection / 16 of them, over a socket", async () => {
    const seen = await collectionsAfter(
      (exchange) => exchange.writeText(text),
      [period - 1, 1, period - 1, 1],
    );
    expect(seen).toEqual([0, 1, 1, 2]);
  });

  test("the same bytes copied from an array the handler keeps count as one request each: no collection", async () => {
    const seen = await collectionsAfter((exchange) => exchange.write(bytes), [period, period]);
    expect(seen).toEqual([0, 0]);
  });

  test("bytes copied and counted with countShortLivedBytes weigh as the same text does", async () => {
    const seen = await collectionsAfter(
      (exchange) => {
        exchange.write(bytes);
        exchange.countShortLivedBytes(bytes.length);
      },
      [period - 1, 1, period - 1, 1],
    );
    expect(seen).toEqual([0, 1, 1, 2]);
  });

  test("countShortLivedBytes refuses a negative, fractional or non-number count", async () => {
    const refusals: string[] = [];
    const seen = await collectionsAfter(
      (exchange) => {
        for (const count of [-1, 1.5, Number.NaN]) {
          try {
            exchange.countShortLivedBytes(count);
          } catch (error) {
            refusals.push((error as Error).message);
          }
        }
      },
      [1],
    );
    expect([seen, refusals]).toEqual([
      [0],
      [-1, 1.5, Number.NaN].map(
        (count) => `corral: countShortLivedBytes needs a whole number >= 0, got ${count}`,
      ),
    ]);
  });
});

describe("waits off the worker toward young collections", () => {
  test("a request that gives its worker back counts 1 + waitWeight requests, over a socket", async () => {
    const perRequest = 1 + waitWeight;
    const under = Math.floor(requestsPerYoungCollection / perRequest);
    expect(under * perRequest).toBeLessThan(requestsPerYoungCollection);
    const seen = await collectionsAfter(
      async (exchange) => {
        exchange.releaseWorker();
        await Bun.sleep(0);
        await exchange.acquireWorker();
        exchange.writeText("ok");
      },
      [under, 1],
    );
    expect(seen).toEqual([0, 1]);
  });
});

describe("createEngine's requestCollectionWeight", () => {
  const handler = () => {};
  test("1 and requestsPerYoungCollection are accepted; 0, one more, a fraction and NaN are refused", () => {
    const outcome = (weight: number) => {
      try {
        createEngine({ handler, requestCollectionWeight: weight, log: null });
        return "accepted";
      } catch (error) {
        return (error as Error).message;
      }
    };
    const refusal = (shown: string) =>
      `corral: requestCollectionWeight must be an integer from 1 to ${requestsPerYoungCollection}, got ${shown}`;
    expect(
      [1, requestsPerYoungCollection, 0, requestsPerYoungCollection + 1, 1.5, Number.NaN].map(
        outcome,
      ),
    ).toEqual([
      "accepted",
      "accepted",
      refusal("0"),
      refusal(String(requestsPerYoungCollection + 1)),
      refusal("1.5"),
      refusal("NaN"),
    ]);
  });
});
