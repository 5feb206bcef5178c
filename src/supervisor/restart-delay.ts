/** The first restart of a dead process waits this long; each death in a row doubles it. */
export const firstRestartDelayMs = 100;
/** The longest wait before a restart: a process that keeps dying costs little. */
export const maxRestartDelayMs = 5000;
/** A process that served this long before dying starts its series of delays again. */
export const stableAfterMs = 10_000;

/** Milliseconds to wait before restarting a process that died `failuresInARow` times in a row. */
export function restartDelayMs(failuresInARow: number): number {
  return Math.min(firstRestartDelayMs * 2 ** failuresInARow, maxRestartDelayMs);
}
