import {
  boundaryOf,
  checkMultipartLimits,
  MultipartError,
  type MultipartLimits,
  type PartHeaders,
  parsePartHeaders,
} from "./multipart.ts";

/** Where the reader is in the body. */
type Phase = "preamble" | "delimiterLine" | "headers" | "content" | "epilogue" | "done";

const carriageReturn = 0x0d;
const lineFeed = 0x0a;
const dash = 0x2d;

/** Where request-body pieces come from: `RequestBody.next()` (each valid until the next call). */
export interface PieceSource {
  next(): Promise<Uint8Array | null>;
}

/**
 * One part of a streamed multipart body: its headers, parsed and validated as `multipart()`
 * does, and its content read piece by piece with `content()` (each piece borrowed until the next
 * is asked for). Moving to the next part skips what was not read; reading a part's content after
 * that is a `TypeError`, so a handler that kept parts to read later finds out, not empty content.
 *
 * @example
 * for await (const piece of part.content()) hash.update(piece);
 */
export class StreamedPart implements PartHeaders {
  readonly name: string;
  readonly filename: string | undefined;
  readonly contentType: string | undefined;
  readonly #reader: MultipartStream;
  readonly #index: number;

  /** @internal Made by `MultipartStream`. */
  constructor(headers: PartHeaders, reader: MultipartStream, index: number) {
    this.name = headers.name;
    this.filename = headers.filename;
    this.contentType = headers.contentType;
    this.#reader = reader;
    this.#index = index;
  }

  /**
   * The part's content, piece by piece; a malformed body rejects with `MultipartError`, and a
   * part passed by asking for the next one rejects with a `TypeError`.
   */
  async *content(): AsyncIterableIterator<Uint8Array> {
    for (;;) {
      const piece = await this.#reader.contentPiece(this.#index, this.name);
      if (piece === null) return;
      yield piece;
    }
  }
}

/**
 * A `multipart/form-data` body (RFC 7578, RFC 2046 §5.1) read as it arrives: parts in order, each
 * part's content streamed with the body's own backpressure. Memory is the part-header buffer
 * (`maxPartHeaderBytes`) and a few bytes of a delimiter split between two pieces; content is
 * handed over as views of the request's pieces. The part count and part-header limits hold as
 * in `multipart()`; a malformed body rejects the read in progress with `MultipartError`.
 *
 * @example
 * for await (const part of ctx.request.multipartStream()) {
 *   for await (const piece of part.content()) size += piece.length;
 * }
 */
export class MultipartStream implements AsyncIterable<StreamedPart> {
  readonly #source: PieceSource;
  readonly #limits: MultipartLimits;
  /** CRLF "--" boundary: what ends a part's content. */
  readonly #delimiter: Buffer;
  readonly #dashBoundary: Buffer;
  /** A delimiter prefix that ended the previous piece (always starting with CR). */
  readonly #carry: Uint8Array;
  #carryLength = 0;
  /** Leading bytes of the carry that are not in the body: a CRLF assumed before a delimiter. */
  #carryAssumed = 0;
  /** The part's header section, after the CRLF that ended its delimiter line. */
  readonly #headers: Buffer;
  #headerLength = 0;
  #piece: Buffer = Buffer.alloc(0);
  /**
   * The same piece as it came, a plain Uint8Array: content is handed out as views of it, since a
   * Buffer's slice() is a view where a Uint8Array's copies (a handler keeping a piece by slice()
   * would keep bytes the next piece overwrites).
   */
  #plainPiece: Uint8Array = new Uint8Array(0);
  #offset = 0;
  #phase: Phase = "preamble";
  /** Bytes of the delimiter line seen after the boundary (to tell `--` from padding). */
  #lineBytes = 0;
  /** The delimiter line began with `--`: the close delimiter. */
  #closing = false;
  /** The delimiter line began with one dash: a second must follow. */
  #firstDash = false;
  /** The delimiter line's CR came: only LF may follow. */
  #lineCarriageReturn = false;
  #parts = 0;
  /** The number of the part whose content may be read; 0 once `next()` has passed it. */
  #current = 0;

