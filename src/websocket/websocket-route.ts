import {
  type Exchange,
  resolveWebSocketLimits,
  validateHandshake,
  type WebSocketHandler,
  type WebSocketLimits,
  type WebSocketSession,
} from "corral/engine";
import type { Context } from "../context.ts";
import type { HandlerFailures } from "../handler-failures.ts";
import { AppWebSocket } from "./app-websocket.ts";
import { type OriginPolicy, originAllowed, validateOriginPolicy } from "./origin-policy.ts";
import type { Rooms } from "./rooms.ts";

/**
 * A WebSocket route: `app.ws(path, route)`. Middleware `before` hooks run on the upgrade
 * request as on any route (authentication, sessions); then the handshake is checked (400, 426),
 * the origin (403), `upgrade(ctx)` may refuse by throwing an `HttpError` or return the
 * connection's typed `data`; then the 101 is sent and the worker given back.
 *
 * @example
 * app.ws("/echo", { message: (socket, message) => void socket.send(message) });
 */
export interface WebSocketRoute<Shared, Params, Locals, Data> {
  /** Bounds and deadlines of this route's sockets (over `defaultWebSocketLimits`). */
  readonly limits?: Partial<WebSocketLimits>;
  /** Origins allowed; the server's own origin when absent. */
  readonly origins?: OriginPolicy;
  /** Whether a handshake without `Origin` (not from a browser) is allowed; true by default. */
  readonly allowMissingOrigin?: boolean;
  /**
   * Subprotocols this route speaks, preferred first: the first the client offered is selected;
   * a client offering none of them gets none (RFC 6455 §4.2.2 lets the server choose none).
   */
  readonly protocols?: readonly string[];
  /** Runs on the upgrade request after the middleware; returns the socket's `data`. */
  readonly upgrade?: (ctx: Context<Shared, Params, Locals>) => Data | Promise<Data>;
  /** The socket is open (the 101 is out). */
  readonly open?: (socket: AppWebSocket<Data, Params>) => void;
  /**
   * A message: text as a string, binary as bytes borrowed until this returns or its promise
   * settles. The next message of this client is read only then.
   */
  readonly message: (
    socket: AppWebSocket<Data, Params>,
    message: string | Uint8Array,
  ) => void | Promise<void>;
  /** The socket's queue went empty after a send was backpressured. */
  readonly drain?: (socket: AppWebSocket<Data, Params>) => void;
  /** The socket closed; once. `code` is 1006 when the connection ended without a close frame. */
  readonly close?: (socket: AppWebSocket<Data, Params>, code: number, reason: string) => void;
}

// biome-ignore lint/suspicious/noExplicitAny: routes of every type share one table.
type AnyRoute = WebSocketRoute<any, any, any, any>;
type AnyContext = Context<unknown, Readonly<Record<string, string>>, object>;

const decoder = new TextDecoder();

/** A registered WebSocket route: its spec checked once, and the engine handler shared by its sockets. */
export class WebSocketEndpoint {
  readonly #route: AnyRoute;
  readonly #rooms: Rooms;
  readonly #limits: WebSocketLimits;
  readonly #handler: WebSocketHandler;

  /**
   * `path` names the route in failure reports; `failures` logs and counts its callbacks' errors
   * (`stats().handlerFailures`).
   */
  constructor(
    path: string,
    route: AnyRoute,
    rooms: Rooms,
    failures: HandlerFailures,
    maxWebSocketMessageBytes: number,
  ) {
    if (typeof route?.message !== "function") {
      throw new TypeError("corral: a WebSocket route needs a message(socket, message) function");
    }
    for (const hook of ["upgrade", "open", "drain", "close"] as const) {
      if (route[hook] !== undefined && typeof route[hook] !== "function") {
        throw new TypeError(`corral: WebSocket route option ${hook} must be a function`);
      }
    }
    validateOriginPolicy(route.origins);
    if (route.protocols !== undefined && !Array.isArray(route.protocols)) {
      throw new TypeError("corral: protocols must be a list of subprotocol names");
    }
    this.#route = route;
    this.#rooms = rooms;
    this.#limits = resolveWebSocketLimits(route.limits ?? {}, maxWebSocketMessageBytes);
    const socketOf = (session: WebSocketSession) => session.data as AppWebSocket<unknown, unknown>;
    this.#handler = {
      open(session) {
        const socket = socketOf(session);
        socket.attach(session);
        route.open?.(socket);
      },
      message(session, data, isText) {
        return route.message(socketOf(session), isText ? decoder.decode(data) : data);
      },
      drain(session) {
        route.drain?.(socketOf(session));
      },
      close(session, code, reason) {
        const socket = socketOf(session);
        socket.markClosed();
        rooms.leaveAll(socket);
        route.close?.(socket, code, reason);
      },
      failed(_session, error, callback) {
        failures.webSocketCallback(path, callback, error);
      },
    };
  }

  /** Answers the upgrade request: 400/426/403, an `upgrade` refusal, or the 101. */
  upgrade(ctx: AnyContext, exchange: Exchange): void | Promise<void> {
    const handshake = validateHandshake(exchange);
    if (handshake.kind === "refused") {
      // RFC 6455 §4.4: a version the server does not speak gets the versions it does.
      if (handshake.status === 426) ctx.response.header("Sec-WebSocket-Version", "13");
      ctx.response.text(handshake.status, `${handshake.reason}\n`);
      return;
    }
    const route = this.#route;
    if (!originAllowed(handshake.origin, route.origins, route.allowMissingOrigin ?? true, ctx)) {
      ctx.response.text(403, "this origin may not open a WebSocket here\n");
      return;
    }
    const protocol = route.protocols?.find((name) => handshake.protocols.includes(name));
    const data = route.upgrade?.(ctx);
    if (data instanceof Promise) {
      return data.then((value) => this.#accept(ctx, exchange, value, protocol));
    }
    this.#accept(ctx, exchange, data, protocol);
  }

  #accept(ctx: AnyContext, exchange: Exchange, data: unknown, protocol: string | undefined): void {
    const socket = new AppWebSocket(
      this.#rooms,
      data,
      ctx.params,
      ctx.request.remoteAddress?.address,
    );
    const session = exchange.upgradeToWebSocket({
      handler: this.#handler,
      limits: this.#limits,
      protocol,
    });
    session.data = socket;
  }
}
