import { describe, expect, test } from "bun:test";
import { createEngine } from "../index.ts";
import {
  inboundBytesPerYoungCollection,
  inboundChunkMinimumBytes,
  requestsPerYoungCollection,
  upgradeWeight,
  YoungCollection,
} from "../src/internal/young-collection.ts";

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
