import { characterTable } from "../field-syntax.ts";
import type { Io } from "../io.ts";

/**
 * Bytes of randomness in a session token: 256 bits, far past any guessing or birthday attack.
 *
 * @example
 * new Uint8Array(sessionTokenBytes); // room for one token
 */
export const sessionTokenBytes = 32;

/**
 * Characters of a session token as text: 32 bytes in unpadded base64url (RFC 4648 §5).
 *
 * @example
 * token.length === sessionTokenLength; // 43
 */
export const sessionTokenLength = 43;

// RFC 4648 §5: the base64url alphabet.
const alphabet = characterTable("-_");
// 42 characters carry 252 bits; the 43rd carries the last 4 bits and two zero bits (RFC 4648 §3.5
// canonical encoding), so only the characters whose low two bits are zero can end a token. This
// keeps one token to one spelling: "…A" and "…B" would otherwise decode to the same bytes.
const lastCharacters = "AEIMQUYcgkosw048";

/** Whether `token` (already 43 characters long) is in the alphabet and ends canonically. */
function isCanonicalToken(token: string): boolean {
  for (let index = 0; index < sessionTokenLength - 1; index++) {
    if (alphabet[token.charCodeAt(index)] !== 1) return false;
  }
  return lastCharacters.includes(token[sessionTokenLength - 1]!);
}

/**
 * Fills `target` (32 bytes) with fresh randomness from the App's `Io` and returns it as text:
 * unpadded base64url, 43 characters, safe as a cookie value (RFC 6265 §4.1.1 cookie-octets).
 *
 * @example
 * const bytes = new Uint8Array(sessionTokenBytes);
 * const token = generateSessionToken(app.io, bytes); // e.g. "q3N0…", 43 characters
 */
export function generateSessionToken(io: Io, target: Uint8Array): string {
  if (target.length !== sessionTokenBytes) {
    throw new TypeError(`corral: a session token needs a ${sessionTokenBytes}-byte target`);
  }
  io.randomBytes(target);
  return encodeSessionToken(target);
}

/**
 * The text form of 32 token bytes: unpadded base64url, 43 characters.
 *
 * @example
 * encodeSessionToken(new Uint8Array(32)); // "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
 */
export function encodeSessionToken(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/**
 * The 32 bytes of a token a client presented, or `undefined` when the text is not exactly one
 * canonical 43-character base64url token (wrong length, another alphabet, padding, whitespace).
 * The check looks only at what the client sent, never at a stored secret, so its timing gives
 * nothing away.
 *
 * @example
 * decodeSessionToken("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"); // 32 zero bytes
 * decodeSessionToken("not a token"); // undefined
 */
export function decodeSessionToken(token: string): Uint8Array | undefined {
  if (token.length !== sessionTokenLength || !isCanonicalToken(token)) return undefined;
  return Buffer.from(token, "base64url");
}
