/**
 * Every capacity, size limit and deadline of the engine, in one object. Units are in the names.
 * `listen()` validates the merged limits once and reserves memory from them.
 */
export interface Limits {
  /** Connection slots reserved at startup; one more is answered with a canned 503 and closed. */
  readonly maxConnections: number;
  /** Request line (method, target, version) in bytes, CRLF excluded; over it: 414. */
  readonly maxRequestLineBytes: number;
  /** Whole request head (request line and header section) in bytes; over it: 431. */
  readonly maxHeaderBytes: number;
  /** Header field lines in one request head; over it: 431. */
  readonly maxHeaderCount: number;
  /** Request body in bytes, declared or decoded from chunks; over it: 413. */
  readonly maxBodyBytes: number;
  /**
   * A body the application takes as a stream (`streamBodies`), declared or decoded from chunks;
   * over it: 413 (before reading when `Content-Length` says so).
   */
  readonly maxStreamedBodyBytes: number;
  /** Per-worker window a streamed chunked body is decoded into: the most one read hands over. */
  readonly streamWindowBytes: number;
  /** Chunk extension bytes on one chunk-size line of a chunked body; over it: 400. */
  readonly maxChunkExtensionBytes: number;
  /** Trailer section bytes after a chunked body; over it: 431. */
  readonly maxTrailerBytes: number;
  /** Application workers: handlers that run at once, each with its own staging and body storage. */
  readonly workers: number;
  /** Requests waiting for a free worker; one more is answered 503 with `Retry-After`. */
  readonly maxQueuedRequests: number;
  /**
   * Percent of the workers that connections with blocked output (clients not reading) may hold
   * while other requests wait for a worker; past it the connection stalled longest is closed.
   */
  readonly blockedOutputWorkersPercent: number;
  /**
   * Percent of the workers that slow uploads waiting for more of their body (read whole, or
   * streamed to a handler that waits for it; see `minUploadBytesPerSecond`) may hold while other
   * requests wait for a worker; past it the one that has waited longest is answered 408 and
   * closed.
   */
  readonly slowUploadWorkersPercent: number;
  /**
   * The body rate, in bytes a second, below which an upload counts as slow for
   * `slowUploadWorkersPercent`, judged from its first second on: a moving upload faster than
   * this is never closed for holding its worker. 0: no upload counts as slow.
   */
  readonly minUploadBytesPerSecond: number;
  /** Seconds sent in `Retry-After` when the wait queue is full. */
  readonly retryAfterSeconds: number;
  /** Bytes of response body a worker can stage (copied output); more is a `ResponseLimitError`. */
  readonly stagingBytes: number;
  /** Bytes of application-set response header lines; more is a `ResponseLimitError`. */
  readonly maxResponseHeaderBytes: number;
  /**
   * Bytes of received socket chunks that all connections together may keep unread beyond their
   * head buffers (pipelined requests waiting for their turn; Bun reads up to 512 KiB at once).
   * Past it, or when the client reads no answers, a connection's unread requests are dropped
   * and it closes once its answers are written (`pipelinedInputDrops`); a request that would
   * wait for a worker with such a chunk is answered 503 with `Retry-After`.
   */
  readonly maxUnreadInputBytes: number;
  /** Per-connection output buffer where response heads and small bodies are batched. */
  readonly connectionOutputBytes: number;
  /** Bytes of one response body, whether staged, borrowed or streamed. */
  readonly maxResponseBytes: number;
  /** Borrowed bodies shorter than this are copied into the output instead of written apart. */
  readonly borrowCopyThresholdBytes: number;
  /** Time from the first byte of a request head to its end; over it: 408 and close. */
  readonly headerDeadlineMs: number;
  /** Time from the end of the head to the end of the body; over it: 408 and close. */
  readonly bodyDeadlineMs: number;
  /** Time a keep-alive connection may wait for its next request; then it is closed quietly. */
  readonly idleTimeoutMs: number;
  /** Time pending output may make no progress towards a client that does not read; then close. */
  readonly writeStallMs: number;
  /** Time from dispatch until the handler publishes its response; over it: 503 and close. */
  readonly requestDeadlineMs: number;
  /** Time a streamed response may stay open; then it is aborted and the connection closed. */
  readonly streamDeadlineMs: number;
  /** How often the one periodic sweep checks deadlines; the resolution of every deadline. */
  readonly sweepIntervalMs: number;
  /**
   * Size of each reserved WebSocket message buffer: the largest message any WebSocket route
   * may accept (`maxMessageBytes` of a route is at most this).
   */
  readonly maxWebSocketMessageBytes: number;
  /**
   * WebSocket message buffers reserved at startup. A message that does not arrive whole in one
   * socket chunk and outgrows its connection's head buffer is assembled in one; when all are
   * taken it waits with its reads paused.
   */
  readonly webSocketMessageBuffers: number;
  /**
   * How long a socket may hold a message buffer while another message waits for one: past it,
   * the socket that has held its buffer longest, still receiving its message, is closed with
   * 1013 (Try Again Later) and its buffer goes to the waiting message. So a few sockets that
   * start large messages and stall cannot keep every other socket's large messages waiting.
   */
  readonly webSocketMessageBufferHoldMs: number;
}

