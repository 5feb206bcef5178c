import type { EngineErrorName } from "../errors.ts";
import type { Exchange } from "../exchange.ts";
import { ClientGoneError } from "../response-errors.ts";
import type { DeadlineKind } from "../stats.ts";
import type { ConnectionParts } from "./connection-parts.ts";
import {
  type ConnectionPhase,
  closing,
  type Ending,
  readingBody,
  readingHead,
  webSocketPhase,
} from "./connection-phase.ts";
import { errorResponseMaxBytes } from "./error-responses.ts";
import type { HandlerRun } from "./handler-run.ts";

/** How long a connection closed after an error keeps reading (and dropping) what the client sends. */
const lingerMs = 1000;

/** What the ending of a connection reads and changes of it. */
export interface EndingHost extends ConnectionParts {
  readonly run: HandlerRun;
  readonly exchange: Exchange | null;
  state: ConnectionPhase;
  ending: Ending;
  setDeadline(kind: DeadlineKind | "linger", afterMs: number): void;
  abortExchange(reason: Error): void;
  /** Makes the current exchange stale without publishing it. */
  endExchange(): void;
  close(): void;
  terminate(): void;
  resumeReading(): void;
  pump(): void;
}

/**
 * How a connection ends after an engine error: the error is answered as soon as the output has
 * room (after what was written before it), the connection half-closes, and then lingers a moment
 * reading and dropping what the client still sends, so a client still uploading reads the
 * answer instead of a reset (RFC 9112 §9.6).
 */
export class ConnectionEnding {
  readonly #host: EndingHost;
  /** The engine error still to answer, if any. */
  pendingError: EngineErrorName | null = null;
  /** Whether the pending error answers a HEAD request (decided before the input is let go). */
  #forHead = false;

  constructor(host: EndingHost) {
    this.#host = host;
  }

  /** Answers engine error `name` and closes the connection once it is written. */
  fail(name: EngineErrorName): void {
    const host = this.#host;
    host.stats.countError(name);
    const reason = new ClientGoneError(`the request failed: ${name}`);
    host.abortExchange(reason);
    host.lease.endRequest(host.run.running && host.exchange !== null, reason);
    host.endExchange();
    host.ending = "linger";
    host.state = closing;
    this.#forHead = host.head.isHeadMethod();
    host.input.discard();
    this.pendingError = name;
    // Until the answer is out, the write-stall deadline bounds the wait for a reader.
    host.setDeadline("linger", host.limits.writeStallMs);
    host.pump();
  }

  /** Appends the pending error answer when the output has room for it. */
  appendPending(): void {
    const name = this.pendingError;
    const host = this.#host;
    if (name === null || host.output.room < errorResponseMaxBytes) return;
    this.pendingError = null;
    const row = host.context.errorResponses[name];
    host.output.appendError(row, host.context.date.bytes, this.#forHead);
    host.stats.countResponse(row.status);
  }

  /**
   * Pipelined requests wait unread (turn over, or no answers read): see `RequestInput.park`. Else
   * dropped, closing once answered (RFC 9112 §9.3.2: a client retries unanswered requests).
   */
  keepOrDropUnreadInput(): void {
    const host = this.#host;
    const segment = host.output.segment;
    if (host.input.park(segment, !host.output.blocked)) return;
    host.input.dropPending(segment);
    // Lingers as after an error: a close with unread bytes resets, losing unread answers.
    host.ending = "linger";
    host.stats.pipelinedInputDrops++;
  }

  /**
   * Closed by the blocked-output rule (the client stopped reading) or the slow-upload rule (its
   * handler waited longest for the body, answered 408), while others need the worker.
   */
  closeStalled(why: "blockedOutput" | "slowUpload"): void {
    const host = this.#host;
    if (why === "slowUpload") {
      host.stats.slowUploadCloses++;
      this.fail("bodyTimeout");
      return;
    }
    host.stats.blockedOutputCloses++;
    host.abortExchange(new ClientGoneError("the client stopped reading"));
    host.terminate();
  }

  /**
   * The client half-closed (FIN). Like common servers, a FIN during a request is taken as the
   * client giving up on it: what the handler still answers is written, then the connection
   * closes. A WebSocket, or a connection between requests, closes at once.
   */
  clientEnded(): void {
    const host = this.#host;
    const reason = new ClientGoneError("the client closed the connection");
    host.abortExchange(reason);
    const state = host.state;
    if (state === webSocketPhase || (state === readingHead && !host.output.pending)) {
      host.close();
      return;
    }
    // A body the engine reads whole can no longer complete: waiting for it would hold the worker
    // until the body deadline, to answer 408 to nobody.
    if (state === readingBody && !host.run.running) {
      this.#abandonBody(reason);
      return;
    }
    host.ending = "close";
    host.pump();
  }

  /**
   * The request whose body can no longer come ends now (its worker goes back, nothing answers
   * it), and the connection closes once what it owes for earlier requests is written.
   */
  #abandonBody(reason: Error): void {
    const host = this.#host;
    host.lease.endRequest(false, reason);
    host.endExchange();
    host.ending = "close";
    host.state = closing;
    host.input.discard();
    // Until what is owed is out, the write-stall deadline bounds the wait for a reader.
    host.setDeadline("linger", host.limits.writeStallMs);
    host.pump();
  }

  /**
   * Everything owed is written: close, or half-close and linger after an error answer, or when
   * the client sent bytes that were never read (requests behind a `Connection: close`): closed
   * with them unread, the connection would be reset, and a reset can erase the answer the client
   * has not read yet (RFC 9112 §9.6).
   */
  finish(): void {
    const host = this.#host;
    if (host.ending !== "linger" && !host.input.pending) {
      host.close();
      return;
    }
    host.ending = "close";
    host.state = closing;
    host.input.discard();
    host.resumeReading();
    host.socket?.shutdown();
    host.setDeadline("linger", lingerMs);
    host.context.connectionIdle(host.slot);
  }
}
