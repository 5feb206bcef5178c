import type { Session, SessionStorage } from "corral";

/**
 * Each user's sessions, oldest first, with a cap: a login past `maxPerUser` revokes that user's
 * oldest session. One account (the demo ones are public) can then hold only `maxPerUser` places
 * of the store, and logging in over and over cannot fill it against everyone else. The lists
 * hold only users who signed in, each at most `maxPerUser` tokens, so they are bounded by the
 * user directory. The lists live in this process: with a store shared through Redis, give the
 * store its own cap (`RedisSessionStore`'s `perOwner`) so that it holds across instances.
 *
 * @example
 * const perUser = new UserSessions(store, 5);
 * const session = await perUser.start({ username: "ada" }); // may reject: SessionStoreFullError
 */
export class UserSessions<Data extends { readonly username: string }> {
  readonly maxPerUser: number;
  readonly #store: SessionStorage<Data>;
  readonly #tokens = new Map<string, string[]>();
  #displaced = 0;

  constructor(store: SessionStorage<Data>, maxPerUser: number) {
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
   * Rejects with `SessionStoreFullError` when the store is still full of other valid sessions.
   *
   * @example
   * cookie.set(ctx.response, await perUser.start({ username }));
   */
  async start(data: Data): Promise<Session<Data>> {
    const store = this.#store;
    // Logged out or expired sessions no longer count.
    const tokens: string[] = [];
    for (const token of this.#tokens.get(data.username) ?? []) {
      if ((await store.get(token)) !== undefined) tokens.push(token);
    }
    while (tokens.length >= this.maxPerUser) {
      if (await store.revoke(tokens.shift())) this.#displaced++;
    }
    this.#tokens.set(data.username, tokens);
    const session = await store.create(data);
    tokens.push(session.token);
    return session;
  }
}
