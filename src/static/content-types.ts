const utf8 = "; charset=utf-8";

/**
 * Content types by lower-case extension. Text types carry `charset=utf-8` (RFC 9110 §8.3.2):
 * without it a browser guesses, and a guess of another charset garbles non-ASCII text.
 *
 * @example
 * defaultContentTypes.css; // "text/css; charset=utf-8"
 */
export const defaultContentTypes: Readonly<Record<string, string>> = Object.freeze({
  html: `text/html${utf8}`,
  htm: `text/html${utf8}`,
  css: `text/css${utf8}`,
  js: `text/javascript${utf8}`,
  mjs: `text/javascript${utf8}`,
  cjs: `text/javascript${utf8}`,
  json: `application/json${utf8}`,
  map: `application/json${utf8}`,
  webmanifest: `application/manifest+json${utf8}`,
  txt: `text/plain${utf8}`,
  md: `text/markdown${utf8}`,
  csv: `text/csv${utf8}`,
  xml: `application/xml${utf8}`,
  svg: `image/svg+xml${utf8}`,
  ics: `text/calendar${utf8}`,
  wasm: "application/wasm",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  ico: "image/x-icon",
  bmp: "image/bmp",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  wav: "audio/wav",
  mp4: "video/mp4",
  webm: "video/webm",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
});

/** What a name without a known extension is sent as: bytes, never sniffed into HTML. */
export const fallbackContentType = "application/octet-stream";

/**
 * The content type of file `name` from its extension (`types` first, then the defaults).
 *
 * @example
 * contentTypeFor("index.html"); // "text/html; charset=utf-8"
 * contentTypeFor("data.bin"); // "application/octet-stream"
 */
export function contentTypeFor(name: string, types?: Readonly<Record<string, string>>): string {
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || dot === name.length - 1) return fallbackContentType;
  const extension = name.slice(dot + 1).toLowerCase();
  return (
    (types !== undefined && Object.hasOwn(types, extension) ? types[extension] : undefined) ??
    (Object.hasOwn(defaultContentTypes, extension) ? defaultContentTypes[extension] : undefined) ??
    fallbackContentType
  );
}

/**
 * Whether a type is worth a precompressed variant: text and the structured text formats.
 * Images, fonts (woff2 is compressed already), audio, video and archives are not looked for.
 */
export function isCompressibleType(contentType: string): boolean {
  return (
    contentType.startsWith("text/") ||
    contentType.includes("json") ||
    contentType.includes("xml") ||
    contentType.startsWith("application/javascript") ||
    contentType === "application/wasm" ||
    contentType.startsWith("font/ttf") ||
    contentType.startsWith("font/otf") ||
    contentType === "image/x-icon" ||
    contentType === "image/bmp"
  );
}
