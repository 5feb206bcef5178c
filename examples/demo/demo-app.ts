import { App, DecodeError, params } from "corral";
import { indexPage } from "./index-page.ts";

/** The demo's shared state: the greeting and scratch space for decoding. */
export interface DemoShared {
  readonly greeting: string;
  /** Decoded form text is never longer than the raw text, which fits in the body limit. */
  readonly formScratch: Uint8Array;
}

const nameBufferBytes = 1024;
const indexBytes = new TextEncoder().encode(indexPage);
const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new DecodeError("invalidUtf8", "the decoded text is not valid UTF-8");
  }
}

/** Builds the demo App: `GET /` (a page of forms), `GET /hello`, `POST /form`, `POST /upload`. */
export function createDemoApp(): App<DemoShared> {
  const app = new App<DemoShared>({
    shared: { greeting: "Hello, World!", formScratch: new Uint8Array(1024 * 1024) },
  });

  app.route("GET", "/", (ctx) => {
    ctx.response.borrowBody(200, "text/html; charset=utf-8", indexBytes);
  });

  app.route("GET", "/hello", (ctx) => {
    const name = ctx.request.query().firstRaw("name");
    if (name === undefined) {
      ctx.response.text(200, ctx.shared.greeting);
      return;
    }
    const buffer = new Uint8Array(nameBufferBytes);
    let decoded: Uint8Array;
    try {
      decoded = params.percentDecodeInto(name.valueRaw, buffer);
    } catch (error) {
      if (error instanceof DecodeError && error.reason === "bufferTooSmall") {
        throw new DecodeError(
          "bufferTooSmall",
          `the decoded name does not fit in ${nameBufferBytes} bytes`,
        );
      }
      throw error;
    }
    ctx.response.text(200, decodeUtf8(decoded));
  });

  app.route("POST", "/form", (ctx) => {
    const scratch = ctx.shared.formScratch;
    for (const entry of ctx.request.form()) {
      const name = decodeUtf8(params.formDecodeInto(entry.nameRaw, scratch));
      const value = decodeUtf8(params.formDecodeInto(entry.valueRaw, scratch));
      ctx.response.print("{}={}\n", name, value);
    }
    ctx.response.setStatus(200);
  });

  app.route("POST", "/upload", (ctx) => {
    const files = ctx.request.multipart().map((part) => ({
      name: part.name,
      filename: part.filename ?? null,
      contentType: part.contentType ?? null,
      size: part.bytes.length,
      sha256: new Bun.CryptoHasher("sha256").update(part.bytes).digest("hex"),
    }));
    ctx.response.json(200, { files });
  });

  return app;
}
