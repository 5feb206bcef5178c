/** Nothing is due. */
export const livenessFine = 0;
/** The peer was quiet for `pingIntervalMs`: a ping goes out now (the pong's clock starts). */
export const livenessPing = 1;
/** The peer was quiet for `idleTimeoutMs`: the socket closes with 1001. */
export const livenessIdle = 2;
/** The pong did not come within `pongTimeoutMs`: the connection is dropped. */
export const livenessPongMissed = 3;

/** What the liveness rules read of a route's limits (0 switches a rule off). */
export interface LivenessLimits {
  readonly idleTimeoutMs: number;
  readonly pingIntervalMs: number;
  readonly pongTimeoutMs: number;
}

/**
 * Whether a WebSocket peer is still there: when it was last heard, and the ping waiting for its
 * pong. Any bytes from the peer count as hearing it (a pong behind data is read only after it).
 */
export class PeerLiveness {
  #lastHeardAt: number;
  #pingSentAt = 0;

  constructor(now: number) {
    this.#lastHeardAt = now;
  }

  /** Bytes came from the peer. */
  heard(now: number): void {
    this.#lastHeardAt = now;
    this.#pingSentAt = 0;
  }

  /**
   * What is due at `now`. While `readsPaused` (by the server: a message handled, a buffer
   * awaited) what the peer sends, pongs included, waits unread: its quiet time starts when
   * reading resumes, so a healthy client is never dropped for the server's own wait.
   */
  check(now: number, limits: LivenessLimits, readsPaused: boolean): number {
    if (readsPaused) {
      this.heard(now);
      return livenessFine;
    }
    const quiet = now - this.#lastHeardAt;
    if (limits.idleTimeoutMs > 0 && quiet >= limits.idleTimeoutMs) return livenessIdle;
    if (this.#pingSentAt > 0) {
      return now - this.#pingSentAt >= limits.pongTimeoutMs ? livenessPongMissed : livenessFine;
    }
    if (limits.pingIntervalMs > 0 && quiet >= limits.pingIntervalMs) {
      this.#pingSentAt = now;
      return livenessPing;
    }
    return livenessFine;
  }
}
