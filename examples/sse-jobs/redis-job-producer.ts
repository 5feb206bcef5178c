import {
  type Io,
  type IoTimer,
  type RedisConnection,
  RedisEventChannel,
  type RedisSubscriber,
} from "corral";
import type { JobTable } from "./job-backend.ts";
import { type Job, type JobProgress, percentPerStep } from "./job-producer.ts";

/**
 * Options of {@link RedisJobProducer.open}.
 *
 * @example
 * const options: RedisJobProducerOptions = { io: systemIo, redis, subscriber, stepMs: 200, maxJobs: 8, maxStreams: 256, jobTtlMs: 3_600_000 };
 */
export interface RedisJobProducerOptions {
  readonly io: Io;
  readonly redis: RedisConnection;
  readonly subscriber: RedisSubscriber;
  /** Time between two steps of progress. */
  readonly stepMs: number;
  /** Jobs this instance runs at once; each instance has its own slots. */
  readonly maxJobs: number;
  /** Progress streams of this instance waiting at once. */
  readonly maxStreams: number;
  /** How long Redis keeps a job's record after its start (the session lifetime). */
  readonly jobTtlMs: number;
}

/**
 * Progress events the shared channel keeps for replay: the whole history of 32 instances'
 * full job slots (see `JobProducer` for why twice the events of one round of jobs).
 */
const instancesCovered = 32;
const stepsPerJob = 100 / percentPerStep;
const keyPrefix = "corral:sse-jobs-example:";

/** A running job's latest step, and whether its Redis record shows it yet. */
interface RunningStep {
  percent: number;
  lastEventId: number;
  recorded: boolean;
}

/**
 * The job table on Redis: every instance on the same Redis sees every job. A job runs on the
 * instance that started it (its timer moves it on), but its record (owner, progress, first and
 * last event id) is a Redis hash that expires with the session lifetime, and its progress goes
 * to one `RedisEventChannel` shared by all instances, the job's id in each event. So a job
 * started on A can be followed from B, replayed there with `Last-Event-ID`, and a publish on A
 * wakes B's waiting streams (the channel's pub/sub notification).
 *
 * @example
 * const producer = await RedisJobProducer.open({ io, redis, subscriber, stepMs: 200, maxJobs: 8, maxStreams: 256, jobTtlMs: 3_600_000 });
 * if (producer.reserve()) job = await producer.start(session.key);
 */
export class RedisJobProducer implements JobTable {
  readonly channel: RedisEventChannel<JobProgress>;
  readonly stepMs: number;
  readonly maxJobs: number;
  readonly #io: Io;
  readonly #redis: RedisConnection;
  readonly #jobTtlMs: number;
  /** Jobs of this instance still running (or whose 100% is not yet recorded), by id. */
  readonly #running = new Map<number, RunningStep>();
  /** Slots taken by `reserve` for jobs not started yet. */
  #reserved = 0;
  #timer: IoTimer | undefined;
  #stopped = false;

  private constructor(options: RedisJobProducerOptions, channel: RedisEventChannel<JobProgress>) {
    this.channel = channel;
    this.stepMs = options.stepMs;
    this.maxJobs = options.maxJobs;
    this.#io = options.io;
    this.#redis = options.redis;
    this.#jobTtlMs = options.jobTtlMs;
  }

  /**
   * Opens the shared progress channel and returns the producer.
   *
   * @example
   * const producer = await RedisJobProducer.open({ io, redis, subscriber, stepMs: 200, maxJobs: 8, maxStreams: 256, jobTtlMs: 3_600_000 });
   */
  static async open(options: RedisJobProducerOptions): Promise<RedisJobProducer> {
    for (const name of ["stepMs", "maxJobs", "maxStreams", "jobTtlMs"] as const) {
      if (!Number.isSafeInteger(options[name]) || options[name] < 1) {
        throw new TypeError(`sse-jobs: ${name} must be a whole number >= 1, got ${options[name]}`);
      }
    }
    const channel = await RedisEventChannel.open<JobProgress>({
      redis: options.redis,
      subscriber: options.subscriber,
      name: "progress",
      prefix: keyPrefix,
      replayCapacity: 2 * instancesCovered * options.maxJobs * (stepsPerJob + 1),
      maxSubscribers: options.maxStreams,
    });
    return new RedisJobProducer(options, channel);
  }

