// What `fetch` does with a content-coded answer: the body is decoded as it is read, and the
// headers stay as sent (Content-Encoding included), so a test sees both.
const decoders: Readonly<Record<string, "gzip" | "deflate" | "brotli" | "zstd">> = {
  gzip: "gzip",
  "x-gzip": "gzip",
  deflate: "deflate",
  br: "brotli",
  zstd: "zstd",
};

/**
 * `response` with its body decoded when its `Content-Encoding` is one coding `fetch` decodes
 * (gzip, deflate, br, zstd); unchanged otherwise (no body, identity, several codings, unknown).
 */
export function decodedResponse(response: Response): Response {
  const coding = response.headers.get("content-encoding")?.trim().toLowerCase();
  const format = coding === undefined ? undefined : decoders[coding];
  if (format === undefined || response.body === null) return response;
  return new Response(response.body.pipeThrough(new DecompressionStream(format)), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
