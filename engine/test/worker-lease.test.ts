import { describe, expect, test } from "bun:test";
import { ResponseDraft } from "../src/internal/response-draft.ts";
import { type LeaseHost, type LeaseState, WorkerLease } from "../src/internal/worker-lease.ts";
import { WorkerScheduler } from "../src/internal/worker-scheduler.ts";
import { defaultLimits, resolveLimits } from "../src/limits.ts";
import { StatsCounters } from "../src/stats.ts";

// The lease's state table, driven against a real scheduler with one worker: every transition,
// and every call that is not a transition of the state the lease is in is a TypeError.

const limits = resolveLimits({ ...defaultLimits, workers: 1, maxConnections: 4 });

interface Rig {
  readonly scheduler: WorkerScheduler;
  readonly stats: StatsCounters;
  readonly leases: WorkerLease[];
  readonly events: string[];
}

function rig(): Rig {
  const stats = new StatsCounters();
  const events: string[] = [];
  const scheduler = new WorkerScheduler(limits, stats, (slot) => events.push(`close ${slot}`));
  const leases: WorkerLease[] = [];
  for (let slot = 0; slot < limits.maxConnections; slot++) {
    const host: LeaseHost = {
      draft: new ResponseDraft(limits, stats),
      workerGranted: () => events.push(`granted ${slot}`),
      requestDisplaced: () => events.push(`displaced ${slot}`),
    };
    const lease = new WorkerLease(slot, host, scheduler);
    drafts.set(lease, host.draft);
    leases.push(lease);
  }
  scheduler.attach(leases);
  return { scheduler, stats, leases, events };
}

/** The draft a lease sets its worker on (the rig's host draft). */
function draftOf(lease: WorkerLease): ResponseDraft {
  return drafts.get(lease)!;
}

/** The first `length` bytes of the header lines of the worker `lease` holds, as text. */
function linesOf(lease: WorkerLease, length: number): string {
  return new TextDecoder().decode(lease.worker!.headerLines.subarray(0, length));
}

const drafts = new WeakMap<WorkerLease, ResponseDraft>();

/**
 * While `lease` waits off its worker, `other` takes the only worker, drafts `name: value` (and
 * may `meddle` with the worker after), and gives it back; resolves when `lease` holds it again.
 */
async function passWorkerThrough(
  lease: WorkerLease,
  other: WorkerLease,
  [name, value]: readonly [string, string],
  meddle: () => void = () => {},
): Promise<void> {
  other.request(1);
  const otherDraft = draftOf(other);
  otherDraft.appendHeader(name, value);
  meddle();
  const back = lease.reacquire();
  otherDraft.reset();
  other.release();
  await back;
}

const flush = () => new Promise<void>((resolve) => queueMicrotask(resolve));

/** Brings lease 0 into `state` (lease 1 holds the only worker where a wait is needed). */
async function leaseIn(state: LeaseState): Promise<Rig> {
  const setup = rig();
  const [lease, other] = setup.leases as [WorkerLease, WorkerLease];
  switch (state) {
    case "none":
      break;
    case "held":
      lease.request(7);
      break;
    case "queued":
      other.request(1);
      lease.request(7);
      break;
    case "released":
      lease.request(7);
      lease.releaseWhileWaiting(0);
      break;
    case "reacquiring":
      lease.request(7);
      lease.releaseWhileWaiting(0);
      other.request(1);
      lease.reacquire().catch(() => {});
      break;
    case "abandoned":
      lease.request(7);
      lease.abandon();
      break;
  }
  await flush();
  expect(lease.state).toBe(state);
  return setup;
}

const states: readonly LeaseState[] = [
  "none",
  "queued",
  "held",
  "released",
  "reacquiring",
  "abandoned",
];

/** Each transition method, and the states it is legal in. */
const transitions: readonly {
  readonly name: string;
  readonly from: readonly LeaseState[];
  readonly call: (lease: WorkerLease, setup: Rig) => unknown;
}[] = [
  { name: "request", from: ["none"], call: (lease) => lease.request(3) },
  {
    name: "grant",
    from: ["queued", "reacquiring"],
    call: (lease) =>
      lease.grant(new WorkerScheduler(limits, new StatsCounters(), () => {}).take(0)!),
  },
  { name: "displace", from: ["queued"], call: (lease) => lease.displace() },
  { name: "release", from: ["held"], call: (lease) => lease.release() },
  { name: "releaseWhileWaiting", from: ["held"], call: (lease) => lease.releaseWhileWaiting(0) },
  {
    name: "reacquire",
    from: ["held", "released"],
    call: (lease) => {
      lease.reacquire().catch(() => {});
    },
  },
  {
    name: "stopReacquiring",
    from: ["reacquiring"],
    call: (lease) => lease.stopReacquiring(new Error("x")),
  },
  { name: "abandon", from: ["held"], call: (lease) => lease.abandon() },
  { name: "settleAbandoned", from: ["abandoned"], call: (lease) => lease.settleAbandoned() },
  {
    name: "cancel",
    from: ["queued", "released", "reacquiring"],
    call: (lease) => lease.cancel(new Error("x")),
  },
];

