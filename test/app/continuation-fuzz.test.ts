// Seeded random continuation scripts, pooled and inline: steps that flush, wait for the test's
// notification, notify while they run (a notification that comes during a step is not lost),
// finish or throw, a resume check that ends the stream, and a client that leaves while it waits;
// run in process and compared with a model of the guide's rules ("Continuations"): the status,
// the bytes of the stream, how it ends, and the one cleanup with its outcome. Set
// CORRAL_FUZZ_SEED to replay another run.
import { test } from "bun:test";
import { App, Notifier, type RequestOutcome } from "corral";
import {
  caseSeed,
  expectNoMismatches,
  masterSeed,
  SeededRandom,
} from "../../engine/test/support/seeded-random.ts";

const cases = 200;
const actions = ["flush", "wait", "notifyDuringStep", "finish", "throw", "asyncWait"] as const;
type Action = (typeof actions)[number];

interface Script {
  readonly steps: readonly Action[];
  /** Which resume check (0 for the first) returns false; -1 for none. */
  readonly resumeFalseAt: number;
  readonly mode: "pooled" | "inline";
  /** At which of the waits the test ends the client leaves instead of notifying; -1: never. */
  readonly leaveAtWait: number;
}

interface Modelled {
  readonly status: number;
  readonly body: string;
  readonly ending: "complete" | "aborted";
  readonly cleanups: readonly RequestOutcome[];
  /** The body so far at each wait the test must end with a notification. */
  readonly waits: readonly string[];
}

function model({ steps, resumeFalseAt, leaveAtWait }: Script): Modelled {
  let body = "";
  let flushed = false;
  let resumes = 0;
  const waits: string[] = [];
  let waited = false;
  for (let index = 0; ; index++) {
    if (waited && resumes++ === resumeFalseAt) break;
    waited = false;
    const action = steps[index];
    if (action === undefined || action === "finish") {
      body += action === "finish" ? `s${index};` : "";
      break;
    }
    if (action === "throw") {
      // Before the first flush nothing is sent: the error is answered 500. After it, the stream
      // ends without its last chunk, and what the failing step wrote is never sent.
      return flushed
        ? { status: 200, body, ending: "aborted", cleanups: ["error"], waits }
        : {
            status: 500,
            body: "Internal Server Error\n",
            ending: "complete",
            cleanups: ["error"],
            waits,
          };
    }
    body += `s${index};`;
    flushed = true;
    if (action === "wait" || action === "asyncWait") {
      // The client leaves while the stream waits: it ends there, its cleanup told "aborted".
      if (waits.length === leaveAtWait) {
        return { status: 200, body, ending: "aborted", cleanups: ["aborted"], waits };
      }
      waits.push(body);
      waited = true;
    } else if (action === "notifyDuringStep") {
      waited = true;
    }
  }
  return { status: 200, body, ending: "complete", cleanups: ["success"], waits };
}

function draw(random: SeededRandom): Script {
  return {
    steps: Array.from({ length: random.between(1, 8) }, () =>
      random.oneIn(3) ? "flush" : random.pick(actions),
    ),
    resumeFalseAt: random.oneIn(3) ? random.below(4) : -1,
    mode: random.oneIn(2) ? "pooled" : "inline",
    leaveAtWait: random.oneIn(4) ? random.below(3) : -1,
  };
}

test(`${cases} random continuation scripts: the stream, its end and its cleanup are what the guide says (seed ${masterSeed})`, async () => {
  const mismatches: unknown[] = [];
  // A few mismatches say enough: a stream that hangs costs its whole deadline.
  for (let index = 0; index < cases && mismatches.length < 5; index++) {
    const seed = caseSeed("continuations", index);
    const script = draw(new SeededRandom(seed));
    const expected = model(script);
    const notifier = new Notifier({ capacity: 4 });
    const cleanups: RequestOutcome[] = [];
    const app = new App({ log: null, limits: { maxConnections: 4, workers: 2 } });
    app.continuation("GET", "/stream", {
      contentType: "text/plain; charset=utf-8",
      notifier,
      mode: script.mode,
      state: () => ({ step: 0, resumes: 0 }),
      async step(_ctx, state, writer) {
        const at = state.step++;
        const action = script.steps[at];
        if (action === undefined) return "finish" as const;
        await writer.writeAll(`s${at};`);
        if (action === "throw") throw new Error(`step ${at} broke`);
        if (action === "asyncWait") await Promise.resolve();
        if (action === "notifyDuringStep") notifier.notify();
        return action === "asyncWait" || action === "notifyDuringStep" ? ("wait" as const) : action;
      },
      resume: (_ctx, state) => state.resumes++ !== script.resumeFalseAt,
      cleanup: (_state, outcome) => {
        cleanups.push(outcome);
      },
    });
    const response = await app.request("/stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let body = "";
    let ending: "complete" | "aborted" | "hung" = "complete";
    const waits = [...expected.waits];
    let leaving = expected.cleanups[0] === "aborted";
    const deadline = performance.now() + 2000;
    for (;;) {
      // At a wait the model says the test must end, it notifies once the stream has sent it.
      if (waits.length > 0 && body === waits[0]) {
        waits.shift();
        notifier.notify();
      } else if (leaving && waits.length === 0 && body === expected.body) {
        // The client leaves: cancelling the body disconnects it.
        leaving = false;
        await reader.cancel();
        ending = "aborted";
        break;
      }
      const read = await Promise.race([
        reader.read().then(
          (result) => result,
          () => "aborted" as const,
        ),
        Bun.sleep(Math.max(0, deadline - performance.now())).then(() => "hung" as const),
      ]);
      if (read === "aborted" || read === "hung") {
        ending = read;
        break;
      }
      if (read.done) break;
      body += decoder.decode(read.value, { stream: true });
    }
    if (ending === "hung") await reader.cancel().catch(() => {});
    const settle = performance.now() + 1000;
    while (cleanups.length === 0 && performance.now() < settle) await Bun.sleep(1);
    const seen = { status: response.status, body, ending, cleanups, waits: expected.waits };
    if (JSON.stringify(seen) !== JSON.stringify(expected)) {
      mismatches.push({ seed, script: JSON.stringify(script), expected, seen });
    }
    await app.stop();
  }
  expectNoMismatches(mismatches);
}, 120_000);
