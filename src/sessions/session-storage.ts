import type { Session } from "./session-store.ts";

/**
 * What an App needs of a session store, whichever holds the sessions: `SessionStore` (this
 * process's memory, the embedded default) or `RedisSessionStore` (shared by every process and
 * machine using one Redis). Every method is asynchronous so the two are interchangeable.
 *
 * Both keep the same promises: tokens are 256 random bits; a session lives exactly `lifetimeMs`
 * from its creation and using it never extends it; `revoke` ends it at once for every reader of
 * the store; a full store refuses a new session with `SessionStoreFullError` and evicts nobody.
 *
 * @example
 * async function signIn(sessions: SessionStorage<{ user: string }>, ctx: Context) {
 *   cookie.set(ctx.response, await sessions.create({ user: "ada" }));
 * }
 */
export interface SessionStorage<Data> {
  /** The most sessions held at once. */
  readonly capacity: number;
  /** How long each session lives from its creation, in milliseconds. */
  readonly lifetimeMs: number;
  /** Starts a session holding `data`; rejects with `SessionStoreFullError` when full. */
  create(data: Data): Promise<Session<Data>>;
  /** The valid session `token` names, or `undefined` (absent, malformed, unknown, revoked, expired). */
  get(token: string | undefined): Promise<Session<Data> | undefined>;
  /** Ends the session `token` names; resolves whether a valid session was ended. */
  revoke(token: string | undefined): Promise<boolean>;
}
