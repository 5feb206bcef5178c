/**
 * Whether two byte arrays hold the same bytes, in time that depends only on their length: every
 * byte pair is visited and folded into one accumulator, with no early exit at the first
 * difference. Use it to compare secrets (session tokens, password digests) against what a client
 * sent, so the response time does not tell an attacker how many leading bytes were right.
 *
 * Lengths are not secret here (tokens and digests have one fixed size), so arrays of different
 * lengths answer `false` at once.
 *
 * @example
 * constantTimeEqual(storedDigest, presentedDigest); // true only when all 32 bytes match
 */
export function constantTimeEqual(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false;
  let difference = 0;
  for (let index = 0; index < left.length; index++) {
    difference |= left[index]! ^ right[index]!;
  }
  return difference === 0;
}
