// Seeded random bursts of WorkerPool jobs (echoes, sleeps, spins, throws, jobs that wait for
// their cancel or ignore it), some aborted at a random moment (queued, running, finishing, or
// already done), against a pool of two threads and a short queue. What must hold: each run()
// settles once, with its own job's result, ServiceJobError for a throw, the abort's own reason, or
// ServiceBusyError, and a refusal only when the pool was full; nothing times out or crashes;
// afterwards every thread is back and idle, and the counts add up to the jobs sent.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { test } from "bun:test";
import {
  caseSeed,
  expectNoMismatches,
  masterSeed,
  SeededRandom,
} from "../../engine/test/support/seeded-random.ts";
import { ServiceBusyError, ServiceJobError } from "../../src/services/service-errors.ts";
import { WorkerPool } from "../../src/services/worker-pool.ts";
import type { FixtureRequest, FixtureResponse } from "./fixtures/jobs-worker.ts";

const cases = 24;
const threads = 2;
const maxQueuedJobs = 4;
const jobsWorker = new URL("./fixtures/jobs-worker.ts", import.meta.url);

type Kind = "echo" | "sleep" | "spin" | "throw" | "hangUntilCancelled" | "hang";

function requestOf(kind: Kind, index: number, random: SeededRandom): FixtureRequest {
  switch (kind) {
    case "echo":
      return { kind, value: `job ${index}` };
    case "sleep":
      return { kind, milliseconds: random.between(0, 15) };
    case "spin":
      return { kind, milliseconds: random.between(1, 4) };
    case "throw":
      return { kind, message: `thrown ${index}` };
    case "hangUntilCancelled":
    case "hang":
      return { kind };
  }
}

/** The value a job of `kind` resolves to when it runs to its end. */
function resultOf(kind: Kind, index: number): string | undefined {
  return { echo: `job ${index}`, sleep: "slept", spin: "spun true", throw: undefined }[
    kind as Exclude<Kind, "hangUntilCancelled" | "hang">
  ];
}

test(`${cases} random bursts of pool jobs, some aborted at random moments: each settles once and rightly, and the pool comes back whole (seed ${masterSeed})`, async () => {
  const mismatches: unknown[] = [];
  for (let index = 0; index < cases; index++) {
    const seed = caseSeed("worker-pool", index);
    const random = new SeededRandom(seed);
    await using pool = new WorkerPool<FixtureRequest, FixtureResponse>({
      script: jobsWorker,
      threads,
      maxQueuedJobs,
      jobTimeoutMs: 5_000,
      cancelGraceMs: random.pick([0, 10, 200]),
    });
    const fail = (problem: unknown) => mismatches.push({ seed, problem });
    const aborting = random.oneIn(2);
    let outstanding = 0;
    const settled: Promise<void>[] = [];
    const jobs = random.between(4, 30);
    for (let job = 0; job < jobs; job++) {
      const kind = random.pick(
        (aborting
          ? ["echo", "sleep", "spin", "throw", "hangUntilCancelled", "hang"]
          : ["echo", "sleep", "spin", "throw"]) as readonly Kind[],
      );
      const controller = new AbortController();
      const reason = new Error(`abort ${job}`);
      // A job that never ends on its own is always given up on (its thread replaced if it
      // ignores the cancel).
      const aborted = kind.startsWith("hang") || (aborting && random.oneIn(3));
      const outstandingBefore = outstanding;
      outstanding++;
      let count = 0;
      const promise = pool.run(requestOf(kind, job, random), { signal: controller.signal });
      if (aborted) setTimeout(() => controller.abort(reason), random.between(0, 20));
      settled.push(
        promise
          .then(
            (response) => {
              count++;
              outstanding--;
              const want = resultOf(kind, job);
              if (response.value !== want) fail(`job ${job} (${kind}) gave ${response.value}`);
            },
            (error: unknown) => {
              count++;
              outstanding--;
              if (error instanceof ServiceBusyError) {
                // Without aborts the callers' count is never below the pool's: a refusal below
                // threads + queue would be a refusal with room left.
                if (!aborting && outstandingBefore < threads + maxQueuedJobs) {
                  fail(`job ${job} refused with ${outstandingBefore} outstanding`);
                }
                return;
              }
              if (kind === "throw" && error instanceof ServiceJobError) return;
              if (aborted && error === reason) return;
              fail(`job ${job} (${kind}${aborted ? ", aborted" : ""}) failed: ${String(error)}`);
            },
          )
          .then(() => {
            if (count !== 1) fail(`job ${job} settled ${count} times`);
          }),
      );
      if (random.oneIn(3)) await Bun.sleep(random.between(0, 5));
    }
    await Promise.all(settled);
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const stats = pool.stats();
      if (stats.busy === 0 && stats.queued === 0 && stats.retiring === 0) break;
      await Bun.sleep(5);
    }
    const stats = pool.stats();
    const idle = { threads: stats.threads, busy: stats.busy, queued: stats.queued };
    if (!Bun.deepEquals(idle, { threads, busy: 0, queued: 0 })) fail({ idle });
    if (stats.timedOut !== 0 || stats.crashed !== 0)
      fail({ timedOut: stats.timedOut, crashed: stats.crashed });
    const counted = stats.completed + stats.failed + stats.aborted + stats.rejectedBusy;
    if (counted !== jobs) fail({ counted, jobs, stats });
  }
  expectNoMismatches(mismatches);
}, 120_000);
