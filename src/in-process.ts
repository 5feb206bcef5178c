import type { Engine, MemoryConnection } from "corral/engine";
import { isTokenCode } from "./field-syntax.ts";
import { decodedResponse } from "./testing/decoded-response.ts";
import { WireResponseReader } from "./testing/wire-response-reader.ts";

const baseUrl = "http://localhost";

/**
 * `fetch`'s options, as `app.request()` takes them: `decompress: false` (as in Bun's `fetch`)
 * keeps a content-coded body as sent.
 *
 * @example
 * const raw = await app.request("/data", { headers: { "accept-encoding": "br" }, decompress: false });
 */
export type InProcessRequestInit = RequestInit & { readonly decompress?: boolean };
const lastChunk = Buffer.from("0\r\n\r\n", "latin1");

/**
 * Serialises `input` as HTTP/1.1 bytes, runs them through an in-memory engine connection (the
 * same parser, limits, workers and handler as a socket) and reads the answer back as a `Response`
 * the way `fetch` reads a socket: it resolves once the head is complete, and the body yields each
 * flushed chunk as it comes. The connection is persistent, like fetch's, so the response headers
 * are those a fetch client gets; the client closes it once the response is complete. A
 * `ReadableStream` body is sent chunked as it is read (as fetch sends it), any other body with a
 * `Content-Length`. `init.signal` aborting closes the connection: a client disconnect.
 */
export async function requestInProcess(
  engine: Engine,
  input: string | URL | Request,
  init?: InProcessRequestInit,
): Promise<Response> {
  const request =
    input instanceof Request
      ? new Request(input, init)
      : new Request(new URL(String(input), baseUrl).href, init);
  // Bun's Request turns a method it does not know into GET ("FOO", "bad method"), and upper-cases
  // "patch": the wire would carry the method as given, and the App answer it (501, 405).
  const method = init?.method === undefined ? request.method : requestMethod(init.method);
  const signal = request.signal;
  signal.throwIfAborted();
  // Read before the body: Bun 1.4.4 drops the Content-Type (with its multipart boundary) that a
  // FormData body gave a Request once the body was read, and the App then saw no type (415).
  const headers = [...request.headers];
  const streamedBody = init?.body instanceof ReadableStream ? request.body : null;
  const body =
    streamedBody !== null || request.body === null
      ? new Uint8Array(0)
      : new Uint8Array(await request.arrayBuffer());
  signal.throwIfAborted();
  const head = requestHead(request.url, headers, method, streamedBody !== null, body.length);
  const source = streamedBody?.getReader();

  let connection: MemoryConnection | undefined;
  const onAbort = () => {
    reader.fail(signal.reason);
    connection?.close();
  };
  const reader = new WireResponseReader(method === "HEAD", {
    settled() {
      signal.removeEventListener("abort", onAbort);
      source?.cancel().catch(() => {});
      // Once the engine's write that completed the response has returned: the client is done.
      queueMicrotask(() => connection?.close());
    },
    cancelled() {
      connection?.close();
    },
  });
  connection = engine.connectInMemory(
    (bytes) => reader.receive(bytes),
    () => reader.closed(),
  );
  signal.addEventListener("abort", onAbort, { once: true });
  connection.send(Buffer.concat([head, body]));
  if (source !== undefined) void sendChunked(source, connection, reader);
  if (init?.decompress === false) return reader.response;
  return reader.response.then(decodedResponse);
}

/** The request line and headers; framing headers are the client's own, as fetch makes them. */
function requestHead(
  target: string,
  headers: readonly (readonly [string, string])[],
  method: string,
  chunked: boolean,
  bodyLength: number,
): Buffer {
  const url = new URL(target);
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  if (!headers.some(([name]) => name === "host")) head += `Host: ${url.host}\r\n`;
  for (const [name, value] of headers) {
    if (name === "content-length" || name === "transfer-encoding") continue;
    head += `${name}: ${value}\r\n`;
  }
  if (chunked) {
    head += "Transfer-Encoding: chunked\r\n";
  } else if (bodyLength > 0 || !["GET", "HEAD"].includes(method)) {
    head += `Content-Length: ${bodyLength}\r\n`;
  }
  return Buffer.from(`${head}\r\n`, "latin1");
}

/** Methods the Fetch standard upper-cases when given in another case; others stay as given. */
const normalizedMethods = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);

/**
 * `method` as fetch would send it (Fetch §2.2.1 "normalize": only the six above are upper-cased),
 * or a `TypeError` when it is no token (RFC 9110 §9.1), which no client could send.
 */
function requestMethod(method: string): string {
  if (!isToken(method)) {
    throw new TypeError(
      `corral: app.request() method must be a token, got ${JSON.stringify(method)}`,
    );
  }
  const upper = method.toUpperCase();
  return normalizedMethods.has(upper) ? upper : method;
}

/** RFC 9110 §5.6.2: one or more tchar. */
function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let index = 0; index < text.length; index++) {
    if (!isTokenCode(text.charCodeAt(index))) return false;
  }
  return true;
}

/** Sends the body chunk by chunk until it ends or the response no longer needs it. */
async function sendChunked(
  source: { read(): Promise<{ readonly done: boolean; readonly value?: Uint8Array }> },
  connection: MemoryConnection,
  reader: WireResponseReader,
): Promise<void> {
  try {
    for (;;) {
      const { done, value } = await source.read();
      if (reader.settled) return;
      if (done || value === undefined) {
        connection.send(lastChunk);
        return;
      }
      if (value.length === 0) continue;
      const size = Buffer.from(`${value.length.toString(16)}\r\n`, "latin1");
      connection.send(Buffer.concat([size, value, crlfBytes]));
    }
  } catch (error) {
    // The body failed mid-way: a client would drop the connection.
    reader.fail(error);
    connection.close();
  }
}

const crlfBytes = Buffer.from("\r\n", "latin1");
