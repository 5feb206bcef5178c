import type { Session, SessionStore } from "corral";

/**
 * Each user's sessions, oldest first, with a cap: a login past `maxPerUser` revokes that user's
 * oldest session. One account (the demo ones are public) can then hold only `maxPerUser` places
 * of the store, and logging in over and over cannot fill it against everyone else. The lists
 * hold only users who signed in, each at most `maxPerUser` tokens, so they are bounded by the
 * user directory.
 *
 * @example
 * const perUser = new UserSessions(store, 5);
 * const session = perUser.start({ username: "ada" }); // may throw SessionStoreFullError
 */
export class UserSessions<Data extends { readonly username: string }> {
  readonly maxPerUser: number;
  readonly #store: SessionStore<Data>;
  readonly #tokens = new Map<string, string[]>();
  #displaced = 0;

  constructor(store: SessionStore<Data>, maxPerUser: number) {
    if (!Number.isSafeInteger(maxPerUser) || maxPerUser < 1) {
      throw new TypeError(
        `sessions: maxSessionsPerUser must be a whole number >= 1, got ${maxPerUser}`,
      );
    }
    this.#store = store;
    this.maxPerUser = maxPerUser;
  }

  /**
   * Sessions revoked because their user signed in once more than the cap allows.
   *
   * @example
   * perUser.displaced; // 0 until someone holds maxPerUser sessions and signs in again
   */
  get displaced(): number {
    return this.#displaced;
  }

  /**
   * Starts a session for `data.username`, first revoking that user's oldest ones past the cap.
   * Throws `SessionStoreFullError` when the store is still full of other valid sessions.
   *
   * @example
   * cookie.set(ctx.response, perUser.start({ username }));
   */
  start(data: Data): Session<Data> {
    const store = this.#store;
    // Logged out or expired sessions no longer count.
    const tokens = (this.#tokens.get(data.username) ?? []).filter(
      (token) => store.get(token) !== undefined,
    );
    while (tokens.length >= this.maxPerUser) {
      if (store.revoke(tokens.shift())) this.#displaced++;
    }
    this.#tokens.set(data.username, tokens);
    const session = store.create(data);
    tokens.push(session.token);
    return session;
  }
}
