import { closeCodes, isValidCloseCode } from "./close-codes.ts";
import { unmaskInPlace, unmaskInto, unmaskWhole, wordsOf } from "./unmask.ts";
import { Utf8Validator } from "./utf8-validator.ts";

/** Every byte given was used; call again with more. */
export const frameNeedMore = 0;
/**
 * A run of data payload, unmasked in place: `bytes[payloadStart, payloadEnd)`; or, when
 * `payloadCopied`, a whole message unmasked into `copyTarget[payloadStart, payloadEnd)`.
 */
export const frameData = 1;
/** A whole control frame: `controlOpcode` and `controlPayload()`. */
export const frameControl = 2;
/** The peer broke the protocol or a limit: close with `closeCode` (`errorReason` says why). */
export const frameError = 3;

export const opcodeContinuation = 0x0;
export const opcodeText = 0x1;
export const opcodeBinary = 0x2;
export const opcodeClose = 0x8;
export const opcodePing = 0x9;
export const opcodePong = 0xa;

/** The limits the frame parser enforces, each checked before a byte of payload is kept. */
export interface FrameLimits {
  /** Payload bytes of one message, over all its fragments; over it: 1009. */
  readonly maxMessageBytes: number;
  /** Payload bytes of one data frame; over it: 1009. */
  readonly maxFrameBytes: number;
  /** Data frames one message may be split into; over it: 1009. */
  readonly maxFragments: number;
}

/** RFC 6455 §5.5: a control frame's payload is at most 125 bytes. */
export const maxControlPayloadBytes = 125;

/**
 * Checks close reasons, which come whole and are checked at once: one for every parser (the
 * text validator of each parser keeps its state between the fragments of a message).
 */
const closeReason = new Utf8Validator();
const noControlPayload = new Uint8Array(0);
const noPayloadCopy = new Uint8Array(0);

const phaseHeader = 0;
const phasePayload = 1;

/**
 * A streaming parser of client-to-server frames (RFC 6455 §5), pure like the HTTP head parser:
 * no socket, no throws, no backtracking. It is fed bytes as they come (a frame may arrive one
 * byte at a time), keeps at most a 14-byte header and a 125-byte control payload of its own,
 * and hands data payload back as runs of the caller's bytes, unmasked in place. Every rule is
 * checked at the byte that breaks it: reserved bits and opcodes, the mask, control frame size
 * and fragmentation, minimal length encoding, the limits (before any payload is kept), the
 * order of fragments, UTF-8 of text across fragments, and close frame codes and reasons.
 */
export class FrameParser {
  #limits: FrameLimits;
  #phase = phaseHeader;
  readonly #header = new Uint8Array(14);
  #headerLength = 0;
  #headerNeeded = 2;
  #frameOpcode = 0;
  #frameRemaining = 0;
  readonly #mask = new Uint8Array(4);
  #maskOffset = 0;
  #frameFinal = false;
  #inMessage = false;
  /** The next data run is the first of a new message. */
  #messageStartPending = false;
  #messageBytes = 0;
  #fragments = 0;
  readonly #text = new Utf8Validator();
  /** Made at the first control frame with a payload: most sockets never need it. */
  #control: Uint8Array = noControlPayload;
  #controlLength = 0;

  /** Where the last call stopped: the next byte to give. */
  position = 0;
  /** The data message's opcode (`opcodeText` or `opcodeBinary`) during a `frameData` run. */
  messageOpcode = 0;
  /** `frameData`: this run is the first of its message. */
  messageStarted = false;
  /** `frameData`: this run ends its frame. */
  frameEnded = false;
  /** `frameData`: this run ends its message (a final frame ended). */
  messageEnded = false;
  /** `frameData`: the payload length of the current frame as declared in its header. */
  frameLength = 0;
  payloadStart = 0;
  payloadEnd = 0;
  #copyTarget: Uint8Array = noPayloadCopy;
  #copyWords: Uint32Array | null = null;
  /** `frameData`: this run is a whole message, unmasked into `copyTarget` from 0. */
  payloadCopied = false;
  /** `frameControl`: `opcodeClose`, `opcodePing` or `opcodePong`. */
  controlOpcode = 0;
  /** `frameControl` of a close frame: its code (1005 when it had none). */
  closeCode = 0;
  /** `frameError`: what was wrong, for the close frame's reason and the log. */
  errorReason = "";

