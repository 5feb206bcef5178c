import { describe, expect, test } from "bun:test";
import { ManualIo } from "../../src/io.ts";
import { serveJobs } from "../../src/services/serve-jobs.ts";
import {
  ServiceBusyError,
  ServiceClosedError,
  ServiceCrashedError,
  ServiceError,
  ServiceJobError,
  ServiceTimeoutError,
} from "../../src/services/service-errors.ts";
import { WorkerPool } from "../../src/services/worker-pool.ts";
import type { WorkerPoolOptions } from "../../src/services/worker-pool-options.ts";
import type { FixtureRequest, FixtureResponse } from "./fixtures/jobs-worker.ts";

const jobsWorker = new URL("./fixtures/jobs-worker.ts", import.meta.url);

function pool(options: Partial<WorkerPoolOptions> = {}) {
  return new WorkerPool<FixtureRequest, FixtureResponse>({
    script: jobsWorker,
    threads: 2,
    maxQueuedJobs: 8,
    jobTimeoutMs: 5_000,
    ...options,
  });
}

/** What a promise settled to, without throwing. */
async function outcome<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await Bun.sleep(1);
}

const echo = (value: string): FixtureRequest => ({ kind: "echo", value });

describe("WorkerPool: results", () => {
  test("runs typed jobs on its fixed threads, more jobs than threads, with exact counts", async () => {
    await using workers = pool({ threads: 2 });
    const values = ["a", "b", "c", "d", "e"];
    const responses = await Promise.all(values.map((value) => workers.run(echo(value))));
    const response: FixtureResponse = responses[0]!;
    expect(response.value).toBe("a");
    expect(responses.map((each) => each.value)).toEqual(values);
    expect(new Set(responses.map((each) => each.threadId)).size).toBeLessThanOrEqual(2);
    expect(workers.stats()).toEqual({
      threads: 2,
      busy: 0,
      queued: 0,
      retiring: 0,
      completed: 5,
      failed: 0,
      timedOut: 0,
      crashed: 0,
      aborted: 0,
      threadsReplacedAfterAbort: 0,
      rejectedBusy: 0,
      rejectedClosed: 0,
    });
  });

  test("run() refuses a misspelt option (timeout for timeoutMs) before the job is queued", async () => {
    await using workers = pool({ threads: 1 });
    expect(() => workers.run(echo("a"), { timeout: 5 } as never)).toThrow(
      'corral: pool.run() has no option "timeout" (its options: context, signal, timeoutMs)',
    );
    expect((await workers.run(echo("b"), { timeoutMs: 1000 })).value).toBe("b");
    expect(workers.stats().completed).toBe(1);
  });

  test("a job sent while the script is still setting itself up is not lost", async () => {
    await using greeter = new WorkerPool<string, string>({
      script: new URL("./fixtures/slow-start-worker.ts", import.meta.url),
      threads: 1,
      maxQueuedJobs: 0,
    });
    expect(await greeter.run("ada")).toBe("ready: ada");
  });

  test("a CPU-heavy job does not block the main event loop while it is awaited", async () => {
    await using workers = pool({ threads: 1 });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const response = await workers.run({ kind: "spin", milliseconds: 500 });
    clearInterval(ticker);
    expect(response.value).toBe("spun true");
    expect(ticks).toBeGreaterThanOrEqual(20);
  });
});

