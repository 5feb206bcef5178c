// corral: the typed App layer on the bounded engine (corral/engine).

// From the engine, for handlers that catch them
export {
  BodyTooLargeError,
  ClientGoneError,
  closeCodes,
  defaultLimits,
  defaultWebSocketLimits,
  EncodedMessage,
  type EngineStats,
  type Limits,
  type OutboundPolicy,
  type RequestBody,
  ResponseLimitError,
  type SendResult,
  StaleExchangeError,
  type WebSocketLimits,
  type WebSocketStats,
} from "corral/engine";
// The App and routing
export {
  App,
  type AppLimits,
  type AppListenOptions,
  type AppOptions,
  type AppServer,
  defaultRequestViewLimits,
  type Endpoint,
  type ErrorMapper,
  type NoShared,
  type RouteHandler,
  type RouteOptions,
} from "./app.ts";
// Context, request and response
export { type AnyContext, Context } from "./context.ts";
export type { ContinuationSpec, StepResult } from "./continuation.ts";
// Cookies
export type { CookieEntry } from "./cookies/cookie-header.ts";
export type { CookieOptions } from "./cookies/set-cookie.ts";
// Time
export { Duration } from "./duration.ts";
export type { ErrorFormat } from "./errors/error-format.ts";
export type { StatusError } from "./errors/status-error.ts";
// Server-sent events
export { EventChannel } from "./events/event-channel.ts";
export type { EventSourceChannel } from "./events/event-source.ts";
// Redis (shared state across processes and machines)
export {
  RedisEventChannel,
  type RedisEventChannelOptions,
} from "./events/redis-event-channel.ts";
export {
  type ServerSentEventsOptions,
  type ServerSentEventsState,
  serverSentEvents,
} from "./events/server-sent-events.ts";
export { type AppLog, defaultLogLimits, type LogLimits } from "./failure-log.ts";
export { isTokenCode } from "./field-syntax.ts";
export { formatText } from "./format-text.ts";
export type { ContextFor, HandlerFor, LocalsOf, SharedOf } from "./handler-types.ts";
// Static files
export {
  type ByteRange,
  defaultRangeLimits,
  parseRange,
  type RangeLimits,
  type RangeRequest,
} from "./http/byte-ranges.ts";
// Conditional requests and content codings (RFC 9110 §13, §12.5.3)
export {
  evaluatePreconditions,
  ifRangeAllows,
  type PreconditionResult,
  type Validators,
} from "./http/conditional-requests.ts";
export { type ContentCoding, chooseContentCoding } from "./http/content-coding.ts";
export { isEntityTag } from "./http/entity-tags.ts";
export { formatHttpDate, parseHttpDate } from "./http/http-date.ts";
export { HttpError, type HttpErrorOptions } from "./http-error.ts";
export type { InProcessRequestInit } from "./in-process.ts";
export { type Io, type IoTimer, ManualIo, systemIo } from "./io.ts";
// Middleware and errors
export {
  type Middleware,
  middleware,
  type NoLocals,
  type RequestOutcome,
  stopChain,
} from "./middleware.ts";
// Content negotiation
export { mediaTypeQuality, negotiate, parseAccept } from "./negotiation/accept.ts";
export type { MediaRange } from "./negotiation/media-range.ts";
export { listenersWokenPerTurn, Notifier, type NotifierListener } from "./notifier.ts";
export { optionNames, refuseUnknownOptions } from "./option-names.ts";
export {
  decodeText,
  formDecodeInto,
  formDecodeText,
  params,
  percentDecodeInto,
  percentDecodeText,
} from "./params/codecs.ts";
// Query, form and multipart
export { DecodeError } from "./params/decode-error.ts";
export { ParameterLimitError } from "./params/parameter-limit-error.ts";
export { type ParameterEntry, ParameterRecords } from "./params/parameter-records.ts";
export {
  RedisConnection,
  type RedisConnectionOptions,
  type RedisConnectionStats,
} from "./redis/redis-connection.ts";
export type { AppStats, RedisStats } from "./redis/redis-stats.ts";
export { RedisSubscriber } from "./redis/redis-subscriber.ts";
export {
  RedisUnavailableError,
  type RedisUnavailableReason,
} from "./redis/redis-unavailable-error.ts";
export { MultipartError, type MultipartPart } from "./request/multipart.ts";
export { MultipartStream, StreamedPart } from "./request/multipart-stream.ts";
export type { RemoteAddress } from "./request/remote-address.ts";
export { MediaTypeError, RequestView, type RequestViewLimits } from "./request-view.ts";
export {
  type StreamCoding,
  type StreamEncoder,
  zlibStreamEncoder,
} from "./response/stream-encoder.ts";
export { ResponseDraft } from "./response-draft.ts";
// Streams and continuations
export { Stream, StreamWriter } from "./response-stream.ts";
export {
  type CanonicalPathOptions,
  type CanonicalPathResult,
  type CanonicalSegments,
  canonicalPath,
  decodePathSegment,
  type PathRejection,
} from "./router/canonical-path.ts";
export type { HttpMethod } from "./router/http-methods.ts";
export type { PathParams } from "./router/path-params.ts";
// Fixed worker services
export { type ServedJob, serveJobs } from "./services/serve-jobs.ts";
export {
  ServiceBusyError,
  ServiceClosedError,
  ServiceCrashedError,
  ServiceError,
  type ServiceErrorCode,
  ServiceJobError,
  ServiceTimeoutError,
} from "./services/service-errors.ts";
export { WorkerPool } from "./services/worker-pool.ts";
export {
  defaultWorkerPoolLimits,
  type RunContext,
  type RunOptions,
  type WorkerPoolOptions,
} from "./services/worker-pool-options.ts";
export type { WorkerPoolStats } from "./services/worker-pool-stats.ts";
// Sessions
export { constantTimeEqual } from "./sessions/constant-time-equal.ts";
export {
  RedisSessionStore,
  type RedisSessionStoreOptions,
} from "./sessions/redis-session-store.ts";
export { SessionCookie, type SessionCookieOptions } from "./sessions/session-cookie.ts";
export { SessionStoreFullError } from "./sessions/session-errors.ts";
export type { SessionStorage } from "./sessions/session-storage.ts";
export {
  maxSessionCapacity,
  type Session,
  SessionStore,
  type SessionStoreOptions,
} from "./sessions/session-store.ts";
export {
  decodeSessionToken,
  encodeSessionToken,
  generateSessionToken,
  sessionTokenBytes,
  sessionTokenLength,
} from "./sessions/session-token.ts";
export {
  EventRing,
  type EventRingOptions,
  type EventRingRead,
  type StoredEvent,
} from "./sse/event-ring.ts";
export { encodeGapEvent, gapEventName } from "./sse/gap-event.ts";
export { parseLastEventId } from "./sse/last-event-id.ts";
export {
  ServerSentEventError,
  type ServerSentEventErrorReason,
} from "./sse/server-sent-event-error.ts";
export {
  encodeServerSentComment,
  encodeServerSentEvent,
  type ServerSentEvent,
  serverSentEventsContentType,
} from "./sse/sse-encoder.ts";
export {
  type CacheControlPolicy,
  type CachedFile,
  defaultCacheControl,
  hasContentHash,
} from "./static/cache-control.ts";
export { contentTypeFor, defaultContentTypes } from "./static/content-types.ts";
export {
  type AssetInput,
  EmbeddedAssets,
  type EmbeddedAssetsOptions,
} from "./static/embedded-assets.ts";
export { FileChangedError } from "./static/file-changed-error.ts";
export { StaticFiles, type StaticFilesOptions, serveStatic } from "./static/serve-static.ts";
// Every core: a supervisor of processes sharing one port
export type { GroupStats } from "./supervisor/group-stats.ts";
export { type ServeOptions, type Supervisor, serve } from "./supervisor/serve.ts";
// Templates
export { escapeHtml } from "./templates/html-escape.ts";
export { PageTooLargeError, TemplateCompileError } from "./templates/template-errors.ts";
export { htmlContentType, TemplateSet, type TemplateSetOptions } from "./templates/template-set.ts";
// WebSockets
export {
  type InProcessClose,
  InProcessWebSocket,
  type InProcessWebSocketOptions,
} from "./testing/in-process-websocket.ts";
export { AppWebSocket } from "./websocket/app-websocket.ts";
export type { OriginPolicy } from "./websocket/origin-policy.ts";
export {
  RedisRoomBridge,
  type RedisRoomBridgeOptions,
  type RedisRoomBridgeStats,
} from "./websocket/redis-room-bridge.ts";
export {
  defaultRoomLimits,
  type RoomBridge,
  type RoomLimits,
  type RoomStats,
  Rooms,
} from "./websocket/rooms.ts";
export type { WebSocketRoute } from "./websocket/websocket-route.ts";
export { writerSink } from "./writer-sink.ts";
