import type { EventSourceChannel } from "corral";
import type { Job, JobProgress } from "./job-producer.ts";
import type { Session } from "./session-set.ts";

/** A value now (in memory) or later (from Redis). */
export type Eventually<Value> = Value | Promise<Value>;

/**
 * What the routes need of the job table: `JobProducer` (this process's memory) or
 * `RedisJobProducer` (shared by every instance on one Redis).
 *
 * @example
 * const job = await jobs.find(1);
 */
export interface JobTable {
  /** Where the progress events go, with the job's id in each. */
  readonly channel: EventSourceChannel<JobProgress>;
  /**
   * Takes a job slot for a job about to start, at once (false when every slot is busy): a burst
   * of requests that each wait for something before `start` cannot pass the bound.
   */
  reserve(): boolean;
  /** Gives back a slot `reserve` took for a job that will not start after all. */
  cancelReservation(): void;
  /** Starts a job in a slot `reserve` took (given back if the start fails). */
  start(owner: string): Eventually<Job>;
  find(id: number): Eventually<Job | undefined>;
  markDelivered(id: number): Eventually<void>;
  secondsUntilSlotFrees(): number;
  stop(): void;
}

/**
 * What the routes need of the session set: `SessionSet` (memory) or `RedisSessionSet`.
 *
 * @example
 * const session = await sessions.find(ctx.request.cookie("sid"));
 */
export interface SessionBook {
  readonly ttlMs: number;
  create(): Eventually<{ readonly token: string; readonly session: Session } | undefined>;
  find(token: string | undefined): Eventually<Session | undefined>;
  isLive(session: Session | undefined): Eventually<boolean>;
  revoke(session: Session): Eventually<void>;
}
