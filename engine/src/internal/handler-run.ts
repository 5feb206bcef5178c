import type { Exchange } from "../exchange.ts";
import type { DeadlineKind } from "../stats.ts";
import type { ConnectionParts } from "./connection-parts.ts";
import {
  type ConnectionPhase,
  closing,
  type Ending,
  handling,
  readingHead,
} from "./connection-phase.ts";
import type { HandlerCompletion } from "./engine-context.ts";
import type { ResponseDraft } from "./response-draft.ts";
import type { StreamFraming } from "./stream-framing.ts";
import type { StreamedBody } from "./streamed-body.ts";
import type { WebSocketSwitch } from "./websocket-switch.ts";

/** What a handler run reads and changes of its connection. */
export interface HandlerRunHost extends ConnectionParts {
  readonly draft: ResponseDraft;
  readonly stream: StreamFraming;
  readonly upload: StreamedBody;
  readonly webSocket: WebSocketSwitch;
  readonly isHeadRequest: boolean;
  state: ConnectionPhase;
  ending: Ending;
  exchange: Exchange | null;
  generation: number;
  /** Requests the connection may still dispatch in this turn of the event loop. */
  turnBudget: number;
  setDeadline(kind: DeadlineKind, afterMs: number): void;
  pump(): void;
}

/**
 * The handler's part of a request: calling it, settling what it returned or threw (a bare 500
 * for a failure before anything was sent, an aborted stream after), publishing the draft, and
 * ending the request so the next one may start.
 */
export class HandlerRun {
  /** Whether the exchange's handler is still running (a closing connection leaves it its worker). */
  running = false;
  readonly #host: HandlerRunHost;

  constructor(host: HandlerRunHost) {
    this.#host = host;
  }

  /** Runs the handler; true when the request is over and the next may be read at once. */
  dispatch(): boolean {
    const host = this.#host;
    host.context.youngCollection.countRequest();
    host.draft.textBytes = 0;
    host.turnBudget--;
    host.state = handling;
    this.running = true;
    host.setDeadline("request", host.limits.requestDeadlineMs);
    const exchange = host.exchange!;
    // biome-ignore lint/suspicious/noConfusingVoidType: what the handler returned, if anything.
    let result: void | HandlerCompletion;
    try {
      result = host.context.handler(exchange);
    } catch (error) {
      this.settled(exchange, error, true);
      return this.#requestOver();
    }
    if (result !== undefined) {
      if (typeof result.then === "function") {
        this.#awaitHandler(result, exchange);
        // A thenable of the application's own may have called back already.
        return this.#requestOver();
      }
      // A value returned as Bun.serve's fetch returns its Response: the answer is not there.
      this.settled(exchange, result, true);
      return this.#requestOver();
    }
    this.settled(exchange, undefined, false);
    return this.#requestOver();
  }

  // The callbacks are made here, not in dispatch: arrow functions in a method make
  // JavaScriptCore allocate a scope for them on every call of that method, used or not.
  #awaitHandler(result: HandlerCompletion, exchange: Exchange): void {
    try {
      result.then(
        // A value resolved (an async handler's `return new Response(…)`) is lost the same way.
        (value?: unknown) => this.settled(exchange, value, value !== undefined),
        (error: unknown) => this.settled(exchange, error, true),
      );
    } catch (error) {
      // Only a thenable of the application's own can throw here: its handler failed.
      this.settled(exchange, error, true);
    }
  }

  /** Whether the request ended (the handler's answer is published): the next may be read. */
  #requestOver(): boolean {
    return this.#host.state === readingHead;
  }

  /** The handler of `exchange` returned (`threw`: threw or rejected). */
  settled(exchange: Exchange, _error: unknown, threw: boolean): void {
    const host = this.#host;
    if (threw) host.stats.handlerFailures++;
    if (exchange !== host.exchange) {
      // The request ended without this handler (disconnect, deadline): its worker was left to
      // it until now, and a closed connection's slot with it.
      if (host.lease.state === "abandoned") {
        host.lease.settleAbandoned();
        if (host.socket === null) host.context.slotFreed(host.slot);
      }
      return;
    }
    this.running = false;
    const stream = host.stream;
    // Nothing on the wire yet and a body short of the length the handler promised: its failure,
    // answered as one, rather than a connection closed without an answer.
    const failed = threw || (stream.endsShortBeforeHead && !exchange.detached);
    if (failed && !threw) host.stats.handlerFailures++;
    if (
      host.webSocket.pending &&
      host.webSocket.settle(failed, stream.started, exchange.detached)
    ) {
      return;
    }
    if (stream.started && (stream.headSent || !failed)) {
      if (failed) stream.abort();
      else if (!exchange.detached) stream.finishFromEngine();
      host.pump();
      return;
    }
    const draft = host.draft;
    if (failed) {
      // A stream with nothing sent yet is answered like any failed handler.
      if (stream.started) stream.discard();
      draft.reset();
      draft.status = 500;
      if (draft.worker !== null) {
        draft.writeText("Internal Server Error\n");
        draft.appendHeader("Content-Type", "text/plain; charset=utf-8");
      }
    } else if (exchange.detached) {
      return;
    }
    this.publish();
  }

  /** Publishes the draft (the handler returned, or a detached exchange asked for it). */
  publish(): void {
    const host = this.#host;
    // The room for the head was there at dispatch, and nothing else of this connection has
    // been appended since: the head always fits.
    host.output.appendResponse(
      host.draft,
      host.context.date,
      this.connectionDisposition(),
      host.isHeadRequest,
    );
    host.stats.countResponse(host.draft.status);
    host.context.youngCollection.countText(host.draft.textBytes);
    this.requestDone();
    host.pump();
  }

  /** The Connection header a response carries, and whether the connection closes after it. */
  connectionDisposition(): "close" | "keep-alive" | "default" {
    const host = this.#host;
    const keepAlive =
      host.head.keepAlive &&
      !host.draft.closeRequested &&
      !host.context.stopping &&
      host.ending === "stay" &&
      !host.upload.open;
    if (!keepAlive) {
      // A streamed body the handler did not read to its end, or a body refused for its size:
      // what the client still sends is read and dropped for a moment after the answer, so that
      // it reads the answer.
      host.ending = host.upload.open || host.ending === "linger" ? "linger" : "close";
      return "close";
    }
    return host.head.versionMinor === 0 ? "keep-alive" : "default";
  }

  /** The response is fully handed to the output: the next request may start. */
  requestDone(): void {
    const host = this.#host;
    host.exchange = null;
    host.generation++;
    this.running = false;
    host.upload.reset();
    host.input.requestEnded(host.output.segment);
    host.state = host.ending === "stay" ? readingHead : closing;
    // A staged body written in place keeps the worker until it is sent (the output's done).
    if (host.lease.state === "held" && !host.output.segmentInStaging) host.lease.release();
    if (host.state === readingHead) host.setDeadline("idle", host.limits.idleTimeoutMs);
  }
}