  constructor(source: PieceSource, contentType: string, limits: MultipartLimits) {
    checkMultipartLimits(limits);
    this.#source = source;
    this.#limits = limits;
    this.#delimiter = Buffer.from(`\r\n--${boundaryOf(contentType)}`, "latin1");
    this.#dashBoundary = this.#delimiter.subarray(2);
    this.#carry = new Uint8Array(this.#delimiter.length);
    // The opening delimiter may start the body bare: read it as if a CRLF came before.
    this.#assumeLineEnd();
    this.#headers = Buffer.alloc(limits.maxPartHeaderBytes + 4);
  }

  /** The next part (its headers read and validated), or null after the last one. */
  async next(): Promise<StreamedPart | null> {
    this.#current = 0;
    while (this.#phase === "content" || this.#phase === "preamble") await this.#contentPiece();
    while (this.#phase === "delimiterLine" || this.#phase === "headers") {
      if (this.#offset >= this.#piece.length && !(await this.#fill())) {
        // RFC 2046 §5.1.1: the close delimiter may end the body without a CRLF.
        if (this.#closing && !this.#lineCarriageReturn) return null;
        throw new MultipartError("missingClosingDelimiter", "body ends after a delimiter");
      }
      const headers = this.#scanLine();
      if (headers !== null) {
        this.#current = this.#parts;
        return new StreamedPart(headers, this, this.#parts);
      }
    }
    while (this.#phase === "epilogue") {
      if (!(await this.#fill())) this.#phase = "done";
    }
    return null;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamedPart> {
    for (;;) {
      const part = await this.next();
      if (part === null) return;
      yield part;
    }
  }

  /** @internal The next content piece of part `index`, or null at its end. */
  async contentPiece(index: number, name: string): Promise<Uint8Array | null> {
    if (index !== this.#current) {
      throw new TypeError(
        `corral: multipart part ${JSON.stringify(name)} was passed: read a part's content ` +
          "before asking for the next part",
      );
    }
    while (this.#phase === "content") {
      const piece = await this.#contentPiece();
      if (piece !== null && piece.length > 0) return piece;
    }
    return null;
  }

  /** Reads content (or preamble) up to the next delimiter: a piece, empty for none yet, or null. */
  async #contentPiece(): Promise<Uint8Array | null> {
    const preamble = this.#phase === "preamble";
    if (this.#offset >= this.#piece.length && !(await this.#fill())) {
      throw preamble
        ? new MultipartError("missingOpeningDelimiter", "no delimiter in the body")
        : new MultipartError("missingClosingDelimiter", "body ends inside a part");
    }
    const piece = this.#piece;
    const delimiter = this.#delimiter;
    if (this.#carryLength > 0) {
      const carried = this.#carryLength;
      const wanted = delimiter.length - carried;
      const available = Math.min(wanted, piece.length - this.#offset);
      let matches = true;
      for (let index = 0; matches && index < available; index++) {
        matches = piece[this.#offset + index] === delimiter[carried + index];
      }
      if (matches && available === wanted) {
        this.#carryLength = 0;
        this.#carryAssumed = 0;
        this.#offset += wanted;
        this.#delimiterFound();
        return null;
      }
      if (matches) {
        this.#carry.set(piece.subarray(this.#offset, this.#offset + available), carried);
        this.#carryLength += available;
        this.#offset += available;
        return new Uint8Array(0);
      }
      // Not a delimiter after all: the carried bytes were content (a copy of a few bytes), but
      // for an assumed CRLF, which was never in the body.
      const assumed = this.#carryAssumed;
      this.#carryLength = 0;
      this.#carryAssumed = 0;
      return preamble ? new Uint8Array(0) : this.#carry.slice(assumed, carried);
    }
    const start = this.#offset;
    const found = piece.indexOf(delimiter, start);
    if (found >= 0) {
      this.#offset = found + delimiter.length;
      this.#delimiterFound();
      return preamble ? null : this.#plainPiece.subarray(start, found);
    }
    // A delimiter may begin in the last bytes: keep them aside until the next piece says.
    let end = piece.length;
    const tail = Math.max(start, piece.length - delimiter.length + 1);
    const lastCarriageReturn = piece.lastIndexOf(carriageReturn, piece.length - 1);
    if (lastCarriageReturn >= tail) {
      const length = piece.length - lastCarriageReturn;
      if (piece.compare(delimiter, 0, length, lastCarriageReturn, piece.length) === 0) {
        this.#carry.set(piece.subarray(lastCarriageReturn), 0);
        this.#carryLength = length;
        this.#carryAssumed = 0;
        end = lastCarriageReturn;
      }
    }
    this.#offset = piece.length;
    return preamble ? new Uint8Array(0) : this.#plainPiece.subarray(start, end);
  }

  /** Reads on as if a CRLF had just come: a delimiter may follow at once. */
  #assumeLineEnd(): void {
    this.#carry.set([carriageReturn, lineFeed], 0);
    this.#carryLength = 2;
    this.#carryAssumed = 2;
  }

  #delimiterFound(): void {
    this.#phase = "delimiterLine";
    this.#lineBytes = 0;
    this.#closing = false;
    this.#firstDash = false;
    this.#lineCarriageReturn = false;
  }

  /**
   * Reads the rest of a delimiter line and the part's header section from the current piece;
   * returns the headers once the empty line ends them, else null (more bytes needed).
   */
  #scanLine(): PartHeaders | null {
    const piece = this.#piece;
    while (this.#offset < piece.length) {
      const byte = piece[this.#offset++]!;
      if (this.#phase === "delimiterLine") {
        // "--" right after the boundary closes the body; then padding, CR, LF.
        const position = ++this.#lineBytes;
        if (position === 1 && byte === dash) {
          this.#firstDash = true;
          continue;
        }
        if (position === 2 && this.#firstDash) {
          if (byte !== dash) this.#malformedDelimiter();
          this.#closing = true;
          continue;
        }
        if (this.#lineCarriageReturn) {
          if (byte !== lineFeed) this.#malformedDelimiter();
        } else if (byte === 0x20 || byte === 0x09) {
          continue;
        } else if (byte === carriageReturn) {
          this.#lineCarriageReturn = true;
          continue;
        } else {
          this.#malformedDelimiter();
        }
        if (this.#closing) {
          this.#phase = "epilogue";
          return null;
        }
        if (this.#parts >= this.#limits.maxParts) {
          throw new MultipartError("tooManyParts", `more than ${this.#limits.maxParts} parts`);
        }
        this.#phase = "headers";
        this.#headers.set([carriageReturn, lineFeed], 0);
        this.#headerLength = 2;
        continue;
      }
      const headers = this.#headers;
      if (this.#headerLength === headers.length) {
        throw new MultipartError("headerSectionTooLarge", "part headers over the limit");
      }
      headers[this.#headerLength++] = byte;
      const length = this.#headerLength;
      if (
        byte === lineFeed &&
        headers[length - 2] === carriageReturn &&
        headers[length - 3] === lineFeed &&
        headers[length - 4] === carriageReturn
      ) {
        const parsed = parsePartHeaders(headers, 2, length - 4, this.#dashBoundary);
        this.#parts++;
        this.#phase = "content";
        // body-part := MIME-part-headers [CRLF *OCTET] (RFC 2046 §5.1.1): with no body, the CRLF
        // just read was the one starting the next delimiter, so "--boundary" may come at once.
        this.#assumeLineEnd();
        return parsed;
      }
    }
    return null;
  }

  #malformedDelimiter(): never {
    throw new MultipartError("malformedDelimiter", "unexpected bytes after a delimiter");
  }

  /** Takes the next request piece; false at the end of the body. */
  async #fill(): Promise<boolean> {
    const piece = await this.#source.next();
    if (piece === null) return false;
    this.#piece = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    this.#plainPiece = piece;
    this.#offset = 0;
    return true;
  }
}
