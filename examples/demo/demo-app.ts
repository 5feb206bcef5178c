import { App, DecodeError, params } from "corral";
import { indexPage } from "./index-page.ts";

/** The demo's shared state: the greeting and scratch space for decoding. */
export interface DemoShared {
  readonly greeting: string;
  /**
   * Where a name is decoded, and the most its decoded bytes may take. Shared: the handler decodes
   * and answers without awaiting, so no other request uses it meanwhile.
   */
  readonly nameScratch: Uint8Array;
  /** Decoded form text is never longer than the raw text, which fits in the body limit. */
  readonly formScratch: Uint8Array;
}

const nameBufferBytes = 1024;
const textEncoder = new TextEncoder();
const indexBytes = textEncoder.encode(indexPage);

/** Builds the demo App: `GET /` (a page of forms), `GET /hello`, `POST /form`, `POST /upload`. */
export function createDemoApp(): App<DemoShared> {
  const app = new App<DemoShared>({
    shared: {
      greeting: "Hello, World!",
      nameScratch: new Uint8Array(nameBufferBytes),
      formScratch: new Uint8Array(1024 * 1024),
    },
  });

  app.route("GET", "/", (ctx) => {
    ctx.response.borrowBody(200, "text/html; charset=utf-8", indexBytes);
  });

  app.route("GET", "/hello", (ctx) => {
    const name = ctx.request.queryValueRaw("name");
    if (name === undefined) {
      ctx.response.text(200, ctx.shared.greeting);
      return;
    }
    let text: string;
    try {
      // Percent-escapes decoded, `+` kept, UTF-8 checked: a malformed name is a DecodeError (400).
      text = params.percentDecodeText(name, ctx.shared.nameScratch);
    } catch (error) {
      if (error instanceof DecodeError && error.reason === "bufferTooSmall") {
        throw new DecodeError(
          "bufferTooSmall",
          `the decoded name does not fit in ${nameBufferBytes} bytes`,
        );
      }
      throw error;
    }
    ctx.response.text(200, text);
  });

  // A 1 MiB body (maxBodyBytes) can echo to more than the 64 KiB response staging holds, which
  // drafted whole was a 500 past 64 KiB of form: the form's echo is streamed.
  app.route("POST", "/form", async (ctx) => {
    const scratch = ctx.shared.formScratch;
    const form = ctx.request.form();
    const writer = ctx.response.stream(200, "text/plain; charset=utf-8").writer();
    for (const entry of form) {
      const name = params.formDecodeText(entry.nameRaw, scratch);
      const value = params.formDecodeText(entry.valueRaw, scratch);
      await writer.writeAll(`${name}=${value}\n`);
    }
  });

  // The upload's summary is built at once and borrowed, not staged: streamed part by part, its
  // awaits kept 32 concurrent uploads' parts and hashers alive across turns (5-8 MiB more peak
  // resident set under test/abuse/memory-budget.test.ts's flood).
  app.route("POST", "/upload", (ctx) => {
    const files = ctx.request.multipart().map((part) => ({
      name: part.name,
      filename: part.filename ?? null,
      contentType: part.contentType ?? null,
      size: part.bytes.length,
      sha256: new Bun.CryptoHasher("sha256").update(part.bytes).digest("hex"),
    }));
    ctx.response.borrowBody(200, "application/json", textEncoder.encode(JSON.stringify({ files })));
  });

  return app;
}
