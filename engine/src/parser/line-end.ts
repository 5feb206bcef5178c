const CR = 0x0d;
const LF = 0x0a;

/**
 * The offset from `base` of the first LF in `buffer[from, end)`, or of a bare CR before it (a CR
 * followed by anything but LF, which RFC 9112 §2.2 lets a recipient refuse: no line of a head
 * can hold one), or -1. A bare CR is refused as soon as the byte after it comes: waiting for a
 * LF would answer a head that is already malformed only at the header deadline, with a 408.
 */
export function findLineEnd(buffer: Uint8Array, from: number, end: number, base: number): number {
  for (let index = from; index < end; index++) {
    const byte = buffer[index];
    if (byte === LF) return index - base;
    if (byte === CR && index + 1 < end && buffer[index + 1] !== LF) return index - base;
  }
  return -1;
}
