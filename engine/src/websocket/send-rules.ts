import { isValidCloseCode } from "./close-codes.ts";

/**
 * What a send did: "queued" (the socket keeps up), "backpressured" (queued behind output the
 * client has not read; `drain` follows), "refused" (over the outbound cap, or after a close).
 */
export type SendResult = "queued" | "backpressured" | "refused";

const encoder = new TextEncoder();

/**
 * Throws a `TypeError` for a close the application may not send: a code outside 1000-1003,
 * 1007-1014 and 3000-4999 (RFC 6455 §7.4), or a reason over 123 bytes of UTF-8 (§5.5: a control
 * frame carries at most 125 bytes, two of them the code).
 */
export function validateCloseToSend(code: number, reason: string): void {
  if (!Number.isInteger(code) || !isValidCloseCode(code)) {
    throw new TypeError(`corral: ${code} is not a close code an endpoint may send`);
  }
  if (reason.length > 41 && encoder.encode(reason).length > 123) {
    throw new TypeError("corral: a close reason is at most 123 bytes of UTF-8");
  }
}
/**
 * A message that is neither text nor bytes (an object meant as JSON, an `ArrayBuffer`) was
 * measured as bytes of no length, refused, and closed the socket with 1008 "outbound queue
 * full": the wrong reason, and nothing in the log.
 */
export function sendTypeError(data: unknown): TypeError {
  const what =
    data instanceof ArrayBuffer
      ? "an ArrayBuffer (wrap it: new Uint8Array(buffer))"
      : ArrayBuffer.isView(data)
        ? `a ${data.constructor.name} (send new Uint8Array(view.buffer, view.byteOffset, view.byteLength))`
        : data === null
          ? "null"
          : typeof data === "object"
            ? "an object (send JSON.stringify(value))"
            : `a ${typeof data}`;
  return new TypeError(`corral: a WebSocket message is a string or a Uint8Array, got ${what}`);
}
