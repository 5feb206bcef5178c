import { App, HttpError, type Io, systemIo } from "corral";
import type { JobTable, SessionBook } from "./job-backend.ts";
import { jobEvents, ownedJob } from "./job-events.ts";
import { JobProducer } from "./job-producer.ts";
import page from "./page.html" with { type: "text" };
import {
  endSession,
  ensureSession,
  type SessionLocals,
  sessionMiddleware,
} from "./session-cookie.ts";
import { SessionSet } from "./session-set.ts";

/**
 * Options of {@link createSseJobsApp}; tests pass a `ManualIo` and small limits.
 *
 * @example
 * const app = createSseJobsApp({ io: new ManualIo(), stepMs: 100, maxJobs: 2 });
 */
export interface SseJobsOptions {
  /** Clock, timers and randomness of the App and its producer; `systemIo` by default. */
  readonly io?: Io;
  /** Time per 10% step (200 ms: a job takes 2 s). */
  readonly stepMs?: number;
  /** Jobs held, running or finished (8). */
  readonly maxJobs?: number;
  /** Progress streams open at once (256). */
  readonly maxStreams?: number;
  /** Sessions held (1024); when full, the oldest without a running job makes room. */
  readonly maxSessions?: number;
  /** Fixed session lifetime (one hour). */
  readonly sessionTtlMs?: number;
  /** Comment sent on a silent stream after this long (15 s). */
  readonly heartbeatMs?: number;
}

/**
 * What the App shares with its handlers, and with tests.
 *
 * @example
 * app.shared.producer.find(1)?.percent;
 */
export interface SseJobsShared {
  readonly producer: JobProducer;
  readonly sessions: SessionSet;
}

/**
 * The sse-jobs example: jobs whose progress a producer publishes as server-sent events.
 *
 * - `GET /`: the embedded page (borrowed body). It starts no session: anonymous visits cost
 *   the server nothing.
 * - `POST /jobs`: starts a job (201 with its id), and a session if there is none; 503 when
 *   every slot holds a running job.
 * - `GET /jobs/:id`: the job's progress as JSON.
 * - `GET /jobs/:id/events`: the job's `progress` events, replayable by id, ending at 100%; a
 *   reconnect after the end is answered 204, so an `EventSource` stops.
 * - `POST /logout`: revokes the session; its open streams end at once.
 *
 * @example
 * const app = createSseJobsApp({ stepMs: 200 });
 * app.listen({ port: 3000 });
 */
export function createSseJobsApp(options: SseJobsOptions = {}): App<SseJobsShared, SessionLocals> {
  const io = options.io ?? systemIo;
  // The producer starts with the App; its timer runs while some job does.
  const producer = new JobProducer({
    io,
    stepMs: options.stepMs ?? 200,
    maxJobs: options.maxJobs ?? 8,
    maxStreams: options.maxStreams ?? 256,
  });
  // A session with a running job is never evicted; any other may make room for a new one.
  const sessions = new SessionSet({
    io,
    capacity: options.maxSessions ?? 1024,
    ttlMs: options.sessionTtlMs ?? 3_600_000,
    pinned: (session) => producer.hasRunningJob(session.key),
  });
  const app = new App<SseJobsShared>({ shared: { producer, sessions }, io });
  return addJobRoutes(app, producer, sessions, options.heartbeatMs ?? 15_000);
}

/**
 * Adds the session middleware and the routes of the example (see {@link createSseJobsApp}) to
 * `app`, over either kind of job table and session set: in memory or on Redis.
 *
 * @example
 * addJobRoutes(new App({ shared: {} }), producer, sessions, 15_000);
 */
export function addJobRoutes<Shared>(
  bare: App<Shared>,
  producer: JobTable,
  sessions: SessionBook,
  heartbeatMs: number,
): App<Shared, SessionLocals> {
  const app = bare.use(sessionMiddleware(sessions));
  // A text import is a string at run time (Bun's typings describe HTML bundles instead); encoded
  // once here, so requests borrow the same bytes and never touch the filesystem.
  const pageBytes = new TextEncoder().encode(page as unknown as string);

  app.route("GET", "/", (ctx) => {
    ctx.response.header("Cache-Control", "no-store");
    ctx.response.borrowBody(200, "text/html; charset=utf-8", pageBytes);
  });
  app.route("POST", "/jobs", async (ctx) => {
    // The slot is taken before a session is made: a refused request must not leave one behind
    // whose cookie the client never got, and requests waiting for the session store meanwhile
    // cannot together pass the bound.
    if (!producer.reserve()) {
      throw new HttpError(503, "Service Unavailable: every job slot is busy, retry later", {
        headers: { "Retry-After": String(producer.secondsUntilSlotFrees()) },
      });
    }
    let owner: string;
    try {
      owner = (await ensureSession(ctx, sessions)).key;
    } catch (error) {
      producer.cancelReservation();
      throw error;
    }
    const job = await producer.start(owner);
    ctx.response.header("Location", `/jobs/${job.id}`);
    ctx.response.json(201, { id: job.id, percent: job.percent, events: `/jobs/${job.id}/events` });
  });
  app.route("GET", "/jobs/:id", async (ctx) => {
    const job = await ownedJob(ctx, producer);
    ctx.response.header("Cache-Control", "no-store");
    ctx.response.json(200, { id: job.id, percent: job.percent, done: job.percent === 100 });
  });
  app.continuation("GET", "/jobs/:id/events", jobEvents(producer, sessions, heartbeatMs));
  app.route("POST", "/logout", async (ctx) => {
    const hadSession = ctx.locals.session !== undefined;
    await endSession(ctx, sessions);
    // Wake every waiting stream: each checks its session before stepping, so this session's
    // streams end now rather than at their job's next event.
    if (hadSession) producer.channel.notifier.notify();
    ctx.response.setStatus(204);
  });
  return app;
}
