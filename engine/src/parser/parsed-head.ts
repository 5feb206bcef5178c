/** The buffer of a head not parsed yet: one for every slot. */
const noBytes = new Uint8Array(0);
/** The cold offsets of a head whose hot offsets hold every field. */
const noOffsets = new Uint32Array(0);

/**
 * The result of parsing one request head, reused per connection. Every position is an offset
 * relative to `base` in `buffer`, so the head can move from a socket chunk into the connection's
 * head buffer without rewriting offsets. Strings are made only when the application asks.
 */
export class ParsedHead {
  buffer: Uint8Array = noBytes;
  base = 0;
  /** Bytes parsed so far (incremental position) and the start of the line being scanned. */
  scanned = 0;
  lineStart = 0;
  requestLineDone = false;

  /** Where the method starts: after any empty lines sent before the request line (RFC 9112 §2.2). */
  methodStart = 0;
  methodEnd = 0;
  targetStart = 0;
  targetEnd = 0;
  /** Where the path starts inside the target (after scheme and authority for absolute-form). */
  pathStart = 0;
  /** The `?` of the query, or `targetEnd` when there is none. */
  pathEnd = 0;
  /**
   * Whether the scan that found a whole request line's end also checked its target, an origin
   * form (`wholeRequestLineFeed`): the request line's parse then skips the target.
   */
  originTargetChecked = false;
  /** 0 for HTTP/1.0; 1 for HTTP/1.1 and higher 1.x minors (RFC 9110 §6.2: served as 1.1). */
  versionMinor = 1;
  headEnd = 0;

  headerCount = 0;
  /**
   * Four entries per header field (name start, name end, value start, value end) for the first
   * fields; `coldOffsets` holds those of the fields after them (see the constructor).
   */
  readonly hotOffsets: Uint32Array;
  readonly coldOffsets: Uint32Array;

  hostCount = 0;
  /** The Host field's value, once `hostCount` is 1. */
  hostValueStart = 0;
  hostValueEnd = 0;
  contentLength = -1;
  chunked = false;
  transferEncodingSeen = false;
  connectionClose = false;
  connectionKeepAlive = false;
  expectContinue = false;

  /**
   * `hot` and `cold` hold four entries for each of `maxHeaderCount` fields together, the first
   * fields in `hot`. The engine gives each connection views of two arenas made at startup, whose
   * pages stay untouched until used: the first fields of every connection sit side by side, so a
   * head of a few fields touches a few hundred bytes of memory, not the whole share of a
   * `maxHeaderCount`-field head (1.6 KiB with the defaults, for every connection that parsed one).
   */
  constructor(
    maxHeaderCount: number,
    hot: Uint32Array = new Uint32Array(maxHeaderCount * 4),
    cold: Uint32Array = noOffsets,
  ) {
    if (hot.length % 4 !== 0 || hot.length + cold.length < maxHeaderCount * 4) {
      throw new RangeError("corral: the header offsets hold fewer than four per header field");
    }
    this.hotOffsets = hot;
    this.coldOffsets = cold;
  }

  /** Entry `part` (0-3: name start, name end, value start, value end) of field `index`. */
  fieldOffset(index: number, part: number): number {
    const at = index * 4 + part;
    const hot = this.hotOffsets;
    return at < hot.length ? hot[at]! : this.coldOffsets[at - hot.length]!;
  }

  /** Records field `index`: its name and value, as offsets from `base`. */
  setField(
    index: number,
    nameStart: number,
    nameEnd: number,
    valueStart: number,
    valueEnd: number,
  ): void {
    let offsets = this.hotOffsets;
    let at = index * 4;
    if (at >= offsets.length) {
      at -= offsets.length;
      offsets = this.coldOffsets;
    }
    offsets[at] = nameStart;
    offsets[at + 1] = nameEnd;
    offsets[at + 2] = valueStart;
    offsets[at + 3] = valueEnd;
  }

  /** Starts a new head at `base` of `buffer`. */
  reset(buffer: Uint8Array, base: number): void {
    this.buffer = buffer;
    this.base = base;
    this.scanned = 0;
    this.lineStart = 0;
    this.requestLineDone = false;
    this.headerCount = 0;
    this.hostCount = 0;
    this.contentLength = -1;
    this.chunked = false;
    this.transferEncodingSeen = false;
    this.connectionClose = false;
    this.connectionKeepAlive = false;
    this.expectContinue = false;
  }

  /** Whether the request line parsed so far names the HEAD method (its answers carry no content). */
  isHeadMethod(): boolean {
    if (!this.requestLineDone || this.methodEnd - this.methodStart !== 4) return false;
    const buffer = this.buffer;
    const method = this.base + this.methodStart;
    return (
      buffer[method] === 0x48 &&
      buffer[method + 1] === 0x45 &&
      buffer[method + 2] === 0x41 &&
      buffer[method + 3] === 0x44
    );
  }

  /** Whether the connection may carry another request after this one (RFC 9112 §9.3). */
  get keepAlive(): boolean {
    if (this.connectionClose) return false;
    return this.versionMinor >= 1 || this.connectionKeepAlive;
  }
}
