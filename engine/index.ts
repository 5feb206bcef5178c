// corral-engine: a bounded HTTP/1.1 engine on Bun.listen.

// Errors the engine answers itself
export { type EngineErrorName, engineErrors } from "./src/errors.ts";
// One request and its response
export { Exchange } from "./src/exchange.ts";
export { ExchangeRequest } from "./src/exchange-request.ts";
export type { Handler, HandlerCompletion, StreamBodies } from "./src/internal/engine-context.ts";
// Limits and the memory budget
export {
  budgetLine,
  defaultLimits,
  formatBytes,
  type Limits,
  reservedBytes,
  resolveLimits,
} from "./src/limits.ts";
// Reason phrases (RFC 9110 §15)
export { reasonPhrase } from "./src/reason-phrase.ts";
// A request body read as it arrives
export { RequestBody } from "./src/request-body.ts";
export {
  BodyTooLargeError,
  ClientGoneError,
  ResponseLimitError,
  StaleExchangeError,
} from "./src/response-errors.ts";
export { ResponseStream } from "./src/response-stream.ts";
// Starting and stopping
export { createEngine, listen } from "./src/server.ts";
export type {
  BindOptions,
  Engine,
  EngineOptions,
  ListenOptions,
  MemoryConnection,
  Server,
} from "./src/server-types.ts";

// Counters
export type { DeadlineKind, EngineStats } from "./src/stats.ts";
// WebSockets (RFC 6455)
export { closeCodes } from "./src/websocket/close-codes.ts";
export { EncodedMessage } from "./src/websocket/encoded-message.ts";
export {
  type HandshakeRequest,
  type HandshakeResult,
  type RefusedHandshake,
  type ValidHandshake,
  validateHandshake,
} from "./src/websocket/handshake.ts";
export type { SendResult } from "./src/websocket/send-rules.ts";
export type { WebSocketCallback, WebSocketHandler } from "./src/websocket/websocket-host.ts";
export {
  defaultWebSocketLimits,
  type OutboundPolicy,
  resolveWebSocketLimits,
  type WebSocketLimits,
} from "./src/websocket/websocket-options.ts";
export type { WebSocketSession } from "./src/websocket/websocket-session.ts";
export type { WebSocketCloseKind, WebSocketStats } from "./src/websocket/websocket-stats.ts";
export type { WebSocketUpgradeOptions } from "./src/websocket/websocket-upgrade.ts";
