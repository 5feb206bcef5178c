import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEngine, type Handler } from "../index.ts";
import {
  type CollectionClock,
  CollectionCost,
  freeCollectionMs,
  maximumCollectionShare,
  maximumDeferredPeriods,
  overrideFreeCollectionMs,
  rechecksPerPeriod,
} from "../src/internal/collection-cost.ts";
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
    for (let request = 1; request < requestsPerYoungCollection; request++)
      collection.countRequest();
    expect(runs()).toBe(0);
    collection.countRequest();
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
    collection.countRequest();
    expect(runs()).toBe(2);
    // Nor do the bytes counted before this one.
    collection.countInbound(inboundBytesPerYoungCollection - 1);
    expect(runs()).toBe(2);
  });

  test("a request weight makes each request count that many: weight 4 collects every requestsPerYoungCollection / 4", () => {
    let runs = 0;
    const collection = new YoungCollection(() => runs++, 4);
    for (let request = 1; request < requestsPerYoungCollection / 4; request++)
      collection.countRequest();
    expect(runs).toBe(0);
    collection.countRequest();
    expect(runs).toBe(1);
    // Explicit weights (an upgrade, a stream flush) stay what they are.
    collection.count(requestsPerYoungCollection - 1);
    expect(runs).toBe(1);
  });
});

/**
 * The counts over sockets are exact only if no collection puts the next off (a first collection
 * in a busy test process can cost more than freeCollectionMs): off in the describe blocks that
 * count them. CollectionCost has its own tests.
 */
function withoutDeferral(): void {
  beforeAll(() => overrideFreeCollectionMs(Number.POSITIVE_INFINITY));
  afterAll(() => overrideFreeCollectionMs(undefined));
}

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
  withoutDeferral();
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
  withoutDeferral();
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

/** Clocks a test moves by hand; a collection costs what the test says, in both. */
function handClock() {
  const clock = { wall: 1000, cpu: 0 };
  const clocks: CollectionClock = { now: () => clock.wall, cpu: () => clock.cpu };
  const collectCosting = (ms: () => number) => () => {
    const cost = ms();
    clock.wall += cost;
    clock.cpu += cost;
  };
  return { clock, clocks, collectCosting };
}

describe("CollectionCost: dear collections are kept under maximumCollectionShare of the time", () => {
  const dear = 6;
  const wait = dear / maximumCollectionShare;

  test("after a collection that cost freeCollectionMs or more, the next waits until cost / share after it began", () => {
    const { clock, clocks, collectCosting } = handClock();
    const cost = new CollectionCost(clocks);
    cost.measure(collectCosting(() => dear));
    const began = clock.wall - dear;
    clock.wall = began + wait - 0.001;
    expect(cost.defers()).toBe(true);
    clock.wall = began + wait;
    expect(cost.defers()).toBe(false);
  });

  test("a collection that cost less than freeCollectionMs delays nothing", () => {
    const { clocks, collectCosting } = handClock();
    const cost = new CollectionCost(clocks);
    cost.measure(collectCosting(() => freeCollectionMs - 0.001));
    expect(cost.defers()).toBe(false);
    cost.measure(collectCosting(() => freeCollectionMs));
    expect(cost.defers()).toBe(true);
  });

  test("the cost is the lesser of wall and CPU time: either alone reading high delays nothing", () => {
    const { clock, clocks } = handClock();
    const cost = new CollectionCost(clocks);
    // Another process had the core: long in wall time, little CPU.
    cost.measure(() => {
      clock.wall += 50;
      clock.cpu += 0.5;
    });
    expect(cost.defers()).toBe(false);
    // Another thread's time accounted in the window: much CPU, little wall time.
    cost.measure(() => {
      clock.wall += 0.5;
      clock.cpu += 50;
    });
    expect(cost.defers()).toBe(false);
  });

  test("a collection is put off at most (maximumDeferredPeriods - 1) periods' worth of looks", () => {
    const { clocks, collectCosting } = handClock();
    const cost = new CollectionCost(clocks);
    cost.measure(collectCosting(() => 1000));
    const looks = (maximumDeferredPeriods - 1) * rechecksPerPeriod;
    for (let look = 0; look < looks; look++) expect(cost.defers()).toBe(true);
    expect(cost.defers()).toBe(false);
    // The next collection starts the count of looks over.
    cost.measure(collectCosting(() => 1000));
    expect(cost.defers()).toBe(true);
  });
});

describe("YoungCollection with dear collections", () => {
  const recheck = requestsPerYoungCollection / rechecksPerPeriod;

  function dearCollections(ms: number) {
    const { clock, clocks, collectCosting } = handClock();
    let runs = 0;
    const collection = new YoungCollection(
      collectCosting(() => {
        runs++;
        return ms;
      }),
      1,
      new CollectionCost(clocks),
    );
    return { clock, collection, runs: () => runs };
  }

  const waitsPerPeriod = requestsPerYoungCollection / waitWeight;
  const waitsPerRecheck = recheck / waitWeight;

  test("a collection the waits made due while the last one's cost still counts is looked at again an eighth of a period on, and runs once the time has passed", () => {
    const { clock, collection, runs } = dearCollections(6);
    collection.count(requestsPerYoungCollection);
    expect(runs()).toBe(1);
    for (let wait = 0; wait < waitsPerPeriod; wait++) collection.countWait();
    expect(runs()).toBe(1);
    for (let wait = 1; wait < waitsPerRecheck; wait++) collection.countWait();
    clock.wall += 6 / maximumCollectionShare;
    expect(runs()).toBe(1);
    collection.countWait();
    expect(runs()).toBe(2);
  });

  test("however dear, a collection the waits made due comes maximumDeferredPeriods periods after the last at the latest", () => {
    const { collection, runs } = dearCollections(1000);
    collection.count(requestsPerYoungCollection);
    expect(runs()).toBe(1);
    const latest = maximumDeferredPeriods * waitsPerPeriod;
    for (let wait = 1; wait < latest; wait++) collection.countWait();
    expect(runs()).toBe(1);
    collection.countWait();
    expect(runs()).toBe(2);
  });

  test("a collection the requests' own count or the bytes read made due runs however dear the last one was", () => {
    const { collection, runs } = dearCollections(1000);
    collection.count(requestsPerYoungCollection);
    expect(runs()).toBe(1);
    collection.count(requestsPerYoungCollection);
    expect(runs()).toBe(2);
    collection.countInbound(inboundBytesPerYoungCollection);
    expect(runs()).toBe(3);
    // Waits under half of the count do not make it theirs.
    for (let wait = 1; wait < waitsPerPeriod / 2; wait++) collection.countWait();
    collection.count(requestsPerYoungCollection / 2 + waitWeight - 1);
    expect(runs()).toBe(3);
    collection.countRequest();
    expect(runs()).toBe(4);
  });
});
