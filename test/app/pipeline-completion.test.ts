import { expect, test } from "bun:test";
import { PipelineCompletion } from "../../src/pipeline-completion.ts";

/** Awaits `completion` the way the engine does, recording what it heard. */
function listen(completion: PipelineCompletion): string[] {
  const heard: string[] = [];
  completion.then(
    () => heard.push("done"),
    (error) => heard.push(`failed: ${(error as Error).message}`),
  );
  return heard;
}

test("a completion calls back once it settles, and at once when it settled before then", () => {
  const awaited = new PipelineCompletion();
  const heard = listen(awaited);
  expect(heard).toEqual([]);
  awaited.follow(undefined);
  expect(heard).toEqual(["done"]);

  const settledFirst = new PipelineCompletion();
  settledFirst.fail(new Error("mapped too late"));
  expect(listen(settledFirst)).toEqual(["failed: mapped too late"]);
});

test("a completion following a promise settles as the promise does", async () => {
  const resolved = new PipelineCompletion();
  const heardResolved = listen(resolved);
  const rejected = new PipelineCompletion();
  const heardRejected = listen(rejected);
  resolved.follow(Promise.resolve());
  rejected.follow(Promise.reject(new Error("no worker")));
  expect([heardResolved, heardRejected]).toEqual([[], []]);
  await Bun.sleep(0);
  expect([heardResolved, heardRejected]).toEqual([["done"], ["failed: no worker"]]);
});

test("awaiting a completion twice or settling it twice is a clear error", () => {
  const completion = new PipelineCompletion();
  listen(completion);
  expect(() => listen(completion)).toThrow("awaited once");
  completion.follow(undefined);
  expect(() => completion.fail(new Error("again"))).toThrow("completed twice");
  expect(() => completion.follow(undefined)).toThrow("completed twice");
});

test("await works on a completion (the in-process request helpers may await one)", async () => {
  const completion = new PipelineCompletion();
  setTimeout(() => completion.fail(new Error("late failure")), 1);
  await expect(
    (async () => {
      await completion;
    })(),
  ).rejects.toThrow("late failure");
});
