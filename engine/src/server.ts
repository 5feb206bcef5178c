import type { Socket, TCPSocketListener } from "bun";
import { ArenaReservation } from "./internal/arena-reservation.ts";
import { slotReservedBytes } from "./internal/connection-parts.ts";
import { ConnectionSlots } from "./internal/connection-slots.ts";
import { DeadlineClock } from "./internal/deadline-clock.ts";
import type { EngineContext } from "./internal/engine-context.ts";
import { refuseUnknownOptions, validateEngineOptions } from "./internal/engine-options.ts";
import type { EngineSocket } from "./internal/engine-socket.ts";
import {
  buildErrorResponses,
  CannedSlowHeadResponse,
  cannedServerFullResponse,
} from "./internal/error-responses.ts";
import { FreeList } from "./internal/free-list.ts";
import { processFullCollections } from "./internal/full-collection.ts";
import { HeaderLineCache, headerLineCacheBytes } from "./internal/header-line-cache.ts";
import { CachedDateHeader, cachedDateHeaderBytes } from "./internal/http-date.ts";
import { listenFailure } from "./internal/listen-failure.ts";
import { MemorySocket } from "./internal/memory-socket.ts";
import { admissionHeadLimits } from "./internal/request-admission.ts";
import { SlotQueue } from "./internal/slot-queue.ts";
import { SlowHeads } from "./internal/slow-heads.ts";
import { releaseChunk } from "./internal/socket-chunks.ts";
import { WorkerScheduler } from "./internal/worker-scheduler.ts";
import { WorkerTable } from "./internal/worker-table.ts";
import { countedEdenCollection, YoungCollection } from "./internal/young-collection.ts";
import { budgetLine, resolveLimits } from "./limits.ts";
import type {
  BindOptions,
  Engine,
  EngineOptions,
  ListenOptions,
  MemoryConnection,
  Server,
} from "./server-types.ts";
import { StatsCounters } from "./stats.ts";
import { MessageBufferPool } from "./websocket/message-buffer-pool.ts";
import { WebSocketEngine } from "./websocket/websocket-engine.ts";

/**
 * Starts the engine: reserves every buffer for the limits, binds, and serves `handler`.
 *
 * @example
 * const server = listen({ port: 3000, handler(exchange) {
 *   exchange.setHeader("Content-Type", "text/plain");
 *   exchange.writeText("Hello, World!");
 * } });
 */
export function listen(options: ListenOptions): Server {
  assertListenOptions(options);
  refuseUnknownOptions(options, "listen()");
  validatePort(options.port);
  const { hostname, port, reusePort, ...engineOptions } = options;
  const bind: { -readonly [Name in keyof BindOptions]: BindOptions[Name] } = { port };
  if (hostname !== undefined) bind.hostname = hostname;
  if (reusePort !== undefined) bind.reusePort = reusePort;
  return engineFor(engineOptions).listen(bind);
}

/** What a refused in-memory connection is: the 503 and the close were delivered already. */
const refusedMemoryConnection: MemoryConnection = Object.freeze({ send() {}, close() {} });

/**
 * Throws unless `options` is an object: `listen(3000)`, as Elysia writes it, would otherwise fail
 * on the port it did not find.
 */
function assertListenOptions(options: unknown): void {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `corral: listen() takes an options object, as listen({ port: 3000 }), got ${String(options)}`,
    );
  }
}

function validatePort(port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    const got = typeof port === "string" ? `the string "${port}"` : String(port);
    throw new RangeError(`corral: port must be an integer from 0 to 65535, got ${got}`);
  }
}

/**
 * Reserves an engine's memory for the limits without binding a port; prints the budget line.
 *
 * @example
 * const engine = createEngine({ handler });
 * const server = engine.listen({ port: 3000 });
 */
export function createEngine(options: EngineOptions): Engine {
  refuseUnknownOptions(options, "createEngine()");
  return engineFor(options);
}

