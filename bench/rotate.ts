/**
 * `items` starting at index `by` (mod length) and wrapping round: the order of servers in one
 * repeat or round, so that the first place (which tends to run faster here) goes to each in turn.
 */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const start = by % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}
