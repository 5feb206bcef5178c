import type { EngineErrorName } from "./errors.ts";
import { WebSocketCounters, type WebSocketStats } from "./websocket/websocket-stats.ts";

/** Why the sweep closed a connection. */
export type DeadlineKind = "header" | "body" | "idle" | "writeStall" | "request" | "stream";

/** A snapshot of the engine's exact counters, as `server.stats()` returns it. */
export interface EngineStats {
  /** Connections open now. */
  readonly connectionsOpen: number;
  /** Connections given a slot since start. */
  readonly connectionsAccepted: number;
  /** Connections answered with the canned 503 because every slot was taken. */
  readonly connectionsRejected: number;
  /** Most connection slots in use at once. */
  readonly peakConnections: number;
  /** Workers running a handler or holding its response now. */
  readonly workersBusy: number;
  /** Most workers busy at once. */
  readonly peakWorkersBusy: number;
  /** Requests waiting for a worker now. */
  readonly queuedRequests: number;
  /** Connections whose output is blocked now: the client is not reading what was sent. */
  readonly blockedConnections: number;
  /** Workers held now by connections whose output is blocked (a staged body, a stream flush). */
  readonly workersHeldByBlockedOutput: number;
  /** Connections closed because blocked output held more than its share of the workers. */
  readonly blockedOutputCloses: number;
  /** Workers held now by handlers waiting for more of a streamed request body. */
  readonly workersHeldBySlowUploads: number;
  /** Uploads answered 408 because slow uploads held more than their share of the workers. */
  readonly slowUploadCloses: number;
  /**
   * Workers handed to a waiting request ahead of an older one, because its dispatch key (the
   * App's route) held fewer workers: fair dispatch at work.
   */
  readonly fairDispatches: number;
  /**
   * Waiting requests refused (503) to give their place in the full queue to a request of a key
   * with fewer waiters.
   */
  readonly queueDisplacements: number;
  /** Idle connections closed to admit a new one when every slot was taken. */
  readonly idleConnectionsReclaimed: number;
  /**
   * Connections whose request head had been arriving for a second or more, answered 408 and
   * closed to admit a new one when every slot was taken and none was idle.
   */
  readonly slowHeadsReclaimed: number;
  /**
   * Connections whose client stopped reading answers while it had pipelined more requests than
   * the head buffer holds: those unread requests were dropped and the connection closes.
   */
  readonly pipelinedInputDrops: number;
  /**
   * Bytes of socket chunks connections keep unread across turns now, beyond their head buffers
   * (at most `maxUnreadInputBytes`).
   */
  readonly unreadInputBytes: number;
  /** Requests whose head was parsed completely. */
  readonly requests: number;
  /** Responses sent, by status class. */
  readonly responses: {
    readonly "1xx": number;
    readonly "2xx": number;
    readonly "3xx": number;
    readonly "4xx": number;
    readonly "5xx": number;
  };
  /** Bytes read from sockets. */
  readonly bytesIn: number;
  /** Bytes the sockets accepted. */
  readonly bytesOut: number;
  /** Response payload bytes copied into worker staging (bodies and streamed data). */
  readonly bytesCopiedToStaging: number;
  /** Response payload bytes written straight from application-owned (borrowed) memory. */
  readonly bytesBorrowed: number;
  /**
   * Response payload bytes the kernel sent straight from files (`sendfile`), never read into the
   * process (a stream's `sendFile`).
   */
  readonly bytesSentFromFiles: number;
  /** Streamed request-body bytes handed to handlers (borrowed from socket chunks or a window). */
  readonly bytesStreamedIn: number;
  /** Of those, bytes copied into a worker's stream window (decoded chunked bodies only). */
  readonly bytesCopiedToWindow: number;
  /** Connections closed by each deadline. */
  readonly deadlineCloses: { readonly [K in DeadlineKind]: number };
  /** Engine error answers, by error name. */
  readonly errors: { readonly [N in EngineErrorName]?: number };
  /** Handlers that threw or rejected (answered by the engine's bare 500 when unpublished). */
  readonly handlerFailures: number;
  /**
   * Errors thrown out of the engine's own handling of a socket event, each closing its
   * connection (see `onInternalError`): 0 in a healthy server.
   */
  readonly internalErrors: number;
  /**
   * Young-generation collections the engine ran: one per 16,384 requests' worth (response text
   * and upgrades count more) or per 4 MiB read, whichever comes first (docs/limits.md).
   */
  readonly youngCollections: number;
  /**
   * Full collections the engine ran after a young one, when the heap had grown past the live
   * objects' size (at least 16 MiB) since the last (docs/limits.md).
   */
  readonly fullCollections: number;
  /** WebSockets: open, accepted, messages, refused sends, closes by why. */
  readonly webSockets: WebSocketStats;
}