function engineFor(options: EngineOptions): Engine {
  const limits = resolveLimits(options.limits);
  const requestWeight = validateEngineOptions(options);
  const stats = new StatsCounters();
  const freeSlots = new FreeList(limits.maxConnections);
  // Connections waiting for a request, the one idle longest first: reclaimed when slots run out.
  const idleConnections = new SlotQueue(limits.maxConnections);
  let onAllClosed: (() => void) | null = null;
  let listener: TCPSocketListener<number> | null = null;
  let sweep: ReturnType<typeof setInterval> | null = null;

  const arenas = new ArenaReservation(
    slotReservedBytes(limits) +
      WorkerTable.reservedBytes(limits) +
      MessageBufferPool.reservedBytes(
        limits.webSocketMessageBuffers,
        limits.maxWebSocketMessageBytes,
      ) +
      ArenaReservation.spanOfAll([cachedDateHeaderBytes, headerLineCacheBytes]),
  );
  processFullCollections.countReserved(arenas.capacity);
  const context: EngineContext = {
    limits,
    stats,
    handler: options.handler,
    streamBodies: options.streamBodies ?? null,
    headLimits: admissionHeadLimits(limits, options),
    dispatchKey: options.dispatchKey ?? null,
    dispatchOversizedBodies: options.dispatchOversizedBodies === true,
    date: new CachedDateHeader(Date.now(), arenas.take(cachedDateHeaderBytes)),
    reserved: arenas.whole,
    headerLineCache: new HeaderLineCache(arenas.take(headerLineCacheBytes), arenas.whole),
    errorResponses: buildErrorResponses(limits),
    now: performance.now(),
    deadlineBase: performance.now() + limits.sweepIntervalMs,
    stopping: false,
    slowHeads: new SlowHeads(limits.maxConnections),
    scheduler: new WorkerScheduler(
      limits,
      stats,
      (slot, why) => connections[slot]!.closer.closeStalled(why),
      arenas,
    ),
    webSockets: new WebSocketEngine(limits, stats, () => context.now, arenas),
    connectionClosed(slot, slotFree) {
      context.slowHeads.ended(slot);
      if (slotFree) freeSlots.give(slot);
      stats.connectionsOpen--;
      if (stats.connectionsOpen === 0) onAllClosed?.();
    },
    slotFreed(slot) {
      freeSlots.give(slot);
    },
    connectionIdle(slot) {
      idleConnections.push(slot);
    },
    connectionBusy(slot) {
      idleConnections.remove(slot);
    },
    youngCollection: new YoungCollection(countedEdenCollection(stats), requestWeight),
  };

  const slots = new ConnectionSlots(limits, context, arenas);
  const connections = slots.bySlot;
  context.scheduler.attach(slots.leases);
  const serverFull = cannedServerFullResponse(limits);
  const slowHeadAnswer = new CannedSlowHeadResponse(context.date.bytes.length);

  /**
   * Closes the connection idle longest to make room (RFC 9112 §9.5 lets a server close an idle
   * connection at any time); false when every connection is in the middle of a request.
   */
  function reclaimIdleConnection(): boolean {
    while (idleConnections.length > 0) {
      const connection = connections[idleConnections.shift()]!;
      if (!connection.idle) continue;
      stats.idleConnectionsReclaimed++;
      connection.close();
      return true;
    }
    return false;
  }

  /**
   * Answers 408 and closes the connection whose head has been arriving longest, for a second or
   * more, to make room (see slow-heads.ts); false when there is none.
   */
  function reclaimSlowHead(): boolean {
    const slot = context.slowHeads.oldest(performance.now());
    if (slot < 0) return false;
    const connection = connections[slot]!;
    stats.slowHeadsReclaimed++;
    stats.countResponse(408);
    const answer = slowHeadAnswer.withDate(context.date.bytes);
    connection.socket?.write(answer, 0, answer.length);
    connection.close();
    return true;
  }

  /** Gives a socket a slot; false when none is free (the caller answers the canned 503). */
  function accept(socket: EngineSocket): boolean {
    if (!context.stopping && freeSlots.available === 0 && !reclaimIdleConnection()) {
      reclaimSlowHead();
    }
    const slot = context.stopping ? -1 : freeSlots.take();
    if (slot < 0) {
      stats.connectionsRejected++;
      socket.data = -1;
      return false;
    }
    socket.data = slot;
    stats.connectionsAccepted++;
    stats.connectionsOpen++;
    if (stats.connectionsOpen > stats.peakConnections)
      stats.peakConnections = stats.connectionsOpen;
    connections[slot]!.open(socket);
    return true;
  }

  /**
   * Starts the deadline sweep. Only a listening engine keeps the process alive with it: a script
   * that only calls `connectInMemory` (`app.request()`) exits once its own work is done.
   */
  function startSweep(): void {
    if (sweep !== null) {
      if (listener !== null) sweep.ref();
      return;
    }
    const clock = new DeadlineClock(limits.sweepIntervalMs);
    // The engine may have been made long before it listens (its reservation takes time).
    context.now = clock.read();
    context.deadlineBase = context.now + limits.sweepIntervalMs;
    sweep = setInterval(() => {
      const now = clock.tick();
      context.now = now;
      context.deadlineBase = now + limits.sweepIntervalMs;
      context.date.refresh(Date.now());
      // An indexed loop: the sweep runs too rarely to be compiled, and the iterator protocol
      // cost about 1 µs a slot in the interpreter (1 ms a sweep at the default 1024 slots).
      for (let slot = 0; slot < connections.length; slot++) {
        const connection = connections[slot]!;
        if (connection.socket !== null) connection.checkDeadlines(now);
      }
      context.webSockets.pool.reclaim(now, limits.webSocketMessageBufferHoldMs);
      context.scheduler.reclaimBlockedWorker();
    }, limits.sweepIntervalMs);
    if (listener === null) sweep.unref();
  }

  const budget = budgetLine(limits);
  const log = options.log === undefined ? console.log : options.log;
  log?.(budget);
  const onInternalError =
    options.onInternalError === undefined ? logInternalError : options.onInternalError;
  function tellInternalError(error: unknown): void {
    try {
      onInternalError?.(error);
    } catch {
      // A report that fails has nothing left to tell; the connection is closed regardless.
    }
  }

  let stopped: Promise<void> | null = null;
  const engine: Engine = {
    limits,
    budget,
    stats: () => stats.snapshot(),
    listen(options) {
      assertListenOptions(options);
      refuseUnknownOptions(options, "engine.listen()");
      const { hostname = "127.0.0.1", port, reusePort = false } = options;
      validatePort(port);
      if (typeof reusePort !== "boolean")
        throw new TypeError(`corral: reusePort must be a boolean, got ${typeof reusePort}`);
      if (listener !== null) throw new TypeError("corral: this engine is already listening");
      if (context.stopping) throw new TypeError("corral: this engine was stopped");
      // The 1.4.4 typings declare reusePort for Bun.connect only; Bun.listen honours it too.
      const bindOptions = { hostname, port, reusePort } as { hostname: string; port: number };
      try {
        listener = Bun.listen<number>({
          ...bindOptions,
          allowHalfOpen: true,
          socket: {
            // Plain Uint8Array chunks, so that every view handed out is one: a Buffer's slice()
            // is a view where a Uint8Array's copies, and code that kept a borrowed body by
            // slice() would keep memory a later request reuses.
            binaryType: "uint8array",
            open(socket: Socket<number>) {
              if (accept(socket)) return;
              socket.write(serverFull, 0, serverFull.length);
              socket.end();
            },
            data(socket: Socket<number>, chunk: Uint8Array) {
              const slot = socket.data;
              context.youngCollection.countInbound(chunk.length);
              if (slot >= 0) connections[slot]!.onData(chunk, true);
              else releaseChunk(chunk);
            },
            drain(socket: Socket<number>) {
              const slot = socket.data;
              if (slot >= 0) connections[slot]!.onDrain();
            },
            end(socket: Socket<number>) {
              const slot = socket.data;
              if (slot >= 0) connections[slot]!.onEnd();
              else socket.end();
            },
            close(socket: Socket<number>) {
              const slot = socket.data;
              if (slot >= 0) connections[slot]!.onClose();
            },
            error(socket: Socket<number>, error: Error) {
              // A throw from the engine's own handling of a socket event (Bun reports a reset as
              // a close, not here): told, counted, and the connection cannot continue, so its slot
              // is freed and the socket closed for certain.
              stats.internalErrors++;
              tellInternalError(error);
              const slot = socket.data;
              if (slot >= 0) connections[slot]!.onClose();
              socket.terminate();
            },
          },
        });
      } catch (error) {
        throw listenFailure(error, hostname, port);
      }
      startSweep();
      const bound = listener;
      return {
        hostname,
        port: bound.port,
        limits,
        budget,
        stats: engine.stats,
        stop: engine.stop,
      };
    },
    connectInMemory(onData, onClose) {
      if (context.stopping) throw new Error("corral: this engine was stopped");
      const socket = new MemorySocket(onData, onClose);
      if (!accept(socket)) {
        // As on the wire: the canned 503 with Retry-After, then the close.
        onData(serverFull);
        onClose();
        return refusedMemoryConnection;
      }
      startSweep();
      const connection = connections[socket.data]!;
      socket.onPeerEnd = () => {
        if (socket.data >= 0) connection.onEnd();
      };
      return {
        send(bytes) {
          // Lent on as a plain Uint8Array over the same memory (a Buffer's slice() is a view),
          // as the socket chunks are.
          const plain = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          if (socket.data >= 0) connection.onData(plain, false);
        },
        close() {
          if (socket.data >= 0) connection.onClose();
        },
      };
    },
    stop(options = {}) {
      refuseUnknownOptions(options, "stop()");
      const { graceMs = 5000 } = options;
      if (stopped !== null) return stopped;
      context.stopping = true;
      listener?.stop(false);
      stopped = new Promise<void>((resolve) => {
        const finish = () => {
          if (sweep !== null) clearInterval(sweep);
          clearTimeout(forceTimer);
          onAllClosed = null;
          listener?.stop(true);
          resolve();
        };
        const forceTimer = setTimeout(() => {
          for (const connection of slots) connection.terminate();
        }, graceMs);
        onAllClosed = finish;
        for (const connection of slots) connection.closeIfIdle();
        if (stats.connectionsOpen === 0) finish();
      });
      return stopped;
    },
  };
  return engine;
}

function logInternalError(error: unknown): void {
  console.error("corral: an internal error closed a connection:", error);
}
