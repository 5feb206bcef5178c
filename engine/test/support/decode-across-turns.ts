import {
  type ChunkedBodyDecoder,
  type ChunkedLimits,
  chunkedIncomplete,
} from "../../src/parser/chunked-body.ts";

/**
 * Decodes `input[start, end)` as the engine does over as many turns of the event loop as the
 * decoder's per-turn budget needs (`turnSpent`, then `nextTurn`), without waiting for real turns.
 * `decoder.consumed` then tells how far all of them got. Returns the last result.
 */
export function decodeAcrossTurns(
  decoder: ChunkedBodyDecoder,
  input: Uint8Array,
  start: number,
  end: number,
  output: Uint8Array,
  limits: ChunkedLimits,
): number {
  let index = start;
  for (;;) {
    const code = decoder.decode(input, index, end, output, limits);
    index += decoder.consumed;
    if (code !== chunkedIncomplete || !decoder.turnSpent) {
      decoder.consumed = index - start;
      return code;
    }
    decoder.nextTurn();
  }
}