  constructor(limits: FrameLimits) {
    this.#limits = limits;
  }

  /**
   * Where a data message that comes whole in one chunk, and fits, is unmasked to (the caller's
   * reserved buffer): one pass over its bytes, where unmasking in place and copying took two.
   */
  get copyTarget(): Uint8Array {
    return this.#copyTarget;
  }

  set copyTarget(target: Uint8Array) {
    this.#copyTarget = target;
    this.#copyWords = wordsOf(target);
  }

  /** Changes the limits (per route); only between connections. */
  setLimits(limits: FrameLimits): void {
    this.#limits = limits;
  }

  /** Forgets everything: a new connection starts. */
  reset(): void {
    this.#phase = phaseHeader;
    this.#headerLength = 0;
    this.#headerNeeded = 2;
    this.#inMessage = false;
    this.#messageStartPending = false;
    this.#messageBytes = 0;
    this.#fragments = 0;
    this.#text.reset();
    this.position = 0;
  }

  /** Whether a fragmented message is in progress (its first frame came, its last not yet). */
  get inMessage(): boolean {
    return this.#inMessage;
  }

  /** The payload of the last control frame (a view of the parser's own storage). */
  controlPayload(): Uint8Array {
    return this.#control.subarray(0, this.#controlLength);
  }

  /** For a close frame: the reason's bytes (after the 2-byte code). */
  closeReason(): Uint8Array {
    return this.#control.subarray(Math.min(2, this.#controlLength), this.#controlLength);
  }

