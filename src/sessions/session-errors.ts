/**
 * Every slot of a `SessionStore` holds a session that is still valid, so a new one cannot be
 * created. The store never evicts a valid session to make room (that would log someone out
 * silently). The App answers it 503 with `Retry-After` (its `httpStatus` and `httpHeaders`);
 * `onError` may word the answer its own way.
 *
 * @example
 * app.onError((error, ctx) => {
 *   if (!(error instanceof SessionStoreFullError)) throw error;
 *   ctx.response.text(503, "Too many sessions, try again later\n");
 * });
 */
export class SessionStoreFullError extends Error {
  /** The App answers it with this status (see `StatusError`). */
  readonly httpStatus = 503;
  readonly httpMessage = "Service Unavailable: too many sessions, retry later";
  /** The store's capacity, which was reached. */
  readonly capacity: number;
  /**
   * Whole seconds (at least 1) until the oldest session expires and its slot is certain to be
   * free; a logout may free one sooner. Suitable for `Retry-After` (RFC 9110 §10.2.3).
   */
  readonly retryAfterSeconds: number;
  /** `Retry-After` with `retryAfterSeconds`. */
  readonly httpHeaders: Readonly<Record<string, string>>;

  constructor(capacity: number, retryAfterSeconds: number) {
    super(`corral: the session store is full (${capacity} valid sessions)`);
    this.name = "SessionStoreFullError";
    this.capacity = capacity;
    this.retryAfterSeconds = retryAfterSeconds;
    this.httpHeaders = { "Retry-After": String(retryAfterSeconds) };
  }
}
