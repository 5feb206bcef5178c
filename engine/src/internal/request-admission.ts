import { type EngineErrorName, errorNameOf } from "../errors.ts";
import type { Exchange } from "../exchange.ts";
import { engineHeaderReserveBytes, type Limits } from "../limits.ts";
import type { HeadLimits } from "../parser/request-head.ts";
import { BodyTooLargeError, ClientGoneError } from "../response-errors.ts";
import type { DeadlineKind, StatsCounters } from "../stats.ts";
import { asciiBytes } from "./ascii.ts";
import type { ConnectionParts } from "./connection-parts.ts";
import {
  type ConnectionPhase,
  type Ending,
  handling,
  readingBody,
  readingHead,
  waitingWorker,
} from "./connection-phase.ts";
import { pathDispatchKey } from "./dispatch-key.ts";
import type { HandlerRun } from "./handler-run.ts";
import { NextTurn } from "./next-turn.ts";
import { inputComplete, inputIncomplete, type RequestInput } from "./request-input.ts";
import type { ResponseDraft } from "./response-draft.ts";
import type { StreamFraming } from "./stream-framing.ts";
import type { StreamedBody, StreamedBodyHost } from "./streamed-body.ts";
import type { LeaseHost } from "./worker-lease.ts";

const continueLine = asciiBytes("HTTP/1.1 100 Continue\r\n\r\n");
/**
 * Pipelined requests one connection may dispatch before it lets the others run. One socket
 * chunk can carry 16,000 small requests; served in one go, 70 such connections made a side
 * client wait seconds for its turn.
 */
export const requestsPerTurn = 64;

/** What admission reads and changes of its connection. */
export interface AdmissionHost extends ConnectionParts {
  readonly draft: ResponseDraft;
  readonly stream: StreamFraming;
  readonly upload: StreamedBody;
  readonly run: HandlerRun;
  readonly exchange: Exchange | null;
  readonly deadlineKind: DeadlineKind | "linger";
  ending: Ending;
  state: ConnectionPhase;
  isHeadRequest: boolean;
  /** Requests the connection may still dispatch in this turn of the event loop. */
  turnBudget: number;
  /** Bytes the connection has received, every request and every byte counted. */
  readonly bytesReceived: number;
  /** Makes the exchange of the request whose head is complete. */
  startExchange(): Exchange;
  setDeadline(kind: DeadlineKind, afterMs: number): void;
  pump(): void;
  adjustReading(): void;
  fail(name: EngineErrorName): void;
  abortExchange(reason: Error): void;
  terminate(): void;
}

/**
 * The head parser's limits for an engine, made once and shared by its connections: with
 * `streamBodies` (or `dispatchOversizedBodies`) a declared length may reach the streamed limit
 * (or any length), and which limit applies is decided once the application chose. A body over
 * its limit is then refused once the worker is there (`#bodyTooLarge`).
 */
export function admissionHeadLimits(
  limits: Limits,
  options: { readonly streamBodies?: unknown; readonly dispatchOversizedBodies?: boolean },
): HeadLimits {
  const dispatchOversizedBodies = options.dispatchOversizedBodies === true;
  if ((options.streamBodies ?? null) === null && !dispatchOversizedBodies) return limits;
  const maxBodyBytes = dispatchOversizedBodies
    ? Number.MAX_SAFE_INTEGER
    : Math.max(limits.maxBodyBytes, limits.maxStreamedBodyBytes);
  return { ...limits, maxBodyBytes };
}

/**
 * From a complete request head to a running handler: the request asks its lease for a worker
 * (or waits in the scheduler's queue), reads its body into the worker's storage, or hands it to
 * the handler as a stream when the application says so, and answers `100-continue` when the
 * client waits for it. Every step that breaks a limit answers the engine error instead.
 */
export class RequestAdmission implements LeaseHost, StreamedBodyHost {
  readonly #host: AdmissionHost;
  /**
   * The head parser's limits: with `streamBodies` a declared length may reach the streamed limit;
   * which limit applies is decided once the application chose (`#beginStreamedBody`).
   */
  readonly #headLimits: HeadLimits;
  /** Output room a request needs before it is dispatched: its whole response head always fits. */
  readonly #dispatchRoom: number;
  #nextTurn: NextTurn | null = null;
  /** `bytesReceived` when the current body began (see the slow-upload rule). */
  #bodyStartBytes = 0;
  /** Whether the head being read did not come whole in its first chunk (see slow-heads.ts). */
  #headSplit = false;

  constructor(host: AdmissionHost) {
    this.#host = host;
    this.#headLimits = host.context.headLimits;
    this.#dispatchRoom = host.context.limits.maxResponseHeaderBytes + engineHeaderReserveBytes;
  }

