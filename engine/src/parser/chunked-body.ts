import { errorCode } from "../errors.ts";
import { fieldValueBytes, hexBytes, hexValue, tokenBytes } from "./character-classes.ts";
import { ChunkExtensionGrammar } from "./chunk-extension.ts";

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
const phaseTrailerName = 7;
const phaseTrailerValue = 8;
const phaseTrailerLineFeed = 9;
const phaseFinalLineFeed = 10;

const CR = 0x0d;
const LF = 0x0a;
const COLON = 0x3a;
/** A chunk size above this many bytes is treated as an overflow, whatever the body limit. */
const largestChunkSize = 2 ** 40;
/**
 * Hex digits a chunk size may have, leading zeros included (2^40 needs 11): without a bound, a
 * size line of 64 MiB of zeros was read to its end, and only the body deadline stopped it.
 */
export const maxChunkSizeDigits = 16;
/**
 * A run of chunk data at most this long is copied byte by byte: a view and a native copy per
 * chunk cost far more than the bytes, and a body of 1-byte chunks made 87,000 views per socket
 * chunk (garbage that grew the resident set by over 100 MiB under four such clients).
 */
const copiedByteByByte = 32;
/**
 * Framing bytes (size lines, extensions, line ends, short data runs) one body decodes before it
 * lets the other connections run: decoding costs about 4 ns a framing byte, and a socket chunk of
 * 1-byte chunks (Bun reads up to 512 KiB at a time, several in a row) held the event loop 20 ms,
 * so a side request waited 30 ms behind one such upload and 140 ms behind four.
 */
export const chunkedFramingBytesPerTurn = 64 * 1024;

/**
 * Incremental decoder for a chunked request body (RFC 9112 §7.1). Decoded data is copied into the
 * caller's `output`; chunk extensions (`ChunkExtensionGrammar`) and trailer fields are checked,
 * bounded and dropped.
 */
export class ChunkedBodyDecoder {
  #phase = phaseSize;
  #digits = 0;
  #size = 0;
  #remaining = 0;
  #extensionBytes = 0;
  #trailerBytes = 0;
  readonly #extension = new ChunkExtensionGrammar();
  /** Decoded body bytes written to the output so far. */
  decodedLength = 0;
  /** Where `output` starts in the decoded body: 0 for whole-body storage, moved for a window. */
  #outputBase = 0;
  /** Input bytes consumed by the last `decode` call. */
  consumed = 0;
  /** Framing bytes still to decode in this turn; kept across bodies, refilled by `nextTurn`. */
  #turnBudget = chunkedFramingBytesPerTurn;

  /**
   * Whether decoding stopped for this turn (`decode` then consumes nothing): the caller goes on
   * at the next turn of the event loop, after `nextTurn`.
   */
  get turnSpent(): boolean {
    return this.#turnBudget <= 0;
  }

  /** A new turn of the event loop: decoding may go on. */
  nextTurn(): void {
    this.#turnBudget = chunkedFramingBytesPerTurn;
  }

  /** Starts a new body. */
  reset(): void {
    this.#phase = phaseSize;
    this.#digits = 0;
    this.#size = 0;
    this.#remaining = 0;
    this.#extensionBytes = 0;
    this.#trailerBytes = 0;
    this.decodedLength = 0;
    this.#outputBase = 0;
    this.consumed = 0;
  }

  /**
   * Makes the next `decode` write from the start of its `output` again (a window reused for each
   * piece of a streamed body); decoding then stops early when the window is full.
   */
  startWindow(): void {
    this.#outputBase = this.decodedLength;
  }

  /** Decoded bytes written to `output` since `reset` or `startWindow`. */
  get windowLength(): number {
    return this.decodedLength - this.#outputBase;
  }