/** The mutable counters behind `EngineStats`; the engine increments fields directly. */
export class StatsCounters {
  connectionsOpen = 0;
  connectionsAccepted = 0;
  connectionsRejected = 0;
  peakConnections = 0;
  workersBusy = 0;
  peakWorkersBusy = 0;
  queuedRequests = 0;
  blockedConnections = 0;
  workersHeldByBlockedOutput = 0;
  blockedOutputCloses = 0;
  workersHeldBySlowUploads = 0;
  slowUploadCloses = 0;
  fairDispatches = 0;
  queueDisplacements = 0;
  idleConnectionsReclaimed = 0;
  slowHeadsReclaimed = 0;
  pipelinedInputDrops = 0;
  unreadInputBytes = 0;
  requests = 0;
  readonly responses = new Float64Array(6);
  bytesIn = 0;
  bytesOut = 0;
  bytesCopiedToStaging = 0;
  bytesBorrowed = 0;
  bytesSentFromFiles = 0;
  bytesStreamedIn = 0;
  bytesCopiedToWindow = 0;
  readonly deadlineCloses: Record<DeadlineKind, number> = {
    header: 0,
    body: 0,
    idle: 0,
    writeStall: 0,
    request: 0,
    stream: 0,
  };
  readonly errors: { [N in EngineErrorName]?: number } = {};
  handlerFailures = 0;
  internalErrors = 0;
  youngCollections = 0;
  fullCollections = 0;
  readonly webSockets = new WebSocketCounters();

  /** Counts one response by its status class. */
  countResponse(status: number): void {
    const statusClass = Math.floor(status / 100);
    this.responses[statusClass] = (this.responses[statusClass] ?? 0) + 1;
  }

  /** Counts one engine error answer. */
  countError(name: EngineErrorName): void {
    this.errors[name] = (this.errors[name] ?? 0) + 1;
  }

  /** A frozen copy for callers. */
  snapshot(): EngineStats {
    const responses = this.responses;
    return {
      connectionsOpen: this.connectionsOpen,
      connectionsAccepted: this.connectionsAccepted,
      connectionsRejected: this.connectionsRejected,
      peakConnections: this.peakConnections,
      workersBusy: this.workersBusy,
      peakWorkersBusy: this.peakWorkersBusy,
      queuedRequests: this.queuedRequests,
      blockedConnections: this.blockedConnections,
      workersHeldByBlockedOutput: this.workersHeldByBlockedOutput,
      blockedOutputCloses: this.blockedOutputCloses,
      workersHeldBySlowUploads: this.workersHeldBySlowUploads,
      slowUploadCloses: this.slowUploadCloses,
      fairDispatches: this.fairDispatches,
      queueDisplacements: this.queueDisplacements,
      idleConnectionsReclaimed: this.idleConnectionsReclaimed,
      slowHeadsReclaimed: this.slowHeadsReclaimed,
      pipelinedInputDrops: this.pipelinedInputDrops,
      unreadInputBytes: this.unreadInputBytes,
      requests: this.requests,
      responses: {
        "1xx": responses[1]!,
        "2xx": responses[2]!,
        "3xx": responses[3]!,
        "4xx": responses[4]!,
        "5xx": responses[5]!,
      },
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      bytesCopiedToStaging: this.bytesCopiedToStaging,
      bytesBorrowed: this.bytesBorrowed,
      bytesSentFromFiles: this.bytesSentFromFiles,
      bytesStreamedIn: this.bytesStreamedIn,
      bytesCopiedToWindow: this.bytesCopiedToWindow,
      deadlineCloses: { ...this.deadlineCloses },
      errors: { ...this.errors },
      handlerFailures: this.handlerFailures,
      internalErrors: this.internalErrors,
      youngCollections: this.youngCollections,
      fullCollections: this.fullCollections,
      webSockets: this.webSockets.snapshot(),
    };
  }
}
