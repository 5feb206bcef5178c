import { describe, expect, test } from "bun:test";
import { WaitBound } from "../../examples/techempower/wait-bound.ts";
import { DatabaseBusyError } from "../../examples/techempower/world-database.ts";

/** A piece of work that finishes when the test says so. */
function gate() {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { work: () => promise, open: () => resolve() };
}

describe("WaitBound", () => {
  test("runs maxActive at once, queues exactly maxWaiting more oldest first, refuses one more", async () => {
    const bound = new WaitBound({ maxActive: 2, maxWaiting: 3, maxWaitMs: 60_000 });
    const gates = Array.from({ length: 6 }, gate);
    const order: number[] = [];
    const runs = gates.map((each, index) =>
      bound.run(async () => {
        order.push(index);
        await each.work();
        return index;
      }),
    );
    const sixth = await runs[5]!.then(
      () => "ran",
      (error: unknown) => (error instanceof DatabaseBusyError ? error.message : "other"),
    );
    await Bun.sleep(0);
    const atStart = { active: bound.active, waiting: bound.waiting, started: [...order], sixth };
    for (const each of gates.slice(0, 5)) each.open();
    const results = await Promise.all(runs.slice(0, 5));
    expect({
      atStart,
      results,
      order,
      refused: bound.refused,
      after: [bound.active, bound.waiting],
    }).toEqual({
      atStart: {
        active: 2,
        waiting: 3,
        started: [0, 1],
        sixth: "the database is busy: too many requests wait",
      },
      results: [0, 1, 2, 3, 4],
      order: [0, 1, 2, 3, 4],
      refused: 1,
      after: [0, 0],
    });
  });

  test("a wait that runs out is refused; the turn holder is not", async () => {
    const bound = new WaitBound({ maxActive: 1, maxWaiting: 8, maxWaitMs: 40 });
    const holder = gate();
    const held = bound.run(holder.work);
    const waited = await bound.run(async () => "ran").catch((error: Error) => error.message);
    holder.open();
    await held;
    expect({
      waited,
      refused: bound.refused,
      active: bound.active,
      waiting: bound.waiting,
    }).toEqual({
      waited: "the database is busy: the wait for it ran out",
      refused: 1,
      active: 0,
      waiting: 0,
    });
  });

  test("bounds that are not whole numbers are a RangeError naming the bound", () => {
    expect(() => new WaitBound({ maxActive: 0, maxWaiting: 1, maxWaitMs: 1 })).toThrow(
      "WaitBound: maxActive must be a whole number, got 0",
    );
    expect(() => new WaitBound({ maxActive: 1, maxWaiting: 1.5, maxWaitMs: 1 })).toThrow(
      RangeError,
    );
  });
});