const kibibyte = 1024;
const mebibyte = 1024 * kibibyte;

/**
 * The documented default of every limit.
 *
 * @example
 * listen({ port: 0, handler, limits: { ...defaultLimits, workers: 8 } });
 */
export const defaultLimits: Limits = Object.freeze({
  maxConnections: 1024,
  maxRequestLineBytes: 8 * kibibyte,
  maxHeaderBytes: 16 * kibibyte,
  maxHeaderCount: 100,
  maxBodyBytes: 1 * mebibyte,
  maxStreamedBodyBytes: 1024 * mebibyte,
  streamWindowBytes: 16 * kibibyte,
  maxChunkExtensionBytes: 256,
  maxTrailerBytes: 4 * kibibyte,
  workers: 64,
  maxQueuedRequests: 1024,
  blockedOutputWorkersPercent: 25,
  slowUploadWorkersPercent: 25,
  minUploadBytesPerSecond: 4 * kibibyte,
  retryAfterSeconds: 1,
  stagingBytes: 64 * kibibyte,
  maxResponseHeaderBytes: 8 * kibibyte,
  maxUnreadInputBytes: 8 * mebibyte,
  connectionOutputBytes: 16 * kibibyte,
  maxResponseBytes: 64 * mebibyte,
  borrowCopyThresholdBytes: 256,
  headerDeadlineMs: 10_000,
  bodyDeadlineMs: 30_000,
  idleTimeoutMs: 5_000,
  writeStallMs: 10_000,
  requestDeadlineMs: 30_000,
  streamDeadlineMs: 5 * 60_000,
  sweepIntervalMs: 250,
  maxWebSocketMessageBytes: 1 * mebibyte,
  webSocketMessageBuffers: 4,
  webSocketMessageBufferHoldMs: 1_000,
});

/** Room the engine's own header lines need in the output buffer beside the application's. */
export const engineHeaderReserveBytes = 256;

const minimums: { readonly [K in keyof Limits]: number } = {
  maxConnections: 1,
  maxRequestLineBytes: 16,
  maxHeaderBytes: 32,
  maxHeaderCount: 1,
  maxBodyBytes: 0,
  maxStreamedBodyBytes: 0,
  streamWindowBytes: 64,
  maxChunkExtensionBytes: 0,
  maxTrailerBytes: 0,
  workers: 1,
  maxQueuedRequests: 0,
  blockedOutputWorkersPercent: 0,
  slowUploadWorkersPercent: 0,
  minUploadBytesPerSecond: 0,
  retryAfterSeconds: 0,
  stagingBytes: 64,
  maxResponseHeaderBytes: 64,
  maxUnreadInputBytes: 0,
  connectionOutputBytes: 512,
  maxResponseBytes: 64,
  borrowCopyThresholdBytes: 0,
  headerDeadlineMs: 1,
  bodyDeadlineMs: 1,
  idleTimeoutMs: 1,
  writeStallMs: 1,
  requestDeadlineMs: 1,
  streamDeadlineMs: 1,
  sweepIntervalMs: 1,
  maxWebSocketMessageBytes: 0,
  webSocketMessageBuffers: 0,
  webSocketMessageBufferHoldMs: 1,
};

