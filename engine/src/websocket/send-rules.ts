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