describe("WorkerPool: failures", () => {
  test("a handler's error fails only its job, as ServiceJobError; the thread lives on", async () => {
    await using workers = pool({ threads: 1 });
    const before = await workers.run(echo("before"));
    const thrown = await outcome(workers.run({ kind: "throw", message: "n is negative" }));
    const bare = await outcome(workers.run({ kind: "throwString" }));
    // @ts-expect-error: the pool's Request type refuses a kind the worker does not know
    const unknownKind = await outcome(workers.run({ kind: "unknown" }));
    const after = await workers.run(echo("after"));
    expect(unknownKind).toEqual({ error: expect.any(ServiceJobError) });
    expect(thrown).toEqual({ error: expect.any(ServiceJobError) });
    const error = (thrown as { error: ServiceJobError }).error;
    expect([error.code, error.errorName, error.message]).toEqual([
      "job",
      "RangeError",
      "n is negative",
    ]);
    expect((bare as { error: ServiceJobError }).error.message).toBe("a bare string");
    expect(after.threadId).toBe(before.threadId);
    expect(workers.stats()).toMatchObject({ threads: 1, completed: 2, failed: 3, crashed: 0 });
  });

  test("a request or response that cannot be cloned fails its job with DataCloneError", async () => {
    await using workers = pool({ threads: 1 });
    const response = await outcome(workers.run({ kind: "uncloneable" }));
    const request = await outcome(
      workers.run({ kind: "echo", value: (() => 1) as unknown as string }),
    );
    for (const each of [response, request]) {
      expect(each).toEqual({ error: expect.any(ServiceJobError) });
      expect((each as { error: ServiceJobError }).error.errorName).toBe("DataCloneError");
    }
    expect((await workers.run(echo("still here"))).value).toBe("still here");
    expect(workers.stats()).toMatchObject({ threads: 1, failed: 2, completed: 1, crashed: 0 });
  });

  test.each([
    ["an uncaught error", { kind: "uncaught", message: "kaboom" }, undefined, "kaboom"],
    ["an unhandled rejection", { kind: "unhandledRejection" }, undefined, "nobody handles this"],
    ["process.exit", { kind: "exit", code: 3 }, 3, "exited with code 3"],
    ["a message outside the protocol", { kind: "chatter" }, undefined, "outside the job protocol"],
  ] as const)(
    "%s ends the thread: ServiceCrashedError, and a replacement takes the next job",
    async (_, request, exitCode, detail) => {
      await using workers = pool({ threads: 1 });
      const before = await workers.run(echo("before"));
      const crashed = await outcome(workers.run(request));
      expect(crashed).toEqual({ error: expect.any(ServiceCrashedError) });
      const error = (crashed as { error: ServiceCrashedError }).error;
      expect({ code: error.code, exitCode: error.exitCode }).toEqual({ code: "crashed", exitCode });
      expect(error.detail).toContain(detail);
      expect(workers.stats().threads).toBe(1);
      const after = await workers.run(echo("after"));
      expect(after.threadId).not.toBe(before.threadId);
      expect(workers.stats()).toMatchObject({ threads: 1, completed: 2, crashed: 1 });
    },
  );

  test("a script that cannot start fails each job once, and is not restarted in a loop", async () => {
    await using broken = new WorkerPool<string, string>({
      script: new URL("./fixtures/broken-worker.ts", import.meta.url),
      threads: 2,
    });
    for (const request of ["first", "second"]) {
      const failed = await outcome(broken.run(request));
      expect(failed).toEqual({ error: expect.any(ServiceCrashedError) });
      expect((failed as { error: ServiceCrashedError }).error.detail).toContain("is broken");
    }
    await until(() => broken.stats().threads === 0);
    const crashes = broken.stats().crashed;
    await Bun.sleep(100);
    expect(broken.stats()).toMatchObject({ threads: 0, crashed: crashes, busy: 0, queued: 0 });
    expect(crashes).toBeLessThanOrEqual(4);
  });
});