  reserve(): boolean {
    // Taken at once: a request that then waits for Redis keeps its slot, so a burst of them
    // cannot pass the bound (checked and taken after an await, 200 at once started 26 jobs).
    if (this.#running.size + this.#reserved >= this.maxJobs) return false;
    this.#reserved++;
    return true;
  }

  cancelReservation(): void {
    if (this.#reserved === 0) throw new TypeError("sse-jobs: no slot is reserved");
    this.#reserved--;
  }

  async start(owner: string): Promise<Job> {
    if (this.#reserved === 0) throw new TypeError("sse-jobs: no slot is reserved");
    let id: number;
    try {
      id = (await this.#redis.command("INCR", [`${keyPrefix}next-job`])) as number;
    } finally {
      this.#reserved--;
    }
    // The reserved slot becomes the job's in the same turn.
    this.#running.set(id, { percent: 0, lastEventId: 0, recorded: true });
    try {
      const eventId = await this.channel.publish({ job: id, percent: 0 });
      const key = jobKey(id);
      const first = String(eventId);
      await this.#redis.command("HSET", [
        key,
        "owner",
        owner,
        "percent",
        "0",
        "first",
        first,
        "last",
        first,
      ]);
      await this.#redis.command("PEXPIRE", [key, String(this.#jobTtlMs)]);
      if (!this.#stopped) this.#timer ??= this.#io.setTimer(this.stepMs, () => void this.#tick());
      return {
        id,
        owner,
        percent: 0,
        firstEventId: eventId,
        lastEventId: eventId,
        lastEventDelivered: false,
      };
    } catch (error) {
      this.#running.delete(id);
      throw error;
    }
  }

  async find(id: number): Promise<Job | undefined> {
    const fields = (await this.#redis.command("HGETALL", [jobKey(id)])) as Record<string, string>;
    if (fields.owner === undefined || fields.first === undefined) return undefined;
    return {
      id,
      owner: fields.owner,
      percent: Number(fields.percent),
      firstEventId: Number(fields.first),
      lastEventId: Number(fields.last),
      lastEventDelivered: fields.delivered === "1",
    };
  }

  async markDelivered(id: number): Promise<void> {
    // Only a finished job's record is marked; an expired one is not brought back.
    const key = jobKey(id);
    const fields = (await this.#redis.command("HGETALL", [key])) as Record<string, string>;
    if (fields.percent === "100") await this.#redis.command("HSET", [key, "delivered", "1"]);
  }

  secondsUntilSlotFrees(): number {
    let fewestSteps = stepsPerJob;
    for (const { percent } of this.#running.values()) {
      fewestSteps = Math.min(fewestSteps, (100 - percent) / percentPerStep);
    }
    return Math.max(1, Math.ceil((fewestSteps * this.stepMs) / 1000));
  }

  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  // A publish or a record update that Redis refuses (it is away) is tried again at the next
  // tick: no step is skipped or published twice, and a finished job's record says so.
  async #tick(): Promise<void> {
    // A copy: jobs started while this tick waits on Redis make their first step at the next one.
    for (const [id, step] of [...this.#running]) {
      try {
        if (step.recorded) {
          const percent = step.percent + percentPerStep;
          const lastEventId = await this.channel.publish({ job: id, percent });
          Object.assign(step, { percent, lastEventId, recorded: false });
        }
        const fields = ["percent", String(step.percent), "last", String(step.lastEventId)];
        await this.#redis.command("HSET", [jobKey(id), ...fields]);
        step.recorded = true;
        if (step.percent === 100) this.#running.delete(id);
      } catch {
        // Redis unreachable: the rest of this step waits for the next tick.
      }
    }
    this.#timer =
      this.#running.size > 0 && !this.#stopped
        ? this.#io.setTimer(this.stepMs, () => void this.#tick())
        : undefined;
  }
}

function jobKey(id: number): string {
  return `${keyPrefix}job:${id}`;
}
