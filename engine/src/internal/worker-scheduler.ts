import type { Limits } from "../limits.ts";
import type { StatsCounters } from "../stats.ts";
import type { ArenaReservation } from "./arena-reservation.ts";
import { BlockedOutputRule } from "./blocked-output.ts";
import { FairQueue } from "./fair-queue.ts";
import { SlowUploadRule } from "./slow-uploads.ts";
import { type WorkerSlot, WorkerTable } from "./worker-table.ts";

/**
 * Dispatch keys the scheduler tells apart; larger keys are folded onto these (two routes that
 * share a folded key share their fairness, nothing worse).
 */
export const dispatchKeyCount = 1024;
if ((dispatchKeyCount & (dispatchKeyCount - 1)) !== 0) {
  throw new Error("corral: dispatchKeyCount must be a power of two (keys are folded by a mask)");
}

/** What the scheduler asks of a connection's lease. */
export interface SchedulerLease {
  /** The worker the lease waited for (queued or reacquiring). */
  grant(worker: WorkerSlot): void;
  /** The queue was full and this waiting request gave its place to another route's. */
  displace(): void;
}

/**
 * The one owner of the workers: the table of free workers, the requests waiting for one, the
 * handlers waiting to take one back, and the blocked-output rule. Connections never touch the
 * table; each asks through its `WorkerLease`.
 *
 * Fair dispatch: every request carries a dispatch key (the App gives its route). A worker that
 * comes free goes first to a handler taking its worker back (it was admitted already), then to
 * the waiting request whose key holds the fewest workers now, the oldest first among equals
 * (`FairQueue`). A key may hold every worker while nobody else waits, so a one-route App loses
 * nothing; but a route whose handlers wait long cannot make the others queue behind it. When the
 * queue is full, a request of a key with fewer waiters takes the place of the newest waiter of
 * the key with the most (answered 503 like a full queue), so one route cannot fill it either.
 */
export class WorkerScheduler {
  readonly blockedOutput: BlockedOutputRule;
  readonly slowUploads: SlowUploadRule;
  readonly #limits: Limits;
  readonly #stats: StatsCounters;
  readonly #table: WorkerTable;
  /** Workers held per dispatch key. */
  readonly #held = new Int32Array(dispatchKeyCount);
  /** The key each busy worker is held under. */
  readonly #keyOfWorker: Int32Array;
  readonly #requests: FairQueue;
  readonly #reacquires: FairQueue;
  readonly #closeStalled: (slot: number, why: "blockedOutput" | "slowUpload") => void;
  #leases: readonly SchedulerLease[] = [];
  #arrivals = 0;

  /** `arenas`: the engine's reservation, to take the workers' memory from. */
  constructor(
    limits: Limits,
    stats: StatsCounters,
    closeStalled: (slot: number, why: "blockedOutput" | "slowUpload") => void,
    arenas?: ArenaReservation,
  ) {
    this.#limits = limits;
    this.#stats = stats;
    this.#table = new WorkerTable(limits, arenas);
    this.#keyOfWorker = new Int32Array(limits.workers);
    this.#requests = new FairQueue(limits.maxConnections, this.#held);
    this.#reacquires = new FairQueue(limits.maxConnections, this.#held);
    this.blockedOutput = new BlockedOutputRule(limits, stats);
    this.slowUploads = new SlowUploadRule(limits, stats);
    this.#closeStalled = closeStalled;
  }

  /** The lease of each connection slot, by slot (set once the connections exist). */
  attach(leases: readonly SchedulerLease[]): void {
    this.#leases = leases;
  }

  /** Requests and reacquiring handlers waiting for a worker now. */
  get waiting(): number {
    return this.#requests.length + this.#reacquires.length;
  }

  /** Workers `key` (a folded key, below `dispatchKeyCount`) holds now. */
  heldBy(key: number): number {
    return this.#held[key]!;
  }

  // Keys given to the scheduler are folded already (below `dispatchKeyCount`): see WorkerLease.

