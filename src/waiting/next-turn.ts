/**
 * Settles at the next turn of the event loop, after the I/O that waits: work that could go on
 * in this turn (a stream of small writes, a file read from the page cache) lets the others run.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
