/**
 * Close status codes (RFC 6455 §7.4). The names are the IANA registry's, and the engine uses
 * them for the closes it starts itself.
 */
export const closeCodes = Object.freeze({
  normal: 1000,
  goingAway: 1001,
  protocolError: 1002,
  unsupportedData: 1003,
  /** Reserved: "no status received"; never sent on the wire (§7.4.1). */
  noStatus: 1005,
  /** Reserved: the connection closed without a close frame; never sent on the wire (§7.4.1). */
  abnormal: 1006,
  invalidPayload: 1007,
  policyViolation: 1008,
  messageTooBig: 1009,
  mandatoryExtension: 1010,
  internalError: 1011,
  tryAgainLater: 1013,
} as const);

/**
 * Whether a peer may send `code` in a close frame (RFC 6455 §7.4.1 and §7.4.2): the codes
 * registered for use on the wire (1000-1003, 1007-1014) and the ranges left to libraries and
 * applications (3000-4999). 1004, 1005, 1006 and 1015 are reserved and never sent; anything
 * below 1000, unassigned in 1016-2999, or above 4999 is invalid.
 */
export function isValidCloseCode(code: number): boolean {
  if (code >= 3000 && code <= 4999) return true;
  if (code < 1000 || code > 1014) return false;
  return code !== 1004 && code !== 1005 && code !== 1006;
}
