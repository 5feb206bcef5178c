import { writeLatin1 } from "./ascii.ts";

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

/** One `DataView` per reservation, kept no longer than the reservation itself. */
const views = new WeakMap<Uint8Array, DataView>();

/** A `DataView` over `reserved`, the same for every caller: a slot adds no object of its own. */
export function viewOf(reserved: Uint8Array): DataView {
  let view = views.get(reserved);
  if (view === undefined) {
    view = new DataView(reserved.buffer, reserved.byteOffset, reserved.length);
    views.set(reserved, view);
  }
  return view;
}

/** `text`'s first four characters as one little-endian 32-bit word. */
function word(text: string, at: number): number {
  return (
    (text.charCodeAt(at) |
      (text.charCodeAt(at + 1) << 8) |
      (text.charCodeAt(at + 2) << 16) |
      (text.charCodeAt(at + 3) << 24)) >>>
    0
  );
}

const contentLengthName = "Content-Length: ";
const [contentLength0, contentLength4, contentLength8, contentLength12] = [0, 4, 8, 12].map((at) =>
  word(contentLengthName, at),
) as [number, number, number, number];

/**
 * Writes `Content-Length: ` at `offset` of `target`: into a piece of the reservation `view`
 * covers, as four 32-bit stores (a loop over its characters takes about 15 instructions each);
 * without a view, character by character. Returns the offset after it.
 */
export function writeContentLengthName(
  view: DataView | null,
  target: Uint8Array,
  offset: number,
): number {
  if (view === null) return writeLatin1(target, offset, contentLengthName);
  const at = target.byteOffset + offset;
  view.setUint32(at, contentLength0, true);
  view.setUint32(at + 4, contentLength4, true);
  view.setUint32(at + 8, contentLength8, true);
  view.setUint32(at + 12, contentLength12, true);
  return offset + contentLengthName.length;
}