  /**
   * Decodes `input[start, end)` into `output` (whole-body storage, or a window: see
   * `startWindow`). Returns
   * `chunkedIncomplete`, `chunkedComplete` (with `consumed` telling where the body ended), or an
   * engine error code. Stops early, incomplete, once this turn's framing budget is spent (see
   * `turnSpent`).
   */
  decode(
    input: Uint8Array,
    start: number,
    end: number,
    output: Uint8Array,
    limits: ChunkedLimits,
  ): number {
    let index = start;
    if (this.#turnBudget <= 0) return this.#fail(0, chunkedIncomplete);
    while (index < end) {
      const byte = input[index]!;
      switch (this.#phase) {
        case phaseSize:
          if (hexBytes[byte] === 1) {
            this.#size = this.#size * 16 + hexValue(byte);
            if (this.#size > largestChunkSize || ++this.#digits > maxChunkSizeDigits) {
              return this.#fail(index - start, errorCode.malformedChunkedBody);
            }
            index++;
            break;
          }
          if (this.#digits === 0) return this.#fail(index - start, errorCode.malformedChunkedBody);
          if (this.decodedLength + this.#size > limits.maxBodyBytes) {
            return this.#fail(index - start, errorCode.bodyTooLarge);
          }
          this.#phase = phaseExtension;
          break;
        case phaseExtension:
          if (byte === CR) {
            // RFC 9112 §7.1.1: a ";" with no name, an "=" with no value or an open quoted
            // string cannot end the line; nor can BWS, so "5 " is not a size either. A line
            // without extensions (the common case) skips the grammar altogether.
            if (this.#extensionBytes > 0 && !this.#extension.complete) {
              return this.#fail(index - start, errorCode.malformedChunkedBody);
            }
            this.#phase = phaseSizeLineFeed;
            index++;
            break;
          }
          if (this.#extensionBytes === 0) this.#extension.reset();
          // After the size only BWS and ";" may come, so "0x5" is a malformed size.
          if (!this.#extension.take(byte)) {
            return this.#fail(index - start, errorCode.malformedChunkedBody);
          }
          if (++this.#extensionBytes > limits.maxChunkExtensionBytes) {
            return this.#fail(index - start, errorCode.chunkExtensionTooLong);
          }
          index++;
          break;
        case phaseSizeLineFeed:
          if (byte !== LF) return this.#fail(index - start, errorCode.malformedChunkedBody);
          index++;
          // The size line, the data's line end, and a short data run copied byte by byte.
          this.#turnBudget -=
            this.#digits + this.#extensionBytes + 4 + Math.min(this.#size, copiedByteByByte);
          this.#extensionBytes = 0;
          this.#digits = 0;
          if (this.#size === 0) {
            this.#phase = phaseTrailerLineStart;
          } else {
            this.#remaining = this.#size;
            this.#size = 0;
            this.#phase = phaseData;
          }
          if (this.#turnBudget <= 0) return this.#fail(index - start, chunkedIncomplete);
          break;
        case phaseData: {
          const offset = this.decodedLength - this.#outputBase;
          // Whole-body storage always has room (the size was checked); a window may be full.
          const take = Math.min(this.#remaining, end - index, output.length - offset);
          if (take === 0) return this.#fail(index - start, chunkedIncomplete);
          if (take <= copiedByteByByte) {
            for (let copied = 0; copied < take; copied++) {
              output[offset + copied] = input[index + copied]!;
            }
          } else {
            output.set(input.subarray(index, index + take), offset);
          }
          this.decodedLength += take;
          this.#remaining -= take;
          index += take;
          if (this.#remaining === 0) this.#phase = phaseDataCarriageReturn;
          break;
        }
        case phaseDataCarriageReturn:
          if (byte !== CR) return this.#fail(index - start, errorCode.malformedChunkedBody);
          this.#phase = phaseDataLineFeed;
          index++;
          break;
        case phaseDataLineFeed:
          if (byte !== LF) return this.#fail(index - start, errorCode.malformedChunkedBody);
          this.#phase = phaseSize;
          index++;
          break;
        case phaseTrailerLineStart:
          if (byte === CR) {
            this.#phase = phaseFinalLineFeed;
            index++;
            break;
          }
          // RFC 9112 §7.1.2 and §5: a trailer line is a field line: a token name right before
          // the colon, so no obs-fold, no whitespace before the colon, no empty name.
          if (tokenBytes[byte] !== 1) {
            return this.#fail(index - start, errorCode.malformedChunkedBody);
          }
          this.#phase = phaseTrailerName;
          break;
        case phaseTrailerName:
          // The trailer section counts every byte of its field lines, CRLFs included.
          if (++this.#trailerBytes > limits.maxTrailerBytes) {
            return this.#fail(index - start, errorCode.trailerSectionTooLarge);
          }
          if (byte === COLON) {
            this.#phase = phaseTrailerValue;
          } else if (tokenBytes[byte] !== 1) {
            return this.#fail(index - start, errorCode.malformedChunkedBody);
          }
          index++;
          break;
        case phaseTrailerValue:
          if (++this.#trailerBytes > limits.maxTrailerBytes) {
            return this.#fail(index - start, errorCode.trailerSectionTooLarge);
          }
          if (byte === CR) {
            this.#phase = phaseTrailerLineFeed;
          } else if (fieldValueBytes[byte] !== 1) {
            return this.#fail(index - start, errorCode.malformedChunkedBody);
          }
          index++;
          break;
        case phaseTrailerLineFeed:
          if (++this.#trailerBytes > limits.maxTrailerBytes) {
            return this.#fail(index - start, errorCode.trailerSectionTooLarge);
          }
          if (byte !== LF) return this.#fail(index - start, errorCode.malformedChunkedBody);
          this.#phase = phaseTrailerLineStart;
          index++;
          break;
        default:
          if (byte !== LF) return this.#fail(index - start, errorCode.malformedChunkedBody);
          this.consumed = index + 1 - start;
          return chunkedComplete;
      }
    }
    this.consumed = end - start;
    return chunkedIncomplete;
  }

  /** Records how far decoding got (`consumed` bytes from `start`) and returns the error. */
  #fail(consumed: number, code: number): number {
    this.consumed = consumed;
    return code;
  }
}
