import { errorCode } from "../errors.ts";
import { fieldValueBytes, hexBytes, hexValue } from "./character-classes.ts";

/** The chunked body needs more bytes. */
export const chunkedIncomplete = 0;
/** The chunked body and its trailer section are complete. */
export const chunkedComplete = 1;

/** The limits the chunked decoder enforces. */
export interface ChunkedLimits {
  readonly maxBodyBytes: number;
  readonly maxChunkExtensionBytes: number;
  readonly maxTrailerBytes: number;
}

const phaseSize = 0;
const phaseExtension = 1;
const phaseSizeLineFeed = 2;
const phaseData = 3;
const phaseDataCarriageReturn = 4;
const phaseDataLineFeed = 5;
const phaseTrailerLineStart = 6;
const phaseTrailerLine = 7;
const phaseTrailerLineFeed = 8;
const phaseFinalLineFeed = 9;

const CR = 0x0d;
const LF = 0x0a;
/** A chunk size above this many bytes is treated as an overflow, whatever the body limit. */
const largestChunkSize = 2 ** 40;

/**
 * Incremental decoder for a chunked request body (RFC 9112 §7.1). Decoded data is copied into the
 * caller's `output`; chunk extensions and trailer fields are checked, bounded and dropped.
 */
export class ChunkedBodyDecoder {
  #phase = phaseSize;
  #digits = 0;
  #size = 0;
  #remaining = 0;
  #extensionBytes = 0;
  #trailerBytes = 0;
  /** Decoded body bytes written to the output so far. */
  decodedLength = 0;
  /** Input bytes consumed by the last `decode` call. */
  consumed = 0;

  /** Starts a new body. */
  reset(): void {
    this.#phase = phaseSize;
    this.#digits = 0;
    this.#size = 0;
    this.#remaining = 0;
    this.#extensionBytes = 0;
    this.#trailerBytes = 0;
    this.decodedLength = 0;
    this.consumed = 0;
  }

  /**
   * Decodes `input[start, end)` into `output` (whose length is the body limit). Returns
   * `chunkedIncomplete`, `chunkedComplete` (with `consumed` telling where the body ended), or an
   * engine error code.
   */
  decode(
    input: Uint8Array,
    start: number,
    end: number,
    output: Uint8Array,
    limits: ChunkedLimits,
  ): number {
    let index = start;
    while (index < end) {
      const byte = input[index]!;
      switch (this.#phase) {
        case phaseSize:
          if (hexBytes[byte] === 1) {
            this.#size = this.#size * 16 + hexValue(byte);
            this.#digits++;
            if (this.#size > largestChunkSize)
              return this.#fail(index, errorCode.malformedChunkedBody);
            index++;
            break;
          }
          if (this.#digits === 0) return this.#fail(index, errorCode.malformedChunkedBody);
          if (this.decodedLength + this.#size > limits.maxBodyBytes) {
            return this.#fail(index, errorCode.bodyTooLarge);
          }
          this.#phase = phaseExtension;
          break;
        case phaseExtension:
          if (byte === CR) {
            this.#phase = phaseSizeLineFeed;
            index++;
            break;
          }
          // RFC 9112 §7.1.1: extensions are tokens, quoted strings and BWS; controls are not.
          if (fieldValueBytes[byte] !== 1) return this.#fail(index, errorCode.malformedChunkedBody);
          if (++this.#extensionBytes > limits.maxChunkExtensionBytes) {
            return this.#fail(index, errorCode.chunkExtensionTooLong);
          }
          index++;
          break;
        case phaseSizeLineFeed:
          if (byte !== LF) return this.#fail(index, errorCode.malformedChunkedBody);
          index++;
          this.#extensionBytes = 0;
          this.#digits = 0;
          if (this.#size === 0) {
            this.#phase = phaseTrailerLineStart;
          } else {
            this.#remaining = this.#size;
            this.#size = 0;
            this.#phase = phaseData;
          }
          break;
        case phaseData: {
          const take = Math.min(this.#remaining, end - index);
          output.set(input.subarray(index, index + take), this.decodedLength);
          this.decodedLength += take;
          this.#remaining -= take;
          index += take;
          if (this.#remaining === 0) this.#phase = phaseDataCarriageReturn;
          break;
        }
        case phaseDataCarriageReturn:
          if (byte !== CR) return this.#fail(index, errorCode.malformedChunkedBody);
          this.#phase = phaseDataLineFeed;
          index++;
          break;
        case phaseDataLineFeed:
          if (byte !== LF) return this.#fail(index, errorCode.malformedChunkedBody);
          this.#phase = phaseSize;
          index++;
          break;
        case phaseTrailerLineStart:
          if (byte === CR) {
            this.#phase = phaseFinalLineFeed;
            index++;
            break;
          }
          this.#phase = phaseTrailerLine;
          break;
        case phaseTrailerLine:
          if (++this.#trailerBytes > limits.maxTrailerBytes) {
            return this.#fail(index, errorCode.trailerSectionTooLarge);
          }
          if (byte === CR) {
            this.#phase = phaseTrailerLineFeed;
          } else if (fieldValueBytes[byte] !== 1) {
            return this.#fail(index, errorCode.malformedChunkedBody);
          }
          index++;
          break;
        case phaseTrailerLineFeed:
          if (byte !== LF) return this.#fail(index, errorCode.malformedChunkedBody);
          this.#trailerBytes += 1;
          this.#phase = phaseTrailerLineStart;
          index++;
          break;
        default:
          if (byte !== LF) return this.#fail(index, errorCode.malformedChunkedBody);
          this.consumed = index + 1 - start;
          return chunkedComplete;
      }
    }
    this.consumed = end - start;
    return chunkedIncomplete;
  }

  #fail(index: number, code: number): number {
    this.consumed = index;
    return code;
  }
}
