/** What the handshake reads of a request: the engine's `Exchange` has these members. */
export interface HandshakeRequest {
  readonly method: string;
  readonly versionMinor: number;
  findHeader(name: string, from?: number): number;
  headerValue(index: number): string;
}

/** A valid opening handshake (RFC 6455 §4.2.1). */
export interface ValidHandshake {
  readonly kind: "valid";
  /** The client's `Sec-WebSocket-Key`, for the accept value. */
  readonly key: string;
  /** The subprotocols the client offered, in its order of preference (may be empty). */
  readonly protocols: readonly string[];
  /** The `Origin` header, absent for clients that are not browsers. */
  readonly origin: string | undefined;
}

/** A request that is not a valid opening handshake, and the answer it gets. */
export interface RefusedHandshake {
  readonly kind: "refused";
  /** 400, or 426 for a version other than 13 (RFC 6455 §4.4). */
  readonly status: 400 | 426;
  readonly reason: string;
}

export type HandshakeResult = ValidHandshake | RefusedHandshake;

const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** 16 bytes in base64: 22 characters whose last carries 2 bits (so A, Q, g or w), then "==". */
const keyPattern = /^[A-Za-z0-9+/]{21}[AQgw]==$/;

/**
 * Checks a request against the opening handshake of RFC 6455 §4.2.1: GET over HTTP/1.1, an
 * `Upgrade` list with `websocket`, a `Connection` list with `upgrade` (any case), one
 * `Sec-WebSocket-Key` of 16 base64-encoded bytes and `Sec-WebSocket-Version: 13`. Pure; the
 * patterns match short header values and cannot backtrack.
 *
 * @example
 * const result = validateHandshake(exchange);
 * if (result.kind === "refused") answer(result.status);
 */
export function validateHandshake(request: HandshakeRequest): HandshakeResult {
  if (request.method !== "GET") return refused(400, "a WebSocket handshake must be a GET");
  if (request.versionMinor < 1) return refused(400, "a WebSocket handshake needs HTTP/1.1");
  if (!listHas(request, "upgrade", "websocket")) {
    return refused(400, "Upgrade: websocket is missing");
  }
  if (!listHas(request, "connection", "upgrade")) {
    return refused(400, "Connection: upgrade is missing");
  }
  const version = single(request, "sec-websocket-version");
  if (version === null) return refused(400, "Sec-WebSocket-Version is repeated");
  if (version === undefined) return refused(400, "Sec-WebSocket-Version is missing");
  if (version.trim() !== "13") return refused(426, "only Sec-WebSocket-Version 13 is spoken");
  const key = single(request, "sec-websocket-key");
  if (key === null) return refused(400, "Sec-WebSocket-Key is repeated");
  if (key === undefined || !keyPattern.test(key.trim())) {
    return refused(400, "Sec-WebSocket-Key is not 16 bytes in base64");
  }
  const origin = single(request, "origin");
  if (origin === null) return refused(400, "Origin is repeated");
  const protocols: string[] = [];
  for (let index = request.findHeader("sec-websocket-protocol"); index >= 0; ) {
    for (const item of request.headerValue(index).split(",")) {
      const protocol = item.trim();
      if (protocol === "") continue;
      if (!tokenPattern.test(protocol)) return refused(400, "Sec-WebSocket-Protocol is malformed");
      protocols.push(protocol);
    }
    index = request.findHeader("sec-websocket-protocol", index + 1);
  }
  return { kind: "valid", key: key.trim(), protocols, origin };
}

/** The value of a header that may appear once: undefined when absent, null when repeated. */
function single(request: HandshakeRequest, name: string): string | undefined | null {
  const index = request.findHeader(name);
  if (index < 0) return undefined;
  if (request.findHeader(name, index + 1) >= 0) return null;
  return request.headerValue(index);
}

/** Whether some `name` header lists `token` (comma-separated, any case, RFC 9110 §5.6.1). */
function listHas(request: HandshakeRequest, name: string, token: string): boolean {
  for (let index = request.findHeader(name); index >= 0; ) {
    for (const item of request.headerValue(index).split(",")) {
      if (item.trim().toLowerCase() === token) return true;
    }
    index = request.findHeader(name, index + 1);
  }
  return false;
}

function refused(status: 400 | 426, reason: string): RefusedHandshake {
  return { kind: "refused", status, reason };
}

/** RFC 6455 §1.3: the GUID appended to the key before hashing. */
const acceptGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/**
 * The `Sec-WebSocket-Accept` value for a key: base64 of the SHA-1 of key and GUID.
 *
 * @example
 * acceptKey("dGhlIHNhbXBsZSBub25jZQ=="); // "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
 */
export function acceptKey(key: string): string {
  return new Bun.CryptoHasher("sha1").update(key + acceptGuid).digest("base64");
}