describe("WorkerPool: limits", () => {
  test("a full queue refuses at once with ServiceBusyError while accepted jobs go on", async () => {
    await using workers = pool({ threads: 1, maxQueuedJobs: 1 });
    const running = workers.run({ kind: "spin", milliseconds: 100 });
    const queued = workers.run(echo("queued"));
    const refused = outcome(workers.run(echo("refused")));
    // Counted before anything was awaited: the refusal did not wait for a thread.
    expect(workers.stats()).toMatchObject({ busy: 1, queued: 1, rejectedBusy: 1 });
    const { error } = (await refused) as { error: ServiceBusyError };
    expect(error).toBeInstanceOf(ServiceBusyError);
    expect(error).toBeInstanceOf(ServiceError);
    expect([error.code, error.maxQueuedJobs]).toEqual(["busy", 1]);
    expect((await running).value).toBe("spun true");
    expect((await queued).value).toBe("queued");
    expect(workers.stats()).toMatchObject({ busy: 0, queued: 0, completed: 2, rejectedBusy: 1 });
  });

  test("a job past its time limit is rejected and its spinning thread replaced", async () => {
    await using workers = pool({ threads: 2, jobTimeoutMs: 100 });
    const before = await workers.run(echo("before"));
    const late = await outcome(workers.run({ kind: "spinForever" }));
    expect(late).toEqual({ error: expect.any(ServiceTimeoutError) });
    expect((late as { error: ServiceTimeoutError }).error.timeoutMs).toBe(100);
    expect(workers.stats()).toMatchObject({ threads: 2, busy: 0, timedOut: 1 });
    const responses = await Promise.all([workers.run(echo("x")), workers.run(echo("y"))]);
    expect(responses.map((each) => each.value)).toEqual(["x", "y"]);
    await until(() => workers.stats().retiring === 0);
    expect(workers.stats()).toMatchObject({ threads: 2, completed: 3, timedOut: 1, crashed: 0 });
    expect(before.threadId).toBeGreaterThan(0);
  });

  test("the time limit runs on the pool's Io, and a job may shorten it but not lengthen it", async () => {
    const io = new ManualIo();
    await using workers = pool({ threads: 1, jobTimeoutMs: 1_000, io });
    expect(() => workers.run(echo("x"), { timeoutMs: 1_001 })).toThrow(RangeError);
    expect(() => workers.run(echo("x"), { timeoutMs: 0 })).toThrow(RangeError);
    const hung = outcome(workers.run({ kind: "hang" }, { timeoutMs: 250 }));
    io.advance(249);
    expect(workers.stats()).toMatchObject({ busy: 1, timedOut: 0 });
    io.advance(1);
    const settled = await hung;
    expect((settled as { error: ServiceTimeoutError }).error.timeoutMs).toBe(250);
    expect((await workers.run(echo("next"))).value).toBe("next");
    expect(workers.stats()).toMatchObject({ threads: 1, timedOut: 1, completed: 1 });
  });

  test("a thread stuck in native code is replaced at once; at most `threads` such linger", async () => {
    // The time limit includes a thread's start-up: generous, so a loaded machine still starts
    // the replacement in time; the stuck job blocks far longer than it.
    await using workers = pool({ threads: 1, jobTimeoutMs: 500 });
    const stuck = await outcome(workers.run({ kind: "blockNative", milliseconds: 2_500 }));
    expect(stuck).toEqual({ error: expect.any(ServiceTimeoutError) });
    expect(workers.stats()).toMatchObject({ threads: 1, retiring: 1 });
    expect((await workers.run(echo("replacement"))).value).toBe("replacement");
    await outcome(workers.run({ kind: "blockNative", milliseconds: 2_500 }));
    // Two threads are alive, the cap for one configured thread: the next job waits for an exit.
    expect(workers.stats()).toMatchObject({ threads: 0, retiring: 2, timedOut: 2 });
    const waiting = workers.run(echo("after an exit"));
    expect(workers.stats()).toMatchObject({ threads: 0, queued: 1 });
    expect((await waiting).value).toBe("after an exit");
    await until(() => workers.stats().retiring === 0);
    expect(workers.stats()).toMatchObject({ threads: 1, busy: 0, completed: 2 });
  }, 20_000);

  test("close() waits for a hung job only until its time limit", async () => {
    const io = new ManualIo();
    const workers = pool({ threads: 1, jobTimeoutMs: 1_000, io });
    const hung = outcome(workers.run({ kind: "hang" }));
    let closed = false;
    const closing = workers.close().then(() => {
      closed = true;
    });
    await Bun.sleep(20);
    expect({ closed, stats: workers.stats() }).toMatchObject({ closed: false, stats: { busy: 1 } });
    io.advance(1_000);
    expect(await hung).toEqual({ error: expect.any(ServiceTimeoutError) });
    await closing;
    expect(workers.stats()).toMatchObject({ threads: 0, retiring: 0, busy: 0, timedOut: 1 });
  });

  test("options out of range are RangeErrors at construction", () => {
    const bad: Partial<WorkerPoolOptions>[] = [
      { threads: 0 },
      { threads: 1.5 },
      { threads: 257 },
      { maxQueuedJobs: -1 },
      { jobTimeoutMs: 0 },
      { jobTimeoutMs: Number.POSITIVE_INFINITY },
      { cancelGraceMs: -1 },
      { cancelGraceMs: 0.5 },
    ];
    for (const options of bad) expect(() => pool(options)).toThrow(RangeError);
    expect(() => pool({ script: "" })).toThrow(TypeError);
  });
});

