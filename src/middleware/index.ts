// corral/middleware: the first-party middleware, each plain `before`/`after`/`cleanup` hooks on
// the public API. `use()` them in this order (see docs/guide.md "Middleware order"):
//   requestId, logger, secureHeaders, cors, rateLimit, etag, compress

export { type CompressOptions, compress, skipCompression } from "./compress.ts";
export { type CorsOptions, cors } from "./cors.ts";
export { contentTag, type EtagOptions, etag } from "./etag.ts";
export type { LogQueueStats, LogSink } from "./log-queue.ts";
export { type LoggerOptions, logger, type RequestLogLine } from "./logger.ts";
export { ipv6Prefix56, peerKey } from "./peer-key.ts";
export { type RateLimitOptions, rateLimit } from "./rate-limit.ts";
export {
  type RateLimitDecision,
  type RateLimitStore,
  RateLimitTable,
  type RateLimitTableStats,
} from "./rate-limit-table.ts";
export { RedisRateLimitStore } from "./redis-rate-limit-store.ts";
export {
  isValidRequestId,
  maxRequestIdLength,
  type RequestIdLocals,
  type RequestIdOptions,
  requestId,
} from "./request-id.ts";
export {
  defaultSecureHeaders,
  type SecureHeadersOptions,
  secureHeaders,
} from "./secure-headers.ts";