/**
 * Merges `overrides` over `defaultLimits` and checks every value; throws a `RangeError` naming
 * the first limit that is not a whole number at or above its minimum, or that contradicts another.
 */
export function resolveLimits(overrides: Partial<Limits> = {}): Limits {
  const limits: Limits = { ...defaultLimits, ...overrides };
  for (const name of Object.keys(limits) as (keyof Limits)[]) {
    if (!(name in minimums)) throw new RangeError(`corral: unknown limit "${name}"`);
    const value = limits[name];
    if (!Number.isSafeInteger(value) || value < minimums[name]) {
      throw new RangeError(
        `corral: limit ${name} must be a whole number >= ${minimums[name]}, got ${String(value)}`,
      );
    }
  }
  if (limits.maxRequestLineBytes > limits.maxHeaderBytes) {
    throw new RangeError("corral: limit maxRequestLineBytes must not exceed maxHeaderBytes");
  }
  if (limits.connectionOutputBytes < limits.maxResponseHeaderBytes + engineHeaderReserveBytes) {
    throw new RangeError(
      `corral: limit connectionOutputBytes must be at least maxResponseHeaderBytes + ${engineHeaderReserveBytes}`,
    );
  }
  for (const name of ["blockedOutputWorkersPercent", "slowUploadWorkersPercent"] as const) {
    if (limits[name] > 100) throw new RangeError(`corral: limit ${name} must not exceed 100`);
  }
  if (limits.stagingBytes > limits.maxResponseBytes) {
    throw new RangeError("corral: limit stagingBytes must not exceed maxResponseBytes");
  }
  return Object.freeze(limits);
}

/** Bytes reserved for one connection slot: its head buffer and its output buffer. */
export function connectionSlotBytes(limits: Limits): number {
  return limits.maxHeaderBytes + limits.connectionOutputBytes + limits.maxHeaderCount * 16;
}

/**
 * Bytes reserved for one worker: staging, application header lines, request-body storage and the
 * window a streamed chunked body is decoded into.
 */
export function workerSlotBytes(limits: Limits): number {
  return (
    limits.stagingBytes +
    limits.maxResponseHeaderBytes +
    limits.maxBodyBytes +
    limits.streamWindowBytes
  );
}

/** Total bytes the engine reserves at startup for the given limits. */
export function reservedBytes(limits: Limits): number {
  return (
    limits.maxConnections * connectionSlotBytes(limits) +
    limits.workers * workerSlotBytes(limits) +
    limits.webSocketMessageBuffers * limits.maxWebSocketMessageBytes
  );
}

/**
 * A byte count as the budget line writes it.
 *
 * @example
 * formatBytes(16 * 1024); // "16 KiB"
 */
export function formatBytes(bytes: number): string {
  if (bytes >= mebibyte) return `${(bytes / mebibyte).toFixed(1)} MiB`;
  if (bytes >= kibibyte) return `${(bytes / kibibyte).toFixed(bytes % kibibyte ? 1 : 0)} KiB`;
  return `${bytes} B`;
}

/** The one line `listen()` prints: the whole memory budget and how it is made up. */
export function budgetLine(limits: Limits): string {
  return (
    `corral: reserved ${formatBytes(reservedBytes(limits))} (` +
    `${limits.maxConnections} connections x (${formatBytes(limits.maxHeaderBytes)} head + ` +
    `${formatBytes(limits.connectionOutputBytes)} output), ` +
    `${limits.workers} workers x (${formatBytes(limits.stagingBytes)} staging + ` +
    `${formatBytes(limits.maxBodyBytes)} body + ${formatBytes(limits.streamWindowBytes)} stream window), ` +
    `${limits.webSocketMessageBuffers} WebSocket message buffers x ${formatBytes(limits.maxWebSocketMessageBytes)})`
  );
}
