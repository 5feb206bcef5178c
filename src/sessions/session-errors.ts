/**
 * Every slot of a `SessionStore` holds a session that is still valid, so a new one cannot be
 * created. The store never evicts a valid session to make room (that would log someone out
 * silently); answer 503 with `Retry-After` instead.
 *
 * @example
 * app.onError((error, ctx) => {
 *   if (!(error instanceof SessionStoreFullError)) throw error;
 *   ctx.response.header("Retry-After", String(error.retryAfterSeconds));
 *   ctx.response.text(503, "Too many sessions, try again later\n");
 * });
 */
export class SessionStoreFullError extends Error {
  /** The store's capacity, which was reached. */
  readonly capacity: number;
  /**
   * Whole seconds (at least 1) until the oldest session expires and its slot is certain to be
   * free; a logout may free one sooner. Suitable for `Retry-After` (RFC 9110 §10.2.3).
   */
  readonly retryAfterSeconds: number;

  constructor(capacity: number, retryAfterSeconds: number) {
    super(`corral: the session store is full (${capacity} valid sessions)`);
    this.name = "SessionStoreFullError";
    this.capacity = capacity;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