  /** A free worker for `key`, or undefined when none is free or others wait (they go first). */
  take(key: number): WorkerSlot | undefined {
    if (this.#requests.length > 0 || this.#reacquires.length > 0) return undefined;
    const worker = this.#table.take();
    if (worker !== undefined) this.#assign(worker, key);
    return worker;
  }

  /** Queues the request of `slot` under `key`; false when the queue has no place for it. */
  enqueueRequest(slot: number, key: number): boolean {
    const requests = this.#requests;
    if (requests.length >= this.#limits.maxQueuedRequests && !this.#displaceFor(key)) {
      return false;
    }
    requests.push(slot, key, this.#arrivals++);
    this.#stats.queuedRequests = requests.length;
    return true;
  }

  /** Queues a handler of `slot` that gave its worker back and wants one again (always fits). */
  enqueueReacquire(slot: number, key: number): void {
    this.#reacquires.push(slot, key, this.#arrivals++);
  }

  /** Takes `slot` out of both queues (its request ended while it waited). */
  leave(slot: number): void {
    this.#requests.remove(slot);
    this.#reacquires.remove(slot);
    this.#stats.queuedRequests = this.#requests.length;
  }

  /** A worker came back: it goes to the fairest waiter, or to the free table. */
  give(worker: WorkerSlot): void {
    const key = this.#keyOfWorker[worker.index]!;
    this.#held[key]!--;
    this.#requests.heldChanged(key);
    this.#reacquires.heldChanged(key);
    let slot = this.#reacquireFirst() ? this.#reacquires.shift() : -1;
    if (slot >= 0) {
      this.#assign(worker, this.#reacquires.keyOf(slot));
    } else if (this.#requests.length > 0) {
      const requests = this.#requests;
      if (requests.first !== requests.oldest) this.#stats.fairDispatches++;
      slot = requests.shift();
      this.#stats.queuedRequests = requests.length;
      this.#assign(worker, requests.keyOf(slot));
    } else {
      this.#table.give(worker);
      this.#stats.workersBusy = this.#table.busy;
      return;
    }
    this.#leases[slot]!.grant(worker);
  }

  /**
   * Whether the next worker goes to a handler taking its worker back rather than to a new
   * request: it does (the request under way finishes first) unless the fairest new request's key
   * holds fewer workers than the reacquirer's. Strict priority let handlers of one route that
   * give their worker back and take it again (streams catching up, sleeps ending together) pass
   * it among themselves while a request of another route waited for all of them.
   */
  #reacquireFirst(): boolean {
    const reacquirer = this.#reacquires.first;
    if (reacquirer < 0) return false;
    const request = this.#requests.first;
    if (request < 0) return true;
    const held = this.#held;
    return held[this.#reacquires.keyOf(reacquirer)]! <= held[this.#requests.keyOf(request)]!;
  }

  /**
   * Closes the connection stalled longest when blocked output, or slow uploads, hold more than
   * their share of the workers while requests wait for one.
   */
  reclaimBlockedWorker(): void {
    const slot = this.blockedOutput.connectionToClose(this.waiting);
    if (slot >= 0) this.#closeStalled(slot, "blockedOutput");
    const upload = this.slowUploads.slowToClose(this.waiting, performance.now());
    if (upload >= 0) this.#closeStalled(upload, "slowUpload");
  }

  #assign(worker: WorkerSlot, key: number): void {
    this.#keyOfWorker[worker.index] = key;
    this.#held[key]!++;
    this.#requests.heldChanged(key);
    this.#reacquires.heldChanged(key);
    const stats = this.#stats;
    stats.workersBusy = this.#table.busy;
    if (stats.workersBusy > stats.peakWorkersBusy) stats.peakWorkersBusy = stats.workersBusy;
  }

  /**
   * Makes room in a full queue for a request of `key`: the newest waiter of the key with the
   * most waiters is refused, when that key has at least two more waiters than `key` would.
   */
  #displaceFor(key: number): boolean {
    const requests = this.#requests;
    const victim = requests.newestOfLongest();
    if (victim < 0) return false;
    if (requests.waitingFor(requests.keyOf(victim)) <= requests.waitingFor(key) + 1) return false;
    requests.remove(victim);
    this.#stats.queueDisplacements++;
    this.#leases[victim]!.displace();
    return true;
  }
}
