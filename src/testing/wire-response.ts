/**
 * Reads the last final response out of the bytes of one HTTP/1.1 connection (interim 1xx
 * responses are skipped) into a standard `Response`. The connection was closed, so a body
 * without framing runs to the end.
 */
export function readWireResponse(bytes: Uint8Array, isHeadRequest: boolean): Response {
  const text = Buffer.from(bytes).toString("latin1");
  let offset = 0;
  for (;;) {
    const headEnd = text.indexOf("\r\n\r\n", offset);
    if (headEnd < 0) throw new Error("corral: the engine closed without a complete response");
    const lines = text.slice(offset, headEnd).split("\r\n");
    const status = Number(lines[0]?.split(" ")[1]);
    const headers = new Headers();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers.append(line.slice(0, colon), line.slice(colon + 1).trim());
    }
    const bodyStart = headEnd + 4;
    if (status >= 100 && status < 200) {
      offset = bodyStart;
      continue;
    }
    if (isHeadRequest || status === 204 || status === 304) {
      return new Response(null, { status, headers });
    }
    const body = readBody(bytes, text, bodyStart, headers);
    headers.delete("transfer-encoding");
    return new Response(body, { status, headers });
  }
}

function readBody(bytes: Uint8Array, text: string, start: number, headers: Headers): Uint8Array {
  const length = headers.get("content-length");
  if (length !== null) return bytes.slice(start, start + Number(length));
  if (headers.get("transfer-encoding")?.toLowerCase() !== "chunked") return bytes.slice(start);
  const parts: Uint8Array[] = [];
  let at = start;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (!(size > 0)) break;
    parts.push(bytes.slice(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
