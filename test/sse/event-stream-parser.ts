// A reference reader for `text/event-stream`, written from WHATWG HTML §9.2.6 "Interpreting an
// event stream" (the steps for web browsers), so tests check frames by what a client makes of
// them rather than only by their bytes.

/**
 * One event a client dispatched.
 *
 * @example
 * const event: ParsedEvent = { type: "message", data: "a", lastEventId: "1" };
 */
export interface ParsedEvent {
  readonly type: string;
  readonly data: string;
  readonly lastEventId: string;
}

/**
 * What a client holds after reading a whole stream.
 *
 * @example
 * const { events, lastEventId, retry } = readEventStream(": hi\n\n");
 */
export interface ParsedStream {
  readonly events: ParsedEvent[];
  /** The event source's last event ID string after the stream. */
  readonly lastEventId: string;
  /** The reconnection time set by the last valid `retry` field, if any. */
  readonly retry: number | undefined;
}

/**
 * Reads `stream` as §9.2.6 does. `initialLastEventId` seeds the last event ID buffer the way
 * browsers do on a reconnection; the literal text of §9.2.6 starts it empty, which is the
 * default here.
 *
 * @example
 * readEventStream("data: x\n\n", "7").events[0]?.lastEventId; // "7"
 */
export function readEventStream(stream: string, initialLastEventId = ""): ParsedStream {
  const events: ParsedEvent[] = [];
  let data = "";
  let type = "";
  let lastEventIdBuffer = initialLastEventId;
  let lastEventId = initialLastEventId;
  let retry: number | undefined;
  const lines = stream.split(/\r\n|\r|\n/);
  // The piece after the last line break is an unterminated line, discarded at end of file.
  lines.pop();
  for (const line of lines) {
    if (line === "") {
      lastEventId = lastEventIdBuffer;
      if (data !== "") {
        events.push({ type: type === "" ? "message" : type, data: data.slice(0, -1), lastEventId });
      }
      data = "";
      type = "";
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") type = value;
    else if (field === "data") data += `${value}\n`;
    else if (field === "id" && !value.includes("\u0000")) lastEventIdBuffer = value;
    else if (field === "retry" && /^[0-9]+$/.test(value)) retry = Number(value);
  }
  return { events, lastEventId, retry };
}
