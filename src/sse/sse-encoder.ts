import { ServerSentEventError } from "./server-sent-event-error.ts";

/**
 * The `Content-Type` of a server-sent event stream. WHATWG HTML §9.2.5 names the MIME type
 * `text/event-stream` and requires UTF-8, so the charset parameter only says what is already
 * true, for tools that look for it.
 *
 * @example
 * const stream = ctx.response.stream(200, serverSentEventsContentType);
 */
export const serverSentEventsContentType = "text/event-stream; charset=utf-8";

/**
 * One event to send on a `text/event-stream` response.
 *
 * @example
 * const event: ServerSentEvent = { event: "progress", id: 42, data: '{"percent":40}' };
 */
export interface ServerSentEvent {
  /** The payload; any line breaks (CRLF, CR or LF) reach the client as LF. */
  readonly data: string;
  /** The event type the client listens for; absent means the default `message`. */
  readonly event?: string;
  /** Becomes the client's last event ID, sent back as `Last-Event-ID` when it reconnects. */
  readonly id?: string | number;
  /** Milliseconds the client waits before reconnecting. */
  readonly retry?: number;
}

/**
 * Encodes one event as a `text/event-stream` frame: the fields `event`, `id`, `retry`, then one
 * `data:` line per line of `data`, then a blank line. Values are checked, never altered: a CR or
 * LF in `event` or `id`, a NUL in `id`, a `retry` or numeric `id` that is not a non-negative safe
 * integer, or an unpaired surrogate throws a {@link ServerSentEventError}.
 *
 * @example
 * encodeServerSentEvent({ event: "progress", id: 7, data: "line one\nline two" });
 * // "event: progress\nid: 7\ndata: line one\ndata: line two\n\n"
 */
export function encodeServerSentEvent(event: ServerSentEvent): string {
  let frame = "";
  if (event.event !== undefined) frame += fieldLine("event", checkEventName(event.event));
  if (event.id !== undefined) frame += fieldLine("id", checkId(event.id));
  if (event.retry !== undefined) frame += fieldLine("retry", checkRetry(event.retry));
  // §9.2.6 "dispatch the event" step 2: a block whose data buffer is empty fires nothing, and a
  // `data:` line with an empty value still appends an LF to that buffer. So even empty data gets
  // its line, or the client would never see the event.
  frame += fieldLines("data", checkWellFormed(event.data));
  // §9.2.6: a blank line dispatches the event; until then the client only buffers it.
  return `${frame}\n`;
}

/**
 * Encodes a comment frame, which every client ignores: the heartbeat that keeps proxies from
 * closing an idle stream (§9.2.7 suggests one every 15 seconds or so). Each line of `text`
 * becomes its own `:` line.
 *
 * @example
 * encodeServerSentComment("keep-alive"); // ": keep-alive\n\n"
 */
export function encodeServerSentComment(text: string): string {
  return `${fieldLines("", checkWellFormed(text))}\n`;
}

// §9.2.6 splits a field line at its first colon and removes one leading space from the value,
// so writing "name: value" keeps a value that itself starts with a space intact. An empty value
// is written as "name:" rather than with a dangling space; both parse to the empty string.
function fieldLine(name: string, value: string): string {
  return value === "" ? `${name}:\n` : `${name}: ${value}\n`;
}

// §9.2.5: CRLF, a lone CR and a lone LF each end a line, so every one of them starts a new line
// of the same field; §9.2.6 joins `data` lines back together with LF.
function fieldLines(name: string, text: string): string {
  let lines = "";
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code !== lineFeed && code !== carriageReturn) continue;
    lines += fieldLine(name, text.slice(start, index));
    if (code === carriageReturn && text.charCodeAt(index + 1) === lineFeed) index++;
    start = index + 1;
  }
  return lines + fieldLine(name, text.slice(start));
}

// §9.2.5 ABNF: a field value is `*any-char`, which excludes CR and LF; an event name cannot be
// split over lines the way data can, so a line break in one is an error.
function checkEventName(name: string): string {
  if (hasLineBreak(name)) {
    throw new ServerSentEventError("invalidEventName", "event name must not contain CR or LF");
  }
  return checkWellFormed(name);
}

function checkId(id: string | number): string {
  if (typeof id === "number") {
    // Only these round-trip: parseLastEventId reads back exactly the integers written here, and
    // String(1e21) or String(-1) would come back as something else or not at all.
    if (!Number.isSafeInteger(id) || id < 0) {
      throw new ServerSentEventError("invalidId", `numeric id must be a safe integer >= 0: ${id}`);
    }
    return String(id);
  }
  // §9.2.6 ignores an `id` field holding NUL, which would silently keep the previous id.
  if (hasLineBreak(id) || id.includes("\u0000")) {
    throw new ServerSentEventError("invalidId", "id must not contain CR, LF or NUL");
  }
  return checkWellFormed(id);
}

// §9.2.6 applies `retry` only when its value is all ASCII digits; anything else is ignored by
// the client, so it is refused here rather than sent to no effect.
function checkRetry(retry: number): string {
  if (!Number.isSafeInteger(retry) || retry < 0) {
    throw new ServerSentEventError("invalidRetry", `retry must be a safe integer >= 0: ${retry}`);
  }
  return String(retry);
}

// §9.2.5: the stream is always UTF-8, and an unpaired surrogate has no UTF-8 form; encoding it
// would quietly turn it into U+FFFD.
function checkWellFormed(text: string): string {
  if (!text.isWellFormed()) {
    throw new ServerSentEventError("loneSurrogate", "text holds an unpaired UTF-16 surrogate");
  }
  return text;
}

function hasLineBreak(text: string): boolean {
  return text.includes("\n") || text.includes("\r");
}

const lineFeed = 0x0a;
const carriageReturn = 0x0d;