  /**
   * Parses `bytes[start, end)` from where the previous call stopped; returns one event and sets
   * `position` to the first byte not used. `bytes` must be the caller's to change: data payload
   * is unmasked in place.
   */
  parse(bytes: Uint8Array, start: number, end: number): number {
    let position = start;
    while (position < end) {
      if (this.#phase === phaseHeader) {
        const header = this.#header;
        while (this.#headerLength < this.#headerNeeded && position < end) {
          header[this.#headerLength++] = bytes[position++]!;
          // The mask's four bytes end every header and have nothing to check.
          if (this.#headerLength > 2 && this.#headerLength > this.#headerNeeded - 4) continue;
          const failure = this.#checkHeaderByte();
          if (failure !== 0) {
            this.position = position;
            return frameError;
          }
        }
        if (this.#headerLength < this.#headerNeeded) break;
        this.payloadStart = position;
        this.payloadEnd = position;
        const event = this.#headerDone(bytes);
        if (event !== frameNeedMore) {
          this.position = position;
          return event;
        }
        continue;
      }
      const take = Math.min(end - position, this.#frameRemaining);
      if (this.#frameOpcode >= opcodeClose) {
        this.#maskOffset = unmaskInto(
          bytes,
          position,
          take,
          this.#control,
          this.#controlLength,
          this.#mask,
          this.#maskOffset,
        );
        this.#controlLength += take;
        position += take;
        this.#frameRemaining -= take;
        if (this.#frameRemaining > 0) break;
        this.position = position;
        return this.#controlDone();
      }
      if (this.#messageStartPending && this.#frameFinal && take === this.frameLength) {
        const target = this.#copyTarget;
        if (take <= target.length) {
          unmaskWhole(bytes, position, take, target, this.#copyWords, this.#mask);
          this.payloadStart = 0;
          this.payloadEnd = take;
          this.payloadCopied = true;
          this.#frameRemaining = 0;
          this.position = position + take;
          return this.#dataRun(target);
        }
      }
      this.#maskOffset = unmaskInPlace(bytes, position, take, this.#mask, this.#maskOffset);
      this.payloadCopied = false;
      this.payloadStart = position;
      this.payloadEnd = position + take;
      position += take;
      this.#frameRemaining -= take;
      this.position = position;
      return this.#dataRun(bytes);
    }
    this.position = position;
    return frameNeedMore;
  }

  /** Checks the header byte just stored; nonzero (and `errorReason` set) when it is wrong. */
  #checkHeaderByte(): number {
    const header = this.#header;
    const index = this.#headerLength - 1;
    if (index === 0) {
      const first = header[0]!;
      const opcode = first & 0x0f;
      // §5.2: RSV1-3 must be 0 unless an extension defines them; none is negotiated.
      if ((first & 0x70) !== 0) return this.#error(closeCodes.protocolError, "reserved bits set");
      if ((opcode > opcodeBinary && opcode < opcodeClose) || opcode > opcodePong) {
        return this.#error(closeCodes.protocolError, "reserved opcode");
      }
      if (opcode >= opcodeClose) {
        // §5.5: control frames are never fragmented; they may come between fragments.
        if ((first & 0x80) === 0) {
          return this.#error(closeCodes.protocolError, "fragmented control frame");
        }
      } else if (opcode === opcodeContinuation) {
        if (!this.#inMessage) return this.#error(closeCodes.protocolError, "nothing to continue");
      } else if (this.#inMessage) {
        // §5.4: a fragmented message's frames are not interleaved with another message's.
        return this.#error(closeCodes.protocolError, "new message inside a fragmented one");
      }
      return 0;
    }
    if (index === 1) {
      const second = header[1]!;
      // §5.1: a server closes the connection on an unmasked client frame.
      if ((second & 0x80) === 0) return this.#error(closeCodes.protocolError, "unmasked frame");
      const length7 = second & 0x7f;
      if ((header[0]! & 0x0f) >= opcodeClose && length7 > maxControlPayloadBytes) {
        return this.#error(closeCodes.protocolError, "control frame over 125 bytes");
      }
      this.#headerNeeded = 2 + (length7 === 126 ? 2 : length7 === 127 ? 8 : 0) + 4;
      return length7 < 126 ? this.#checkLength() : 0;
    }
    // §5.2: the most significant bit of a 64-bit length must be 0.
    if (index === 2 && (header[1]! & 0x7f) === 127 && header[2]! >= 0x80) {
      return this.#error(closeCodes.protocolError, "64-bit length with the top bit set");
    }
    if (index === this.#headerNeeded - 5) return this.#checkLength();
    return 0;
  }

  /** The length is known (its last byte just came): minimal encoding, then the limits. */
  #checkLength(): number {
    const header = this.#header;
    const length7 = header[1]! & 0x7f;
    let length = length7;
    if (length7 === 126) {
      length = (header[2]! << 8) | header[3]!;
      // §5.2: "the minimal number of bytes MUST be used to encode the length".
      if (length < 126) return this.#error(closeCodes.protocolError, "length not minimal");
    } else if (length7 === 127) {
      const high = ((header[2]! << 24) >>> 0) + (header[3]! << 16) + (header[4]! << 8) + header[5]!;
      const low = ((header[6]! << 24) >>> 0) + (header[7]! << 16) + (header[8]! << 8) + header[9]!;
      length = high * 0x1_0000_0000 + low;
      if (length < 0x1_0000) return this.#error(closeCodes.protocolError, "length not minimal");
    }
    const opcode = header[0]! & 0x0f;
    if (opcode < opcodeClose) {
      const limits = this.#limits;
      if (length > limits.maxFrameBytes) {
        return this.#error(closeCodes.messageTooBig, "frame over maxFrameBytes");
      }
      // A message's first frame starts its counts afresh: the counters still hold the previous
      // message's until #headerDone (counted against them, two 4000-byte messages were a 1009).
      const continuing = opcode === opcodeContinuation;
      const messageBytes = continuing ? this.#messageBytes : 0;
      const fragments = continuing ? this.#fragments : 0;
      if (messageBytes + length > limits.maxMessageBytes) {
        return this.#error(closeCodes.messageTooBig, "message over maxMessageBytes");
      }
      if (fragments + 1 > limits.maxFragments) {
        return this.#error(closeCodes.messageTooBig, "message over maxFragments");
      }
    }
    this.frameLength = length;
    return 0;
  }

  /** The whole header is in: start the frame's payload. */
  #headerDone(bytes: Uint8Array): number {
    const header = this.#header;
    const first = header[0]!;
    const opcode = first & 0x0f;
    const maskAt = this.#headerNeeded - 4;
    this.#mask[0] = header[maskAt]!;
    this.#mask[1] = header[maskAt + 1]!;
    this.#mask[2] = header[maskAt + 2]!;
    this.#mask[3] = header[maskAt + 3]!;
    this.#maskOffset = 0;
    this.#frameOpcode = opcode;
    this.#frameRemaining = this.frameLength;
    this.#headerLength = 0;
    this.#headerNeeded = 2;
    this.#phase = phasePayload;
    this.#frameFinal = (first & 0x80) !== 0;
    if (opcode >= opcodeClose) {
      this.#controlLength = 0;
      if (this.frameLength === 0) return this.#controlDone();
      if (this.#control === noControlPayload)
        this.#control = new Uint8Array(maxControlPayloadBytes);
      return frameNeedMore;
    }
    if (opcode !== opcodeContinuation) {
      this.#messageStartPending = true;
      this.#inMessage = true;
      this.messageOpcode = opcode;
      this.#messageBytes = 0;
      this.#fragments = 0;
      this.#text.reset();
    }
    this.#fragments++;
    this.#messageBytes += this.frameLength;
    if (this.frameLength !== 0) return frameNeedMore;
    this.payloadCopied = false;
    return this.#dataRun(bytes);
  }

  /** A run of data payload was unmasked: validate text, mark the ends. */
  #dataRun(bytes: Uint8Array): number {
    const ended = this.#frameRemaining === 0;
    this.messageStarted = this.#messageStartPending;
    this.#messageStartPending = false;
    if (this.messageOpcode === opcodeText) {
      if (!this.#text.check(bytes, this.payloadStart, this.payloadEnd)) {
        return this.#error(closeCodes.invalidPayload, "invalid UTF-8 in a text message");
      }
    }
    this.frameEnded = ended;
    this.messageEnded = ended && this.#frameFinal;
    if (ended) this.#phase = phaseHeader;
    if (this.messageEnded) {
      this.#inMessage = false;
      if (this.messageOpcode === opcodeText && !this.#text.complete) {
        return this.#error(closeCodes.invalidPayload, "text message ends inside a character");
      }
    }
    return frameData;
  }

  /** A control frame is complete: pings and pongs pass; a close frame's contents are checked. */
  #controlDone(): number {
    this.#phase = phaseHeader;
    const opcode = this.#frameOpcode;
    this.controlOpcode = opcode;
    if (opcode !== opcodeClose) return frameControl;
    const length = this.#controlLength;
    const payload = this.#control;
    if (length === 0) {
      this.closeCode = closeCodes.noStatus;
      return frameControl;
    }
    // §5.5.1: a close body starts with a 2-byte code; one byte cannot be one.
    if (length === 1) return this.#error(closeCodes.protocolError, "close frame of 1 byte");
    const code = (payload[0]! << 8) | payload[1]!;
    if (!isValidCloseCode(code)) return this.#error(closeCodes.protocolError, "invalid close code");
    closeReason.reset();
    if (!closeReason.check(payload, 2, length) || !closeReason.complete) {
      return this.#error(closeCodes.invalidPayload, "invalid UTF-8 in a close reason");
    }
    this.closeCode = code;
    return frameControl;
  }

  #error(code: number, reason: string): number {
    this.closeCode = code;
    this.errorReason = reason;
    return frameError;
  }
}
