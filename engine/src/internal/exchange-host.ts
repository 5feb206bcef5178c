import type { ParsedHead } from "../parser/parsed-head.ts";
import type { EngineContext } from "./engine-context.ts";
import type { EngineSocket } from "./engine-socket.ts";
import type { HandlerRun } from "./handler-run.ts";
import type { PeerAddress } from "./peer-address.ts";
import type { ResponseDraft } from "./response-draft.ts";
import type { StreamFraming } from "./stream-framing.ts";
import type { StreamedBody } from "./streamed-body.ts";
import type { WebSocketSwitch } from "./websocket-switch.ts";
import type { WorkerLease } from "./worker-lease.ts";
import type { YoungCollection } from "./young-collection.ts";

/**
 * What an `Exchange` reads and calls on its connection. The connection implements it; the
 * exchange depends only on this, so the request's view of the engine points one way.
 */
export interface ExchangeHost {
  /** Advances whenever a request ends: an exchange with another generation is stale. */
  readonly generation: number;
  readonly head: ParsedHead;
  readonly draft: ResponseDraft;
  readonly stream: StreamFraming;
  /** The request body, once read. */
  readonly body: Uint8Array;
  /** The request body when the handler streams it. */
  readonly upload: StreamedBody;
  /** The connection's socket while it is open. */
  readonly socket: EngineSocket | null;
  /** The peer's address, read from the socket on first use. */
  readonly peer: PeerAddress;
  /** The last path and query strings made, reused when a later request repeats them. */
  lastPath: string;
  lastQuery: string;
  /** The connection's one claim on a worker. */
  readonly lease: WorkerLease;
  /** The handler's part: whether it still runs, and publishing a detached exchange's draft. */
  readonly run: Pick<HandlerRun, "running" | "publish">;
  /**
   * The engine's count toward young collections (a wait off the worker counts `waitWeight`,
   * through `countWait`), and which requests stream their bodies.
   */
  readonly context: {
    readonly youngCollection: Pick<YoungCollection, "count" | "countWait">;
  } & Pick<EngineContext, "streamBodies">;
  /** The way to WebSocket (`exchange.upgradeToWebSocket`). */
  readonly webSocket: Pick<WebSocketSwitch, "accept">;
}
