import type { DispatchKey, Handler, StreamBodies } from "./internal/engine-context.ts";
import type { Limits } from "./limits.ts";
import type { EngineStats } from "./stats.ts";

/** Options of `createEngine()`. */
export interface EngineOptions {
  /** Overrides of `defaultLimits`; validated, then reserved. */
  readonly limits?: Partial<Limits>;
  /** Called once per request. */
  readonly handler: Handler;
  /**
   * Called after the head of each request that has a body: true makes the handler run at once
   * and read the body as it arrives (`exchange.bodyStream()`, up to `maxStreamedBodyBytes`),
   * false keeps it buffered before the handler runs (`exchange.body`, up to `maxBodyBytes`).
   * Without it every body is buffered. A request without a body is asked only when its handler
   * calls `bodyStream()`: true gives it an empty stream.
   *
   * @example
   * createEngine({ handler, streamBodies: (exchange) => exchange.method === "PUT" });
   */
  readonly streamBodies?: StreamBodies;
  /**
   * Gives each request its dispatch key once its head is complete. When requests wait for a
   * worker, the next free one goes to the waiting request whose key holds the fewest workers,
   * the oldest first among equals (fair dispatch; see docs/limits.md). By default the key is the
   * request's path, so one slow path cannot make the others queue behind it; the App gives its
   * route (method and pattern).
   *
   * @example
   * createEngine({ handler, dispatchKey: (exchange) => (exchange.path.startsWith("/api/") ? 1 : 0) });
   */
  readonly dispatchKey?: DispatchKey;
  /**
   * When true, a request whose body is over its limit (`maxBodyBytes`, or `maxStreamedBodyBytes`
   * for a streamed body; declared or found while reading chunks) is still dispatched, without
   * its body: `exchange.bodyRefused` holds a `BodyTooLargeError` (`httpStatus` 413), reading the
   * body throws it, and the handler answers it as it answers its own errors (the App does so
   * through its middleware, so a 413 carries their headers). What the client still sends is
   * dropped, and the connection closes after the answer. False (the default): the engine
   * answers 413 itself and the handler never runs.
   */
  readonly dispatchOversizedBodies?: boolean;
  /**
   * How many requests' worth of short-lived objects one request leaves, for the young-generation
   * collections the engine runs every 16,384 requests' worth (see docs/limits.md): a handler that
   * makes many objects per request gives more, so its garbage is collected before it grows the
   * resident set. An integer from 1 (the default: the bare engine makes almost none) to 16,384.
   *
   * @example
   * createEngine({ handler, requestCollectionWeight: 4 });
   */
  readonly requestCollectionWeight?: number;
  /** Where the budget line goes; `console.log` by default, `null` for silence. */
  readonly log?: ((line: string) => void) | null;
  /**
   * Told of an error thrown out of the engine's own handling of a socket event (a bug: every
   * call into the application is guarded). The connection is closed and the error counted in
   * `stats().internalErrors`; `console.error` by default, `null` for silence.
   */
  readonly onInternalError?: ((error: unknown) => void) | null;
}

/** Options of `listen()`. */
export interface ListenOptions extends EngineOptions {
  /** Address to bind; IPv4 loopback by default. */
  readonly hostname?: string;
  /** Port to bind; 0 picks a free one. */
  readonly port: number;
  /**
   * Lets other processes bind the same port (SO_REUSEPORT, Linux): the kernel spreads new
   * connections over them. False by default.
   */
  readonly reusePort?: boolean;
}

/** Where `Engine.listen` binds. */
export type BindOptions = Pick<ListenOptions, "hostname" | "port" | "reusePort">;

/** A connection to an engine that lives in memory: bytes in, bytes out, no socket. */
export interface MemoryConnection {
  /** Sends request bytes. */
  send(bytes: Uint8Array): void;
  /** Closes the connection from the client side. */
  close(): void;
}

/** An engine with its memory reserved: serve it on a port, or talk to it in memory. */
export interface Engine {
  /** The limits in force, defaults merged. */
  readonly limits: Limits;
  /** The memory budget line. */
  readonly budget: string;
  /** Exact counters now. */
  stats(): EngineStats;
  /** Binds the engine to a TCP port (once). */
  listen(options: BindOptions): Server;
  /**
   * Opens an in-memory connection through the same parser, limits and handler, for testing an
   * application without a socket. `onData` receives every byte the engine writes; `onClose` runs
   * when the engine closes the connection. When every slot is taken it is refused as a socket
   * is: `onData` gets the canned 503 (with `Retry-After`) and `onClose` runs before this returns
   * a connection that ignores what it is sent. Throws once `stop()` was called.
   */
  connectInMemory(onData: (bytes: Uint8Array) => void, onClose: () => void): MemoryConnection;
  /** See `Server.stop`. */
  stop(options?: { readonly graceMs?: number }): Promise<void>;
}

/** A running engine bound to a port. */
export interface Server {
  readonly hostname: string;
  readonly port: number;
  /** The limits in force, defaults merged. */
  readonly limits: Limits;
  /** The memory budget line printed at start. */
  readonly budget: string;
  /** Exact counters now. */
  stats(): EngineStats;
  /**
   * Stops accepting, closes idle connections, lets responses in progress finish for up to
   * `graceMs`, then closes the rest. Resolves when every connection is closed.
   */
  stop(options?: { readonly graceMs?: number }): Promise<void>;
}
