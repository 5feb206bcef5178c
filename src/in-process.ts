import type { Engine } from "corral/engine";
import { readWireResponse } from "./testing/wire-response.ts";

const baseUrl = "http://localhost";

/**
 * Serialises `input` as HTTP/1.1 bytes, runs them through an in-memory engine connection (the
 * same parser, limits, workers and handler as a socket) and reads the answer back as a `Response`.
 */
export async function requestInProcess(
  engine: Engine,
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  const request =
    input instanceof Request
      ? new Request(input, init)
      : new Request(new URL(String(input), baseUrl).href, init);
  const url = new URL(request.url);
  const body =
    request.body === null ? new Uint8Array(0) : new Uint8Array(await request.arrayBuffer());
  let head = `${request.method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  if (!request.headers.has("host")) head += `Host: ${url.host}\r\n`;
  for (const [name, value] of request.headers) {
    if (name === "connection" || name === "content-length") continue;
    head += `${name}: ${value}\r\n`;
  }
  if (body.length > 0 || !["GET", "HEAD"].includes(request.method)) {
    head += `Content-Length: ${body.length}\r\n`;
  }
  head += "Connection: close\r\n\r\n";
  const bytes = new Uint8Array(Buffer.byteLength(head, "latin1") + body.length);
  bytes.set(Buffer.from(head, "latin1"), 0);
  bytes.set(body, bytes.length - body.length);

  const received: Uint8Array[] = [];
  const closed = Promise.withResolvers<void>();
  const connection = engine.connectInMemory(
    (chunk) => received.push(chunk),
    () => closed.resolve(),
  );
  if (connection === undefined) {
    throw new Error("corral: app.request() found every connection slot taken");
  }
  connection.send(bytes);
  await closed.promise;
  return readWireResponse(Buffer.concat(received), request.method === "HEAD");
}