describe("every call in every state", () => {
  for (const { name, from, call } of transitions) {
    for (const state of states) {
      const legal = from.includes(state);
      test(`${name} while ${state}: ${legal ? "allowed" : "a TypeError"}`, async () => {
        const setup = await leaseIn(state);
        const lease = setup.leases[0]!;
        if (legal) {
          expect(() => call(lease, setup)).not.toThrow();
        } else {
          expect(() => call(lease, setup)).toThrow(
            new TypeError(`corral: a worker lease cannot ${verbOf(name)} while ${state}`),
          );
          expect(lease.state).toBe(state);
        }
      });
    }
  }
});

function verbOf(name: string): string {
  return {
    request: "request a worker",
    grant: "take a grant",
    displace: "be displaced",
    release: "release",
    releaseWhileWaiting: "be given back while waiting",
    reacquire: "take the worker back",
    stopReacquiring: "stop reacquiring",
    abandon: "be abandoned",
    settleAbandoned: "settle an abandoned worker",
    cancel: "be cancelled",
  }[name]!;
}

describe("the transitions", () => {
  test("request: none -> held when a worker is free, none -> queued when not, none when the queue is full", async () => {
    const full = resolveLimits({ ...limits, maxQueuedRequests: 1 });
    const stats = new StatsCounters();
    const scheduler = new WorkerScheduler(full, stats, () => {});
    const events: string[] = [];
    const leases = [0, 1, 2].map(
      (slot) =>
        new WorkerLease(
          slot,
          {
            draft: new ResponseDraft(full, stats),
            workerGranted: () => events.push(`granted ${slot}`),
            requestDisplaced: () => events.push(`displaced ${slot}`),
          },
          scheduler,
        ),
    );
    scheduler.attach(leases);
    expect(leases.map((lease) => lease.request(5))).toEqual(["held", "queued", "none"]);
    expect({ busy: stats.workersBusy, queued: stats.queuedRequests }).toEqual({
      busy: 1,
      queued: 1,
    });
    leases[0]!.release();
    await flush();
    expect({ states: leases.map((lease) => lease.state), events }).toEqual({
      states: ["none", "held", "none"],
      events: ["granted 1"],
    });
  });

  test("released -> reacquiring -> held restores the header lines kept meanwhile", async () => {
    const { leases } = await leaseIn("held");
    const [lease, other] = leases as [WorkerLease, WorkerLease];
    const worker = lease.worker!;
    worker.headerLines.set(new TextEncoder().encode("X-Kept: 1\r\n"), 0);
    lease.releaseWhileWaiting(11);
    other.request(1);
    other.worker!.headerLines.fill(0x2d);
    const back = lease.reacquire();
    expect(lease.state).toBe("reacquiring");
    other.release();
    await back;
    expect({
      state: lease.state,
      lines: new TextDecoder().decode(lease.worker!.headerLines.subarray(0, 11)),
    }).toEqual({ state: "held", lines: "X-Kept: 1\r\n" });
  });

  test("lines the worker knows are kept by name and value: restored onto a worker that another request's lines overwrote", async () => {
    const { leases } = await leaseIn("held");
    const [lease, other] = leases as [WorkerLease, WorkerLease];
    const draft = draftOf(lease);
    draft.appendHeader("Server", "corral");
    draft.appendHeader("X-Kept", "1");
    lease.releaseWhileWaiting(draft.headerLength);
    await passWorkerThrough(lease, other, ["X-Other", "a longer line that overwrites both"]);
    draft.appendHeader("X-After", "2");
    expect(linesOf(lease, draft.headerLength)).toBe(
      "Server: corral\r\nX-Kept: 1\r\nX-After: 2\r\n",
    );
  });

  test("lines the worker knows and still holds are not written again when it comes back", async () => {
    const { leases } = await leaseIn("held");
    const [lease, other] = leases as [WorkerLease, WorkerLease];
    const draft = draftOf(lease);
    draft.appendHeader("Server", "corral");
    lease.releaseWhileWaiting(draft.headerLength);
    // The bytes changed behind the known lines' back: a restore that wrote them would mend them.
    await passWorkerThrough(lease, other, ["Server", "corral"], () => {
      other.worker!.headerLines[0] = 0x73;
    });
    expect(linesOf(lease, draft.headerLength)).toBe("server: corral\r\n");
  });

  test("lines the worker does not know (a header removed) are copied out and put back", async () => {
    const { leases } = await leaseIn("held");
    const [lease, other] = leases as [WorkerLease, WorkerLease];
    const draft = draftOf(lease);
    draft.appendHeader("X-Gone", "1");
    draft.appendHeader("X-Kept", "2");
    draft.removeHeader("X-Gone");
    lease.releaseWhileWaiting(draft.headerLength);
    await passWorkerThrough(lease, other, ["X-Kept", "3"]);
    draft.appendHeader("X-After", "4");
    expect(linesOf(lease, draft.headerLength)).toBe("X-Kept: 2\r\nX-After: 4\r\n");
  });

  test("a request that ends while its handler waits drops the lines it kept", async () => {
    const { leases } = await leaseIn("held");
    const [lease] = leases as [WorkerLease];
    const draft = draftOf(lease);
    draft.appendHeader("X-Kept", "1");
    lease.releaseWhileWaiting(draft.headerLength);
    lease.cancel(new Error("gone"));
    draft.reset();
    lease.request(7);
    draft.appendHeader("X-Next", "2");
    expect(linesOf(lease, draft.headerLength)).toBe("X-Next: 2\r\n");
  });

  test("a handler taking its worker back goes before a queued request", async () => {
    const { leases, events } = await leaseIn("held");
    const [lease, other, third] = leases as [WorkerLease, WorkerLease, WorkerLease];
    lease.releaseWhileWaiting(0);
    other.request(1);
    third.request(2);
    const back = lease.reacquire();
    other.release();
    await back;
    expect({ states: leases.slice(0, 3).map((each) => each.state), events }).toEqual({
      states: ["held", "none", "queued"],
      events: [],
    });
  });

  test("stopReacquiring rejects the waiting reacquire and leaves the lease released", async () => {
    const { leases } = await leaseIn("held");
    const [lease, other] = leases as [WorkerLease, WorkerLease];
    lease.releaseWhileWaiting(0);
    other.request(1);
    const back = lease.reacquire().then(
      () => "resolved",
      (error: Error) => error.message,
    );
    lease.stopReacquiring(new Error("the client closed the connection"));
    expect({ settled: await back, state: lease.state }).toEqual({
      settled: "the client closed the connection",
      state: "released",
    });
  });

  test("abandoned -> none gives the worker to the next waiter", async () => {
    const { leases, events } = await leaseIn("abandoned");
    leases[1]!.request(1);
    leases[0]!.settleAbandoned();
    await flush();
    expect({ states: leases.slice(0, 2).map((lease) => lease.state), events }).toEqual({
      states: ["none", "held"],
      events: ["granted 1"],
    });
  });

  test("endRequest goes where each state must: abandon or release a held worker, cancel a wait", async () => {
    const reason = new Error("gone");
    const outcomes: Record<string, LeaseState> = {};
    for (const state of states) {
      for (const handlerRunning of [false, true]) {
        const { leases } = await leaseIn(state);
        leases[0]!.endRequest(handlerRunning, reason);
        outcomes[`${state}${handlerRunning ? " running" : ""}`] = leases[0]!.state;
      }
    }
    expect(outcomes).toEqual({
      none: "none",
      "none running": "none",
      queued: "none",
      "queued running": "none",
      held: "none",
      "held running": "abandoned",
      released: "none",
      "released running": "none",
      reacquiring: "none",
      "reacquiring running": "none",
      abandoned: "abandoned",
      "abandoned running": "abandoned",
    });
  });
});

test("a dispatch key is folded onto 1024 keys, a small integer whatever the key", () => {
  const { leases, scheduler } = rig();
  const lease = leases[0]!;
  // Negative, past 2^31 (the path hash's range), past 2^32, fractional: each folds as
  // `(key >>> 0) % 1024` always did, and the scheduler counts the worker under that key.
  for (const key of [7, 1024 + 7, -1, 2 ** 31 + 5, 2 ** 32 + 9, 7.9, -(2 ** 31)]) {
    expect(lease.request(key)).toBe("held");
    const folded = (key >>> 0) % 1024;
    expect(lease.key).toBe(folded);
    expect(scheduler.heldBy(folded)).toBe(1);
    lease.release();
    expect(scheduler.heldBy(folded)).toBe(0);
  }
});
