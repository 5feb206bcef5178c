import { KeptHeaderLines } from "./kept-header-lines.ts";
import type { ResponseDraft } from "./response-draft.ts";
import { dispatchKeyCount, type SchedulerLease, type WorkerScheduler } from "./worker-scheduler.ts";
import type { WorkerSlot } from "./worker-table.ts";

/**
 * Where a connection stands with its worker:
 * - `none`: it has none and wants none (between requests, or reading a head);
 * - `queued`: its request waits in the scheduler's queue;
 * - `held`: it has one (the handler runs, or a staged response is still being written);
 * - `released`: its handler gave the worker back while it waits for something else;
 * - `reacquiring`: that handler wants it back and waits in the scheduler's reacquire queue;
 * - `abandoned`: the request ended (client gone, deadline) while the handler still runs: the
 *   worker stays with the handler until it settles, and the connection's slot with it.
 */
export type LeaseState = "none" | "queued" | "held" | "released" | "reacquiring" | "abandoned";

/** What a lease tells its connection. */
export interface LeaseHost {
  /** The draft whose `worker` the lease keeps: the lease is the only one that sets it. */
  readonly draft: ResponseDraft;
  /** The queued request got its worker (called from a microtask, so stacks stay flat). */
  workerGranted(): void;
  /** The full queue gave the queued request's place to another route's request. */
  requestDisplaced(): void;
}

/**
 * One connection's claim on a worker, as an explicit state machine: one method per change of
 * state, and any other call a TypeError. Every worker a connection gets or gives back passes
 * through here, so "who holds this worker and when does it come back" has one answer: the lease
 * in `held` or `abandoned` holds it, and gives it back in `release`, `releaseWhileWaiting` and
 * `settleAbandoned`, nowhere else.
 */
export class WorkerLease implements SchedulerLease {
  readonly slot: number;
  readonly #host: LeaseHost;
  /**
   * The host's draft, read once: the host's getter, called on each grant and release, was left
   * uninlined (24 instructions a request).
   */
  readonly #draft: ResponseDraft;
  readonly #scheduler: WorkerScheduler;
  #state: LeaseState = "none";
  /** The dispatch key the current request waits and holds under. */
  #key = 0;
  /**
   * Header lines drafted before the worker was given back, restored when it comes back (made on
   * a lease's first such wait: most connections never wait off their worker).
   */
  #keptHeaderLines: KeptHeaderLines | null = null;
  /** Whether `#keptHeaderLines` holds lines to restore (a field read on every grant). */
  #keepingHeaderLines = false;
  #resolve: (() => void) | null = null;
  #reject: ((error: Error) => void) | null = null;
  /** Advances on every grant, so a grant's microtask knows whether it is still current. */
  #grants = 0;
  /** Whether the blocked-output rule lists this lease as holding its worker behind blocked output. */
  #behindBlockedOutput = false;
  /** Whether the slow-upload rule lists this lease: its handler waits for more of its body. */
  #awaitingUpload = false;
  #grantToRun = -1;
  #runGranted: (() => void) | null = null;
  #runDisplaced: (() => void) | null = null;

  constructor(slot: number, host: LeaseHost, scheduler: WorkerScheduler) {
    this.slot = slot;
    this.#host = host;
    this.#draft = host.draft;
    this.#scheduler = scheduler;
  }

