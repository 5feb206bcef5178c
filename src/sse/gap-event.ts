import { encodeServerSentEvent } from "./sse-encoder.ts";

/**
 * The event name of the notice that some events were lost before a stream resumed; a client
 * listens with `source.addEventListener(gapEventName, ...)`.
 *
 * @example
 * source.addEventListener(gapEventName, (event) => reload(JSON.parse(event.data)));
 */
export const gapEventName = "gap";

/**
 * Encodes the `gap` notice sent before the first event after a gap (see the gap convention on
 * `EventRing`): data `{"missedFrom":lastSeenId+1,"resumedAt":resumedAtId}`.
 *
 * The frame carries `id: resumedAtId - 1` instead of omitting `id`. Without one, the client's
 * last event ID after this event depends on the client: browsers keep the stale id, but WHATWG
 * HTML §9.2.6 taken literally starts each connection's last event ID buffer empty, and step 1 of
 * "dispatch the event" copies that buffer even for an event without `id`; some client libraries
 * blank it too. Such a client would reconnect with no `Last-Event-ID` at all and start fresh,
 * losing its place without any notice. With the id, every client resumes exactly where the
 * server did, and once told of the gap is not told again. After a restart (`resumedAtId <=
 * lastSeenId`) the id moves back on purpose: the old id belongs to ids the server no longer has.
 *
 * Both ids are programmer input: `lastSeenId` must be a safe integer >= 0, `resumedAtId` one
 * >= 1, and `resumedAtId === lastSeenId + 1` (nothing missed) throws a `TypeError`.
 *
 * @example
 * encodeGapEvent(3, 8);
 * // 'event: gap\nid: 7\ndata: {"missedFrom":4,"resumedAt":8}\n\n'
 */
export function encodeGapEvent(lastSeenId: number, resumedAtId: number): string {
  if (!Number.isSafeInteger(lastSeenId) || lastSeenId < 0) {
    throw new TypeError(`corral: lastSeenId must be an integer >= 0, got ${lastSeenId}`);
  }
  if (!Number.isSafeInteger(resumedAtId) || resumedAtId < 1) {
    throw new TypeError(`corral: resumedAtId must be an integer >= 1, got ${resumedAtId}`);
  }
  if (resumedAtId === lastSeenId + 1) {
    throw new TypeError(`corral: no gap: event ${resumedAtId} directly follows ${lastSeenId}`);
  }
  return encodeServerSentEvent({
    event: gapEventName,
    id: resumedAtId - 1,
    data: JSON.stringify({ missedFrom: lastSeenId + 1, resumedAt: resumedAtId }),
  });
}
