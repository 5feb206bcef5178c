import type { EngineErrorName } from "../errors.ts";
import type { Limits } from "../limits.ts";
import { ClientGoneError } from "../response-errors.ts";
import type { DeadlineKind, StatsCounters } from "../stats.ts";
import type { OutputChannel } from "./output-channel.ts";
import type { RequestInput } from "./request-input.ts";
import type { StreamFraming } from "./stream-framing.ts";

/** What the sweep reads and calls on a connection to enforce its deadlines. */
export interface DeadlineHost {
  readonly limits: Limits;
  readonly stats: StatsCounters;
  readonly input: RequestInput;
  readonly output: OutputChannel;
  readonly stream: StreamFraming;
  /** When the current deadline passes (coarse monotonic milliseconds). */
  readonly deadlineAt: number;
  /** Which deadline that is; `linger` is the short read-and-drop after an error answer. */
  readonly deadlineKind: DeadlineKind | "linger";
  abortExchange(reason: Error): void;
  fail(name: EngineErrorName): void;
  close(): void;
  terminate(): void;
}

/**
 * Enforces one connection's deadlines at `now` (called by the engine's one periodic sweep, never
 * by a timer per request): the write stall first, whatever the state, then the deadline of the
 * state the connection is in. Each close is counted by kind in `stats().deadlineCloses`.
 */
export function enforceDeadline(connection: DeadlineHost, now: number): void {
  const { stats, output, limits } = connection;
  // Progress is stamped with the sweep's clock, up to one interval behind (as in setDeadline).
  const stalledMs = now - output.lastProgressAt - limits.sweepIntervalMs;
  if (output.blocked && stalledMs >= limits.writeStallMs) {
    stats.deadlineCloses.writeStall++;
    connection.abortExchange(new ClientGoneError("the client stopped reading"));
    connection.terminate();
    return;
  }
  if (now < connection.deadlineAt) return;
  const kind = connection.deadlineKind;
  if (kind === "linger") {
    connection.close();
    return;
  }
  // A request that began (or output still owed) is not idle: its own deadline will come.
  if (kind === "idle" && (connection.input.headStarted || output.pending)) return;
  stats.deadlineCloses[kind]++;
  switch (kind) {
    case "idle":
      connection.close();
      return;
    case "header":
      connection.fail("headerTimeout");
      return;
    case "body":
      connection.fail("bodyTimeout");
      return;
    case "request":
      if (connection.stream.headSent) {
        connection.abortExchange(new ClientGoneError("the request deadline passed"));
        connection.terminate();
      } else {
        connection.fail("requestTimeout");
      }
      return;
    case "stream":
      connection.abortExchange(new ClientGoneError("the stream deadline passed"));
      connection.terminate();
  }
}