  // The microtasks' callbacks are made on first use, in their own methods: made in the
  // constructor they cost every connection slot, made in grant or displace a scope per call.
  #makeRunGranted(): () => void {
    return () => this.#granted();
  }

  #makeRunDisplaced(): () => void {
    return () => {
      if (this.#state === "none") this.#host.requestDisplaced();
    };
  }

  get state(): LeaseState {
    return this.#state;
  }

  /** The dispatch key of the current request. */
  get key(): number {
    return this.#key;
  }

  /** The worker held now (in `held` only). */
  get worker(): WorkerSlot | null {
    return this.#draft.worker;
  }

  /**
   * `none` -> `held` when a worker is free and nobody waits, else -> `queued`; stays `none` when
   * the queue has no place (the caller answers 503). Returns the state reached.
   */
  request(key: number): LeaseState {
    this.#expect("none", "request a worker");
    // The low bits, as `(key >>> 0) % dispatchKeyCount` would give them (a power of two), but
    // always a small integer: that expression typed a hashed key past 2^31 as a double, and
    // JavaScriptCore's compiled scheduler failed its type checks on such keys and was recompiled.
    this.#key = key & (dispatchKeyCount - 1);
    key = this.#key;
    const worker = this.#scheduler.take(key);
    if (worker !== undefined) {
      this.#hold(worker);
    } else if (this.#scheduler.enqueueRequest(this.slot, key)) {
      this.#state = "queued";
    }
    return this.#state;
  }

  /** Whether other requests or handlers wait for a worker now. */
  get othersWaiting(): boolean {
    return this.#scheduler.waiting > 0;
  }

  /** The scheduler's grant: `queued` or `reacquiring` -> `held`. */
  grant(worker: WorkerSlot): void {
    if (this.#state !== "queued" && this.#state !== "reacquiring") this.#illegal("take a grant");
    this.#hold(worker);
    this.#grantToRun = ++this.#grants;
    this.#runGranted ??= this.#makeRunGranted();
    queueMicrotask(this.#runGranted);
  }

  /** The scheduler refused the queued request to make room: `queued` -> `none`. */
  displace(): void {
    this.#expect("queued", "be displaced");
    this.#state = "none";
    this.#runDisplaced ??= this.#makeRunDisplaced();
    queueMicrotask(this.#runDisplaced);
  }

  /** The response no longer needs the worker: `held` -> `none`, the worker goes back. */
  release(): void {
    this.#expect("held", "release");
    const worker = this.#draft.worker!;
    this.#drop();
    this.#scheduler.give(worker);
  }

  /**
   * The handler waits for something else: `held` -> `released`, the worker goes back. The first
   * `headerLength` bytes of drafted header lines are kept (described, or copied out: at most
   * `maxResponseHeaderBytes`) and restored when the worker comes back.
   */
  releaseWhileWaiting(headerLength: number): void {
    this.#expect("held", "be given back while waiting");
    const worker = this.#draft.worker!;
    if (headerLength > 0) {
      this.#keptHeaderLines ??= new KeptHeaderLines();
      this.#keptHeaderLines.keep(worker, headerLength);
      this.#keepingHeaderLines = true;
    }
    this.#drop();
    this.#state = "released";
    this.#scheduler.give(worker);
  }

  /**
   * The handler wants its worker back: `released` -> `held` when one is free and nobody waits,
   * else -> `reacquiring` until the scheduler grants one. In `held` it resolves at once.
   */
  reacquire(): Promise<void> {
    if (this.#state === "held") return Promise.resolve();
    this.#expect("released", "take the worker back");
    const worker = this.#scheduler.take(this.#key);
    if (worker !== undefined) {
      this.#hold(worker);
      return Promise.resolve();
    }
    this.#state = "reacquiring";
    this.#scheduler.enqueueReacquire(this.slot, this.#key);
    return new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** The request ended while its handler runs: `held` -> `abandoned`, the worker stays with it. */
  abandon(): void {
    this.#expect("held", "be abandoned");
    this.#leaveStalledRules();
    this.#state = "abandoned";
  }

  /**
   * Tells the blocked-output rule whether the held worker now waits behind output the client does
   * not read (`progressed`: a write moved some bytes); a new holder may push the holders past their
   * share, and the one stalled longest is closed (see blocked-output.ts).
   */
  outputBlocked(blocked: boolean, progressed: boolean): void {
    const holding = blocked && this.#state === "held";
    const rule = this.#scheduler.blockedOutput;
    if (holding === this.#behindBlockedOutput) {
      if (holding && progressed) rule.progressed(this.slot);
      return;
    }
    this.#behindBlockedOutput = holding;
    rule.setHolding(this.slot, holding);
    if (holding) this.#scheduler.reclaimBlockedWorker();
  }

  /** The request begins to read its body: the slow-upload rule times it from now. */
  bodyBegan(): void {
    this.#scheduler.slowUploads.bodyBegan(this.slot, performance.now());
  }

  /**
   * Tells the slow-upload rule whether the held worker now waits on the client for more of the
   * request body (`bytes` of it so far); a new holder may push the holders past their share, and
   * the slow one that has waited longest is answered 408 (see slow-uploads.ts).
   */
  awaitingUpload(waiting: boolean, bytes: number): void {
    const holding = waiting && this.#state === "held";
    if (holding === this.#awaitingUpload) return;
    this.#awaitingUpload = holding;
    this.#scheduler.slowUploads.awaiting(this.slot, holding, bytes);
    if (holding) this.#scheduler.reclaimBlockedWorker();
  }

  /** The abandoned handler settled: `abandoned` -> `none`, the worker goes back. */
  settleAbandoned(): void {
    this.#expect("abandoned", "settle an abandoned worker");
    const worker = this.#draft.worker!;
    this.#drop();
    this.#scheduler.give(worker);
  }

  /**
   * The request ended while no worker was held for it: `queued`, `released` or `reacquiring`
   * -> `none`. A pending `reacquire()` rejects with `reason`.
   */
  cancel(reason: Error): void {
    const state = this.#state;
    if (state !== "queued" && state !== "released" && state !== "reacquiring") {
      this.#illegal("be cancelled");
    }
    this.#scheduler.leave(this.slot);
    this.#state = "none";
    if (this.#keepingHeaderLines) {
      this.#keepingHeaderLines = false;
      this.#keptHeaderLines!.clear();
    }
    this.#rejectPending(reason);
  }

  /**
   * The request was aborted (the client half-closed) while its handler waited for its worker:
   * `reacquiring` -> `released`, and the pending `reacquire()` rejects with `reason`; the handler
   * may still ask again and answer.
   */
  stopReacquiring(reason: Error): void {
    this.#expect("reacquiring", "stop reacquiring");
    this.#scheduler.leave(this.slot);
    this.#state = "released";
    this.#rejectPending(reason);
  }

  /**
   * The request is over, however it ended: whatever the lease is in goes where it must. With
   * `handlerRunning` a held worker is abandoned to the handler rather than given back.
   */
  endRequest(handlerRunning: boolean, reason: Error): void {
    switch (this.#state) {
      case "held":
        if (handlerRunning) this.abandon();
        else this.release();
        return;
      case "queued":
      case "released":
      case "reacquiring":
        this.cancel(reason);
        return;
      default:
    }
  }

  #hold(worker: WorkerSlot): void {
    this.#state = "held";
    this.#draft.worker = worker;
    if (this.#keepingHeaderLines) {
      this.#keepingHeaderLines = false;
      this.#keptHeaderLines!.restore(worker);
    }
  }

  #drop(): void {
    // Tested here: the call, made on every release, was left uninlined (40 instructions).
    if (this.#awaitingUpload || this.#behindBlockedOutput) this.#leaveStalledRules();
    this.#state = "none";
    this.#draft.worker = null;
  }

  /** The worker is no longer held: off the blocked-output and slow-upload lists, if on one. */
  #leaveStalledRules(): void {
    if (this.#awaitingUpload) {
      this.#awaitingUpload = false;
      this.#scheduler.slowUploads.setHolding(this.slot, false);
    }
    if (!this.#behindBlockedOutput) return;
    this.#behindBlockedOutput = false;
    this.#scheduler.blockedOutput.setHolding(this.slot, false);
  }

  #granted(): void {
    if (this.#grantToRun !== this.#grants || this.#state !== "held") return;
    this.#grantToRun = -1;
    const resolve = this.#resolve;
    if (resolve !== null) {
      this.#resolve = null;
      this.#reject = null;
      resolve();
      return;
    }
    this.#host.workerGranted();
  }

  #rejectPending(reason: Error): void {
    const reject = this.#reject;
    this.#resolve = null;
    this.#reject = null;
    reject?.(reason);
  }

  #expect(state: LeaseState, action: string): void {
    if (this.#state !== state) this.#illegal(action);
  }

  #illegal(action: string): never {
    throw new TypeError(`corral: a worker lease cannot ${action} while ${this.#state}`);
  }
}
