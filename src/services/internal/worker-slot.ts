import type { ResolvedWorkerPoolOptions } from "../worker-pool-options.ts";
import {
  type CancelMessage,
  describeFailure,
  isReadyMessage,
  isResultFor,
  type JobMessage,
  type ResultMessage,
} from "./job-messages.ts";
import type { PendingJob } from "./pending-job.ts";

/**
 * What a slot tells its pool. Each is about the slot's current thread only: events of a thread
 * the slot has retired are never reported.
 *
 * @example
 * const events: SlotEvents = { ready: pump, result: settle, ended: replace };
 */
export interface SlotEvents {
  /** The thread called `serveJobs` and takes jobs. */
  ready(slot: WorkerSlot): void;
  /** The current job finished with a response or a handler error. */
  result(slot: WorkerSlot, message: ResultMessage<unknown>): void;
  /** The thread ended by itself, holding `job` if it had one; the slot is already down. */
  ended(slot: WorkerSlot, job: AnyJob | undefined, detail: string, exitCode?: number): void;
}

// biome-ignore lint/suspicious/noExplicitAny: a slot carries jobs of its pool's own types
type AnyJob = PendingJob<any, any>;

/**
 * One of a pool's fixed places for a thread. It is down (no thread), starting (the thread has not
 * called `serveJobs` yet), idle or busy with one job. A busy thread keeps the process alive;
 * an idle one does not, so a forgotten pool never holds the process open.
 *
 * @example
 * const slot = new WorkerSlot(options, events);
 * const exited = slot.start();
 * slot.assign(job);
 */
export class WorkerSlot {
  readonly #options: ResolvedWorkerPoolOptions;
  readonly #events: SlotEvents;
  #worker: Worker | undefined;
  #ready = false;
  #job: AnyJob | undefined;
  #failedToStart = false;

  constructor(options: ResolvedWorkerPoolOptions, events: SlotEvents) {
    this.#options = options;
    this.#events = events;
  }

  /** Whether the slot has a thread (starting, idle or busy). */
  get live(): boolean {
    return this.#worker !== undefined;
  }

  /** Whether the slot has a thread and no job. */
  get free(): boolean {
    return this.#worker !== undefined && this.#job === undefined;
  }

  /** Whether the slot's thread has called `serveJobs`. */
  get ready(): boolean {
    return this.#ready;
  }

  /** Whether the slot's last thread ended before it called `serveJobs`. */
  get failedToStart(): boolean {
    return this.#failedToStart;
  }

  /** The job the slot's thread holds. */
  get job(): AnyJob | undefined {
    return this.#job;
  }

  /** Starts a thread in this down slot; the promise settles when that thread has exited. */
  start(): Promise<void> {
    const worker = new Worker(this.#options.script, { name: this.#options.name, ref: false });
    const { promise: exited, resolve } = Promise.withResolvers<void>();
    this.#worker = worker;
    this.#ready = false;
    worker.addEventListener("message", (event) => {
      if (worker === this.#worker) this.#receive(event.data);
    });
    worker.addEventListener("messageerror", () => {
      if (worker !== this.#worker || this.#job === undefined) return;
      const error = { name: "DataCloneError", message: "the job's response could not be cloned" };
      this.#events.result(this, { id: this.#job.id, error });
    });
    worker.addEventListener("error", (event) => {
      // Bun ends a worker on an uncaught error; terminating makes sure before it is replaced.
      if (worker === this.#worker) this.#end(event.message || "uncaught error", undefined);
    });
    worker.addEventListener("close", (event) => {
      const { code } = event;
      if (worker === this.#worker) this.#end(`the thread exited with code ${code}`, code);
      resolve();
    });
    return exited;
  }

  /** Gives the free slot a job; a starting thread receives it once it is ready. */
  assign(job: AnyJob): void {
    this.#job = job;
    this.#worker?.ref();
    if (this.#ready) this.#post(job);
  }

  /** The job finished; the thread is free again. */
  release(): void {
    this.#job = undefined;
    this.#worker?.unref();
  }

  /** Tells the thread its job's caller gave up: the job's `signal` fires there. */
  cancel(): void {
    const job = this.#job;
    if (job === undefined || !this.#ready) return;
    const message: CancelMessage = { cancel: job.id };
    this.#worker?.postMessage(message);
  }

  /** Terminates the thread, whatever it is doing, and leaves the slot down. */
  retire(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#ready = false;
    this.#job = undefined;
    this.#failedToStart = false;
    worker?.unref();
    worker?.terminate();
  }

  #receive(data: unknown): void {
    if (!this.#ready && isReadyMessage(data)) {
      this.#ready = true;
      this.#failedToStart = false;
      if (this.#job !== undefined) this.#post(this.#job);
      this.#events.ready(this);
    } else if (this.#job !== undefined && isResultFor(data, this.#job.id)) {
      this.#events.result(this, data);
    } else {
      // Only serveJobs may speak on this channel; anything else means the script is not ours
      // to trust with further jobs.
      this.#end("the worker sent a message outside the job protocol", undefined);
    }
  }

  #post(job: AnyJob): void {
    const message: JobMessage<unknown> = { id: job.id, request: job.request };
    try {
      this.#worker?.postMessage(message);
    } catch (thrown) {
      // The request could not be cloned. Reported on a later tick so the pool never re-enters
      // its own dispatch loop.
      const error = describeFailure(thrown);
      queueMicrotask(() => {
        if (this.#job === job) this.#events.result(this, { id: job.id, error });
      });
    }
  }

  #end(detail: string, exitCode: number | undefined): void {
    const failedToStart = !this.#ready;
    const job = this.#job;
    this.retire();
    this.#failedToStart = failedToStart;
    this.#events.ended(this, job, detail, exitCode);
  }
}
