import { describe, expect, test } from "bun:test";
import {
  inboundBytesPerYoungCollection,
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
});
