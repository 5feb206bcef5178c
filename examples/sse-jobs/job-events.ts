import {
  type Context,
  type ContinuationSpec,
  HttpError,
  parseLastEventId,
  type ServerSentEventsState,
  serverSentEvents,
} from "corral";
import type { JobTable, SessionBook } from "./job-backend.ts";
import type { Job, JobProgress } from "./job-producer.ts";
import { requireSession, type SessionLocals } from "./session-cookie.ts";

/** Route captures of the job routes. */
type JobParams = { readonly id: string };

type JobContext = Context<unknown, JobParams, SessionLocals>;

const jobIdPattern = /^[1-9][0-9]{0,15}$/;

/**
 * The job `ctx.params.id` names, if the request's session started it: 403 without a session,
 * 404 for an unknown job or another session's (which is not told apart from unknown).
 *
 * @example
 * const job = await ownedJob(ctx, producer);
 */
export async function ownedJob(ctx: JobContext, producer: JobTable): Promise<Job> {
  const session = requireSession(ctx);
  const job = jobIdPattern.test(ctx.params.id)
    ? await producer.find(Number(ctx.params.id))
    : undefined;
  if (job === undefined || job.owner !== session.key) {
    throw new HttpError(404, "Not Found: no such job");
  }
  return job;
}

/**
 * The state of one job's event stream: where it is in the channel, and which job it follows.
 *
 * @example
 * const state: JobStreamState = { cursor: 0, finished: false, jobId: 1 };
 */
export interface JobStreamState extends ServerSentEventsState {
  readonly jobId: number;
}

/**
 * `GET /jobs/:id/events`: one job's progress as server-sent events named `progress`, with the
 * channel's ids. The stream replays the job from its first event (so a client that connects
 * after `POST /jobs` misses nothing), or resumes after `Last-Event-ID`, and ends after the 100%
 * event. Waiting streams hold no worker. Before every resumed step the session is checked again:
 * a revoked or expired one ends the stream.
 *
 * A finished job's stream is answered 204 No Content, which stops an `EventSource` from
 * reconnecting, when the client already has the 100% event (`Last-Event-ID`), or when it sends
 * no `Last-Event-ID` and a stream already delivered that event.
 *
 * @example
 * app.continuation("GET", "/jobs/:id/events", jobEvents(producer, sessions, 15_000));
 */
export function jobEvents(
  producer: JobTable,
  sessions: SessionBook,
  heartbeatMs: number,
): ContinuationSpec<unknown, JobParams, SessionLocals, JobStreamState> {
  const events = serverSentEvents<unknown, JobParams, SessionLocals, JobProgress>(
    producer.channel,
    {
      eventName: () => "progress",
      filter: (ctx, progress) => String(progress.job) === ctx.params.id,
      isLast: (progress) => progress.percent === 100,
      heartbeatMs,
      resume: (ctx) => sessions.isLive(ctx.locals.session),
    },
  );
  return {
    ...events,
    async state(ctx) {
      const job = await ownedJob(ctx, producer);
      const state = await events.state(ctx);
      // Events before the job's first are never its own: start there instead of replaying
      // (or reporting as a gap) other jobs' history.
      const lastEventId = parseLastEventId(ctx.request.header("last-event-id"));
      const cursor = Math.max(lastEventId ?? 0, job.firstEventId - 1);
      const hasLastEvent =
        lastEventId === undefined ? job.lastEventDelivered : cursor >= job.lastEventId;
      // `finished` answers 204 (see serverSentEvents): an EventSource that reconnects after the
      // end stops, instead of reopening an empty stream every few seconds for good.
      return { ...state, cursor, finished: job.percent === 100 && hasLastEvent, jobId: job.id };
    },
    cleanup(state, outcome) {
      if (outcome !== "success" || !state.finished) return;
      // A lost Redis write costs only this: a reconnect without Last-Event-ID replays the job
      // once more instead of getting 204.
      Promise.resolve(producer.markDelivered(state.jobId)).catch(() => {});
    },
  };
}