describe("WorkerPool: abort and close", () => {
  test("after a burst of aborted running jobs, every slot has its thread again without a new job", async () => {
    // With no grace each abort replaces a thread; past twice `threads` lingering, replacements
    // wait, and the slots left down were started again only when a job came (stats showed 0).
    await using workers = pool({ threads: 2, cancelGraceMs: 0 });
    for (let burst = 0; burst < 20; burst++) {
      const controllers = [new AbortController(), new AbortController()];
      const hung = controllers.map((controller) =>
        outcome(workers.run({ kind: "hang" }, { signal: controller.signal })),
      );
      for (const controller of controllers) controller.abort();
      await Promise.all(hung);
    }
    await until(() => workers.stats().retiring === 0);
    await until(() => workers.stats().threads === 2);
    expect(workers.stats()).toMatchObject({ threads: 2, busy: 0, retiring: 0, aborted: 40 });
  });

  test("aborting a queued job removes it; with no grace, aborting a running one replaces its thread", async () => {
    await using workers = pool({ threads: 1, cancelGraceMs: 0 });
    const first = await workers.run(echo("first"));
    const running = new AbortController();
    const queued = new AbortController();
    const hung = outcome(workers.run({ kind: "hang" }, { signal: running.signal }));
    const waiting = outcome(workers.run(echo("never"), { signal: queued.signal }));
    expect(workers.stats()).toMatchObject({ busy: 1, queued: 1 });
    queued.abort(new Error("no longer wanted"));
    expect(await waiting).toEqual({ error: new Error("no longer wanted") });
    expect(workers.stats()).toMatchObject({ busy: 1, queued: 0 });
    running.abort();
    expect(((await hung) as { error: DOMException }).error.name).toBe("AbortError");
    const gone = AbortSignal.abort(new Error("before it began"));
    expect(await outcome(workers.run(echo("x"), { signal: gone }))).toEqual({
      error: new Error("before it began"),
    });
    const next = await workers.run(echo("next"));
    expect(next.threadId).not.toBe(first.threadId);
    expect(workers.stats()).toMatchObject({ threads: 1, busy: 0, aborted: 3, completed: 2 });
  });

  test("an aborted running job is told by its signal: one that stops keeps its thread, one that goes on past cancelGraceMs has it replaced", async () => {
    const io = new ManualIo();
    await using workers = pool({ threads: 1, io, cancelGraceMs: 500 });
    const first = await workers.run(echo("first"));
    const polite = new AbortController();
    const stopped = outcome(workers.run({ kind: "hangUntilCancelled" }, { signal: polite.signal }));
    const queued = outcome(workers.run(echo("after the polite one")));
    await until(() => workers.stats().busy === 1);
    polite.abort(new Error("the client left"));
    // The caller hears at once; the job's result, when it comes, is dropped.
    expect(await stopped).toEqual({ error: new Error("the client left") });
    const after = (await queued) as { value: FixtureResponse };
    expect(after.value).toEqual({ value: "after the polite one", threadId: first.threadId });
    const stubborn = new AbortController();
    const hung = outcome(workers.run({ kind: "hang" }, { signal: stubborn.signal }));
    await until(() => workers.stats().busy === 1);
    stubborn.abort(new Error("gone too"));
    expect(await hung).toEqual({ error: new Error("gone too") });
    // Within its grace the thread keeps the job, and a new job waits for it.
    const waiting = workers.run(echo("after the stubborn one"));
    io.advance(499);
    expect(workers.stats()).toMatchObject({ busy: 1, queued: 1, threadsReplacedAfterAbort: 0 });
    io.advance(1);
    const replaced = await waiting;
    expect(replaced.threadId).not.toBe(first.threadId);
    expect(workers.stats()).toMatchObject({
      threads: 1,
      busy: 0,
      queued: 0,
      completed: 3,
      aborted: 2,
      threadsReplacedAfterAbort: 1,
    });
  });

  test("a context awaits only accepted jobs off its worker, and its signal or the caller's aborts", async () => {
    await using workers = pool({ threads: 1, maxQueuedJobs: 1 });
    const request = new AbortController();
    const offWorker: string[] = [];
    const context = {
      signal: request.signal,
      awaitOffWorker<T>(pending: Promise<T>): Promise<T> {
        const { busy, queued } = workers.stats();
        offWorker.push(`busy ${busy} queued ${queued}`);
        return pending;
      },
    };
    const own = new AbortController();
    const hung = outcome(workers.run({ kind: "hang" }, { context }));
    const queued = outcome(workers.run(echo("queued"), { context, signal: own.signal }));
    const refused = outcome(workers.run(echo("refused"), { context }));
    expect(await refused).toEqual({ error: expect.any(ServiceBusyError) });
    own.abort(new Error("the caller's own signal"));
    expect(await queued).toEqual({ error: new Error("the caller's own signal") });
    request.abort(new Error("the client left"));
    expect(await hung).toEqual({ error: new Error("the client left") });
    expect({ offWorker, stats: workers.stats() }).toMatchObject({
      offWorker: ["busy 1 queued 0", "busy 1 queued 1"],
      stats: { busy: 0, queued: 0, aborted: 2, rejectedBusy: 1 },
    });
  });

  test("close() refuses new jobs, drains queued and running ones, then stops every thread", async () => {
    const workers = pool({ threads: 1, maxQueuedJobs: 4 });
    const accepted = [
      workers.run({ kind: "spin", milliseconds: 50 }),
      workers.run(echo("queued 1")),
      workers.run(echo("queued 2")),
    ];
    const closed = workers.close();
    expect(workers.close()).toBe(closed);
    const refused = await outcome(workers.run(echo("too late")));
    expect(refused).toEqual({ error: expect.any(ServiceClosedError) });
    const values = (await Promise.all(accepted)).map((each) => each.value);
    expect(values).toEqual(["spun true", "queued 1", "queued 2"]);
    await closed;
    expect(workers.stats()).toMatchObject({
      threads: 0,
      retiring: 0,
      busy: 0,
      queued: 0,
      completed: 3,
      rejectedClosed: 1,
    });
  });

  test("an idle pool that is never closed does not keep the process alive", async () => {
    const child = Bun.spawn(
      [process.execPath, new URL("./fixtures/forgotten-pool.ts", import.meta.url).pathname],
      {
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const exit = await Promise.race([child.exited, Bun.sleep(5_000).then(() => "still running")]);
    if (exit === "still running") child.kill();
    expect({ exit, stdout: await new Response(child.stdout).text() }).toEqual({
      exit: 0,
      stdout: "done\n",
    });
  });

  test("serveJobs refuses to run on the main thread", () => {
    expect(() => serveJobs((request: number) => request)).toThrow(TypeError);
  });
});
