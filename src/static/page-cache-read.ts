// A read that never waits for the disk: Linux's preadv2 with RWF_NOWAIT copies what the page
// cache holds and refuses (EAGAIN) where the bytes would have to come from the disk. A piece of a
// large file is then read on the event loop when it is cached (the usual case for files served
// often), a copy of some microseconds, and only a piece that needs the disk goes to Bun's thread
// pool, where it cannot hold up the other connections. Sent off the loop every time, each piece
// cost a round trip between threads (a wake-up, two context switches and a turn of the event
// loop), which made a 10 MiB download cost several times the CPU of its bytes.

/**
 * Reads into `target` from `position` of the open file `fileDescriptor` only what the page cache
 * holds: the bytes read (0 at the end of the file; fewer than asked when only some are cached), or
 * -1 when none could be read without waiting for the disk, or on any error (the caller then reads
 * the usual way, which reports the error).
 */
export type CachedRead = (fileDescriptor: number, target: Uint8Array, position: number) => number;

/** preadv2's flag: return EAGAIN rather than wait for the disk (Linux 4.14). */
const readNoWait = 0x8;

let loaded: CachedRead | null | undefined;

/** The platform's cached read, bound on first use; null where there is none. */
export function loadCachedRead(): CachedRead | null {
  if (loaded === undefined) loaded = bindCachedRead();
  return loaded;
}

/** For tests: `null` reads as a platform without it would; `undefined` binds it again. */
export function overrideCachedRead(read: CachedRead | null | undefined): void {
  loaded = read;
}

function bindCachedRead(): CachedRead | null {
  // Only glibc on Linux is bound: preadv2 is Linux's, and musl names its library otherwise.
  if (process.platform !== "linux") return null;
  try {
    const ffi = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = ffi.dlopen("libc.so.6", {
      preadv2: {
        args: [ffi.FFIType.i32, ffi.FFIType.ptr, ffi.FFIType.i32, ffi.FFIType.i64, ffi.FFIType.i32],
        returns: ffi.FFIType.i64,
      },
    });
    // One struct iovec { void *iov_base; size_t iov_len; }, refilled per call: reads run one at
    // a time on the event loop.
    const vector = new BigUint64Array(2);
    const vectorAddress = ffi.ptr(vector);
    return (fileDescriptor, target, position) => {
      if (target.length === 0) return 0;
      vector[0] = BigInt(ffi.ptr(target));
      vector[1] = BigInt(target.length);
      const count = Number(symbols.preadv2(fileDescriptor, vectorAddress, 1, position, readNoWait));
      return count < 0 ? -1 : count;
    };
  } catch {
    // No bun:ffi (a runtime without it) or no glibc.
    return null;
  }
}