  /** Reads, admits and dispatches what the input holds, as far as the output lets it. */
  consumeInput(): void {
    const host = this.#host;
    const output = host.output;
    // Rule 1 of blocked-output.ts: nothing new is dispatched while earlier output is blocked or
    // while the output lacks room for a whole response head (it is written first).
    while (host.socket !== null && !output.blocked && output.segment === null) {
      if (host.ending !== "stay") return;
      if (host.state === readingHead) {
        if (host.turnBudget === 0) {
          this.#yieldTurn();
          return;
        }
        if (output.room < this.#dispatchRoom || !this.#readHead()) return;
      } else if (host.state === readingBody) {
        if (!this.#readBody()) return;
      } else {
        return;
      }
    }
  }

  /** Lets other connections run; this one goes on from the next turn of the event loop. */
  #yieldTurn(): void {
    if (!this.#host.input.pending) return;
    this.#nextTurn ??= this.#makeNextTurn();
    this.#nextTurn.schedule();
  }

  // In its own method: a closure made in #yieldTurn would make JavaScriptCore allocate a scope
  // on every call of it.
  #makeNextTurn(): NextTurn {
    return new NextTurn(() => {
      this.#host.input.chunked.nextTurn();
      this.#host.pump();
    });
  }

  #readHead(): boolean {
    const host = this.#host;
    const input = host.input;
    if (!input.pending) return false;
    if (!input.headStarted) {
      host.context.connectionBusy(host.slot);
      host.setDeadline("header", host.limits.headerDeadlineMs);
    }
    const result = input.readHead(host.head, this.#headLimits);
    if (result === inputIncomplete) {
      // Not whole in its first chunk: from now on it may be a slow head (see slow-heads.ts).
      this.#headSplit = true;
      host.context.slowHeads.began(host.slot, performance.now());
      return false;
    }
    if (this.#headSplit) {
      this.#headSplit = false;
      host.context.slowHeads.ended(host.slot);
    }
    if (result !== inputComplete) {
      host.fail(errorNameOf(result));
      return false;
    }
    host.stats.requests++;
    host.isHeadRequest = host.head.isHeadMethod();
    input.expectBody(host.head);
    return this.#admit(host.startExchange());
  }

  get draft(): ResponseDraft {
    return this.#host.draft;
  }

  get input(): RequestInput {
    return this.#host.input;
  }

  get stats(): StatsCounters {
    return this.#host.stats;
  }

  /**
   * The head of `exchange` is complete: asks for a worker. True when the request went on at
   * once (reading its body), false when it waits or was refused.
   */
  #admit(exchange: Exchange): boolean {
    const host = this.#host;
    const granted = host.lease.request(this.#dispatchKeyOf(exchange));
    if (granted === "held") {
      this.#beginBody();
      return true;
    }
    if (granted === "none") {
      host.fail("queueFull");
      return false;
    }
    if (!host.input.holdWhileWaiting(host.head)) {
      // Its socket chunk would pass `maxUnreadInputBytes` while it waits: a full queue.
      host.fail("queueFull");
      return false;
    }
    host.state = waitingWorker;
    host.setDeadline("request", host.limits.requestDeadlineMs);
    host.context.scheduler.reclaimBlockedWorker();
    return false;
  }

  #dispatchKeyOf(exchange: Exchange): number {
    const host = this.#host;
    const dispatchKey = host.context.dispatchKey;
    if (dispatchKey === null) return pathDispatchKey(host.head);
    try {
      return dispatchKey(exchange);
    } catch {
      // The application's key function failed: the request still runs, under the shared key 0.
      return 0;
    }
  }

  workerGranted(): void {
    const host = this.#host;
    if (host.state !== waitingWorker) {
      host.lease.release();
      return;
    }
    this.#beginBody();
    host.pump();
  }

  requestDisplaced(): void {
    const host = this.#host;
    if (host.socket !== null && host.state === waitingWorker) host.fail("queueFull");
  }

  /**
   * Reads the buffered body into the worker's storage; true once the handler ran. While the rest
   * must come from the client, the held worker counts for the slow-upload rule (its wait begins
   * anew at each read, as a streamed body's does at each piece).
   */
  #readBody(): boolean {
    const host = this.#host;
    const lease = host.lease;
    lease.awaitingUpload(false, 0);
    const result = host.input.readBody(host.draft.worker!.body, host.limits);
    if (result === inputIncomplete) {
      if (host.input.chunked.turnSpent) this.#yieldTurn();
      else lease.awaitingUpload(true, this.#bodyBytes);
      return false;
    }
    if (result !== inputComplete) {
      const name = errorNameOf(result);
      if (name === "bodyTooLarge") return this.#bodyTooLarge("maxBodyBytes");
      host.fail(name);
      return false;
    }
    return host.run.dispatch();
  }

