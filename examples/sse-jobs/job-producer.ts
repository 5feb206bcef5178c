import { EventChannel, type Io, type IoTimer } from "corral";

/**
 * One progress event: the payload of the `progress` events of `GET /jobs/:id/events`.
 *
 * @example
 * const progress: JobProgress = { job: 1, percent: 40 };
 */
export interface JobProgress {
  readonly job: number;
  readonly percent: number;
}

/**
 * A job in the producer's table, as routes see it.
 *
 * @example
 * const job = producer.find(1);
 * if (job?.percent === 100) console.log("done");
 */
export interface Job {
  readonly id: number;
  /** The key of the session that started it: only that session may watch it. */
  readonly owner: string;
  /** 0 to 100 in steps of {@link percentPerStep}. */
  readonly percent: number;
  /** Channel id of its 0% event: a new stream replays from here, so none misses the start. */
  readonly firstEventId: number;
  /** Channel id of its latest event (its 100% event once done). */
  readonly lastEventId: number;
  /** A stream sent its 100% event to the end: a new stream for it is answered 204. */
  readonly lastEventDelivered: boolean;
}

/**
 * Options of {@link JobProducer}.
 *
 * @example
 * const options: JobProducerOptions = { io: systemIo, stepMs: 200, maxJobs: 8, maxStreams: 256 };
 */
export interface JobProducerOptions {
  readonly io: Io;
  /** Time between two steps of progress. */
  readonly stepMs: number;
  /** Jobs the table holds, running or finished. */
  readonly maxJobs: number;
  /** Progress streams open at once; one more is answered 503 by the framework. */
  readonly maxStreams: number;
}

/**
 * Progress made per step; a job takes 100 / 10 = 10 steps.
 *
 * @example
 * const steps = 100 / percentPerStep; // 10
 */
export const percentPerStep = 10;
const stepsPerJob = 100 / percentPerStep;

type JobRecord = { -readonly [Field in keyof Job]: Job[Field] };

/**
 * The producer the App starts with: a bounded table of jobs, moved forward one step every
 * `stepMs` by a timer on the App's `Io`, each step published to an {@link EventChannel}. The
 * timer is armed only while some job runs, so an idle producer costs nothing.
 *
 * The channel's replay ring holds `2 × maxJobs × (steps + 1)` events: between a job's first and
 * last event at most that many are published (every tick moves at most `maxJobs` jobs and frees at
 * most as many slots for new ones), so a running job's whole history can always be replayed.
 *
 * @example
 * const producer = new JobProducer({ io: app.io, stepMs: 200, maxJobs: 8, maxStreams: 256 });
 * if (producer.reserve()) job = producer.start(session.key); // reserve: false when every slot is busy
 */
export class JobProducer {
  readonly channel: EventChannel<JobProgress>;
  readonly stepMs: number;
  readonly maxJobs: number;
  readonly #io: Io;
  // Insertion order is start order: the oldest finished job is the first one found.
  readonly #jobs = new Map<number, JobRecord>();
  /** Slots taken by `reserve` for jobs not started yet. */
  #reserved = 0;
  #nextId = 1;
  #timer: IoTimer | undefined;

  constructor(options: JobProducerOptions) {
    for (const name of ["stepMs", "maxJobs", "maxStreams"] as const) {
      if (!Number.isSafeInteger(options[name]) || options[name] < 1) {
        throw new TypeError(`sse-jobs: ${name} must be a whole number >= 1, got ${options[name]}`);
      }
    }
    this.stepMs = options.stepMs;
    this.maxJobs = options.maxJobs;
    this.#io = options.io;
    this.channel = new EventChannel<JobProgress>({
      replayCapacity: 2 * options.maxJobs * (stepsPerJob + 1),
      maxSubscribers: options.maxStreams,
    });
  }

  /**
   * Takes a slot for a job about to start: false when running jobs and slots already taken fill
   * the table (a finished job's place counts as free: `start` replaces it).
   *
   * @example
   * if (!producer.reserve()) throw new HttpError(503, "busy");
   */
  reserve(): boolean {
    let running = 0;
    for (const job of this.#jobs.values()) if (job.percent !== 100) running++;
    if (running + this.#reserved >= this.maxJobs) return false;
    this.#reserved++;
    return true;
  }

  /** Gives back a slot `reserve` took. */
  cancelReservation(): void {
    if (this.#reserved === 0) throw new TypeError("sse-jobs: no slot is reserved");
    this.#reserved--;
  }

  /**
   * Starts a job for `owner` at 0% (published at once) in a slot `reserve` took, replacing the
   * oldest finished job when the table is full.
   *
   * @example
   * if (producer.reserve()) job = producer.start(session.key);
   */
  start(owner: string): Job {
    this.cancelReservation();
    if (this.#jobs.size >= this.maxJobs) {
      for (const job of this.#jobs.values()) {
        if (job.percent !== 100) continue;
        this.#jobs.delete(job.id);
        break;
      }
    }
    const job: JobRecord = {
      id: this.#nextId++,
      owner,
      percent: 0,
      firstEventId: 0,
      lastEventId: 0,
      lastEventDelivered: false,
    };
    this.#jobs.set(job.id, job);
    job.firstEventId = job.lastEventId = this.channel.publish({ job: job.id, percent: 0 });
    this.#timer ??= this.#io.setTimer(this.stepMs, () => this.#tick());
    return job;
  }

  /**
   * The job with `id`, running or finished, while the table holds it.
   *
   * @example
   * producer.find(1)?.percent; // 40
   */
  find(id: number): Job | undefined {
    return this.#jobs.get(id);
  }

  /**
   * Whether `owner` has a job still running: its session must not be evicted.
   *
   * @example
   * const pinned = producer.hasRunningJob(session.key);
   */
  hasRunningJob(owner: string): boolean {
    for (const job of this.#jobs.values()) {
      if (job.owner === owner && job.percent < 100) return true;
    }
    return false;
  }

  /**
   * Records that a stream sent job `id`'s 100% event and ended normally.
   *
   * @example
   * producer.markDelivered(1);
   */
  markDelivered(id: number): void {
    const job = this.#jobs.get(id);
    if (job !== undefined && job.percent === 100) job.lastEventDelivered = true;
  }

  /**
   * Seconds until the job nearest its end finishes: the `Retry-After` of a full table.
   *
   * @example
   * producer.secondsUntilSlotFrees(); // 1 with 200 ms steps
   */
  secondsUntilSlotFrees(): number {
    let fewestSteps = stepsPerJob;
    for (const job of this.#jobs.values()) {
      fewestSteps = Math.min(fewestSteps, (100 - job.percent) / percentPerStep);
    }
    return Math.max(1, Math.ceil((fewestSteps * this.stepMs) / 1000));
  }

  /**
   * Cancels the pending step; running jobs stay where they are.
   *
   * @example
   * producer.stop();
   */
  stop(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #tick(): void {
    this.#timer = undefined;
    let running = 0;
    for (const job of this.#jobs.values()) {
      if (job.percent === 100) continue;
      job.percent += percentPerStep;
      job.lastEventId = this.channel.publish({ job: job.id, percent: job.percent });
      if (job.percent < 100) running++;
    }
    if (running > 0) this.#timer = this.#io.setTimer(this.stepMs, () => this.#tick());
  }
}
