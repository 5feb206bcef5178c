import { SessionStore } from "corral";
import type { SessionsShared } from "../../../examples/sessions/sessions-app.ts";

/** How many sessions the sessions example's in-memory store holds (its default store). */
export function heldSessions(shared: SessionsShared): number {
  if (!(shared.sessions instanceof SessionStore)) {
    throw new TypeError("heldSessions: the example was built with another session store");
  }
  return shared.sessions.size;
}
