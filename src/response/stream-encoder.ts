import type { Gzip } from "node:zlib";
import { zlibModule } from "../http/zlib-module.ts";

/**
 * Encodes a streamed body as it is written: bytes go in, and each `flush()` gives back what
 * decodes to everything written so far (a sync flush), so a client reads every flushed event at
 * once. `end()` gives the last bytes of the encoding.
 *
 * @example
 * ctx.response.encodeStream(() => zlibStreamEncoder("gzip", () => {}));
 */
export interface StreamEncoder {
  /** Takes (a copy of) `bytes`. */
  write(bytes: Uint8Array): void;
  /** Bytes written since the last flush, not yet encoded out. */
  readonly pendingBytes: number;
  /** The encoded bytes of everything written so far, decodable now. */
  flush(): Promise<Uint8Array>;
  /** The rest of the encoding; nothing may be written after. */
  end(): Promise<Uint8Array>;
  /** Frees the encoder at once (the stream was aborted). */
  destroy(): void;
}

/**
 * The codings `zlibStreamEncoder` makes.
 *
 * @example
 * const coding: StreamCoding = "zstd";
 */
export type StreamCoding = "br" | "zstd" | "gzip";

type ZlibStream = Gzip;

// Fast levels, as for drafted bodies: a stream is encoded while a client waits.
function makeStream(coding: StreamCoding): ZlibStream {
  const { constants, createBrotliCompress, createGzip, createZstdCompress } = zlibModule();
  if (coding === "gzip") return createGzip({ level: 6 });
  if (coding === "br") {
    const params = { [constants.BROTLI_PARAM_QUALITY]: 4 };
    return createBrotliCompress({ params }) as unknown as ZlibStream;
  }
  const params = { [constants.ZSTD_c_compressionLevel]: 3 };
  return createZstdCompress({ params }) as unknown as ZlibStream;
}

/**
 * A `StreamEncoder` on Bun's zlib streams (br, zstd or gzip), which encode on the thread pool.
 * `onClosed` runs once when the encoder ended or was destroyed.
 *
 * @example
 * const encoder = zlibStreamEncoder("br", () => console.log("closed"));
 * encoder.write(new TextEncoder().encode("data: 1\n\n"));
 * const bytes = await encoder.flush();
 */
export function zlibStreamEncoder(coding: StreamCoding, onClosed: () => void): StreamEncoder {
  const stream = makeStream(coding);
  let output: Buffer[] = [];
  let pending = 0;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClosed();
  };
  stream.on("data", (chunk: Buffer) => output.push(chunk));
  stream.on("error", close);
  const take = (): Uint8Array => {
    const taken = output.length === 1 ? output[0]! : Buffer.concat(output);
    output = [];
    pending = 0;
    return taken;
  };
  return {
    write(bytes) {
      pending += bytes.length;
      stream.write(Buffer.from(bytes));
    },
    get pendingBytes() {
      return pending;
    },
    flush() {
      return new Promise((resolve) => stream.flush(() => resolve(take())));
    },
    end() {
      return new Promise((resolve, reject) => {
        stream.once("end", () => {
          close();
          resolve(take());
        });
        stream.once("error", reject);
        stream.end();
      });
    },
    destroy() {
      stream.destroy();
      output = [];
      close();
    },
  };
}
