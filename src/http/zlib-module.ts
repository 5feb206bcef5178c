import type * as Zlib from "node:zlib";

let loaded: typeof Zlib | undefined;

/**
 * `node:zlib`, loaded on first use. Importing it made an idle App's resident set 1.5 MiB larger
 * and its heap 3,700 objects larger (Bun 1.4.4), which an App that never compresses should not
 * pay; `compress()`, precompressed static variants and encoded streams call this when they first
 * need it.
 */
export function zlibModule(): typeof Zlib {
  loaded ??= require("node:zlib") as typeof Zlib;
  return loaded;
}
