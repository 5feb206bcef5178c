import { describe, expect, test } from "bun:test";
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
});