  /**
   * The body is over `limit`: the engine answers 413, or, when the application answers it
   * (`dispatchOversizedBodies`), the request is dispatched without its body. True when the
   * handler ran and the request is over.
   */
  #bodyTooLarge(limit: BodyTooLargeError["limit"]): boolean {
    const refusal = this.#refuseBody(limit);
    if (refusal === null) {
      this.#host.fail("bodyTooLarge");
      return false;
    }
    return this.#host.run.dispatch();
  }

  /**
   * Takes the request off its body when the application answers oversized bodies: the exchange
   * carries the refusal, what the client still sends is dropped, and the connection lingers and
   * closes after the answer (the rest of the body is never read). Null when the engine answers.
   */
  #refuseBody(limit: BodyTooLargeError["limit"]): BodyTooLargeError | null {
    const host = this.#host;
    if (!host.context.dispatchOversizedBodies || host.stream.headSent) return null;
    host.stats.countError("bodyTooLarge");
    const refusal = new BodyTooLargeError(limit, host.limits[limit]);
    host.exchange!.refuseBody(refusal);
    host.ending = "linger";
    host.input.dropPending(null);
    return refusal;
  }

  #beginBody(): void {
    const host = this.#host;
    host.draft.reset();
    host.stream.reset();
    host.state = readingBody;
    if (host.input.expectsBody) {
      this.#bodyStartBytes = host.bytesReceived;
      host.lease.bodyBegan();
    }
    host.setDeadline("body", host.limits.bodyDeadlineMs);
    if (host.context.streamBodies !== null && host.input.expectsBody) {
      if (this.#beginStreamedBody()) return;
    } else if (host.head.contentLength > host.limits.maxBodyBytes) {
      // Only when the application answers oversized bodies: the head parser refused it else.
      this.#bodyTooLarge("maxBodyBytes");
      return;
    }
    // RFC 9110 §10.1.1: 100-continue only once the request is accepted, and only when the
    // client is still waiting (no body bytes have come yet). The dispatch room covers the line.
    if (host.head.expectContinue && host.input.expectsBody && !host.input.pending) {
      this.#sendContinue();
    }
  }

  #sendContinue(): void {
    this.#host.output.append(continueLine);
    this.#host.stats.countResponse(100);
  }

  /**
   * Asks the application whether this body is streamed; when it is, dispatches now (the handler
   * reads the body as it arrives). Returns true when the request left the body-reading state:
   * streamed, or refused for its declared length.
   */
  #beginStreamedBody(): boolean {
    const host = this.#host;
    const exchange = host.exchange!;
    let streamed: boolean;
    try {
      streamed = host.context.streamBodies!(exchange) === true;
    } catch (error) {
      // Answered like a handler that threw; the unread body closes the connection.
      host.upload.begin(host.draft.worker!.window);
      host.state = handling;
      host.run.running = true;
      host.run.settled(exchange, error, true);
      return true;
    }
    const limit = streamed ? "maxStreamedBodyBytes" : "maxBodyBytes";
    if (host.head.contentLength > host.limits[limit]) {
      this.#bodyTooLarge(limit);
      return true;
    }
    if (!streamed) return false;
    host.upload.begin(host.draft.worker!.window);
    host.run.dispatch();
    return true;
  }

  bodyStarted(): void {
    const host = this.#host;
    // RFC 9110 §10.1.1: the client waiting for 100-continue is told to send once the handler
    // asks for the body, and only when no body byte has come yet.
    const waitingForContinue = host.head.expectContinue && host.upload.received === 0;
    if (waitingForContinue && !host.input.pending && !host.stream.started) {
      this.#sendContinue();
      host.pump();
    }
  }

  bodyProgressed(): void {
    const host = this.#host;
    // The body deadline counts from the last progress: a slow uploader that moves is fine.
    if (host.deadlineKind !== "stream") host.setDeadline("body", host.limits.bodyDeadlineMs);
    host.adjustReading();
  }

  uploadWaiting(waiting: boolean): void {
    this.#host.lease.awaitingUpload(waiting, this.#bodyBytes);
  }

  /** Bytes received since the body began (apart from its first socket chunk). */
  get #bodyBytes(): number {
    return this.#host.bytesReceived - this.#bodyStartBytes;
  }

  bodyEnded(): void {
    const host = this.#host;
    if (host.deadlineKind !== "stream") host.setDeadline("request", host.limits.requestDeadlineMs);
  }

  bodyRefused(name: EngineErrorName): Error | null {
    return name === "bodyTooLarge" ? this.#refuseBody("maxStreamedBodyBytes") : null;
  }

  bodyFailed(name: EngineErrorName): void {
    const host = this.#host;
    if (!host.stream.headSent) {
      host.fail(name);
      return;
    }
    // A response head is out already: no error answer can follow it.
    host.stats.countError(name);
    host.abortExchange(new ClientGoneError(`the request body failed: ${name}`));
    host.terminate();
  }
}
