import { expect, test } from "bun:test";
import { restartDelayMs } from "../../src/supervisor/restart-delay.ts";

test("restarts wait 100 ms, doubling with each death in a row, never over 5 s", () => {
  expect([0, 1, 2, 5, 6, 7, 50].map(restartDelayMs)).toEqual([
    100, 200, 400, 3200, 5000, 5000, 5000,
  ]);
});
