/**
 * Runs shorter than this are copied byte by byte: a loop costs about a nanosecond a byte, a call
 * of `copyWithin` about 20 ns whatever the length (and `set` over a `subarray` more, for the
 * view it makes).
 */
const loopCopyBytes = 24;

/**
 * Copies `source[from, to)` to `target` at `offset` and returns the offset after it. `reserved`
 * is the engine's whole reservation, of which both arrays are pieces: a longer run is one
 * `copyWithin` on it, with no view made. Null when the pieces are separate arrays (see
 * `ArenaReservation`), or when either array may be one: then a loop or `set`.
 */
export function copyReserved(
  reserved: Uint8Array | null,
  source: Uint8Array,
  from: number,
  to: number,
  target: Uint8Array,
  offset: number,
): number {
  const length = to - from;
  if (length >= loopCopyBytes) {
    if (reserved !== null) {
      const start = source.byteOffset + from;
      reserved.copyWithin(target.byteOffset + offset, start, start + length);
    } else {
      target.set(source.subarray(from, to), offset);
    }
    return offset + length;
  }
  for (let index = 0; index < length; index++) target[offset + index] = source[from + index]!;
  return offset + length;
}
