// sendfile(2) for file bodies: the kernel moves the file's pages to the socket, so a large file
// never passes through the process. `Bun.listen` sockets offer no sendfile of their own (Bun.serve
// uses it for `Bun.file` bodies); their descriptor is there at run time, and libc's sendfile is
// one `bun:ffi` symbol away. Loaded on the first file body, not at startup: `bun:ffi` and the
// symbol cost about 2.4 MiB of resident memory and a few milliseconds, which a server that never
// sends a file should not pay.

/**
 * Sends up to `count` bytes of the file `fileDescriptor` from `position` to the socket
 * `socketDescriptor`; returns the bytes the kernel took, 0 at the end of the file, or a negative
 * number when it took none (a full socket buffer on a non-blocking socket, or an error: the
 * caller then writes through the socket, which tells the two apart).
 */
export type SendFile = (
  socketDescriptor: number,
  fileDescriptor: number,
  position: number,
  count: number,
) => number;

/** Linux caps one sendfile call at this many bytes. */
const maxCountPerCall = 0x7fff_f000;

let loaded: SendFile | null | undefined;

/** The platform's sendfile, loaded on first use; null where there is none (then files are read). */
export function loadSendFile(): SendFile | null {
  if (loaded === undefined) loaded = bindSendFile();
  return loaded;
}

/** For tests: `null` serves files as a platform without sendfile would; `undefined` restores. */
export function overrideSendFile(sendFile: SendFile | null | undefined): void {
  loaded = sendFile;
}

function bindSendFile(): SendFile | null {
  // Only Linux's signature is bound: macOS and the BSDs have other arguments.
  if (process.platform !== "linux") return null;
  try {
    const ffi = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = ffi.dlopen("libc.so.6", {
      sendfile: {
        args: [ffi.FFIType.i32, ffi.FFIType.i32, ffi.FFIType.ptr, ffi.FFIType.u64],
        returns: ffi.FFIType.i64,
      },
    });
    // The offset sendfile reads (and advances, which is not used: the caller keeps its own).
    const offset = new BigInt64Array(1);
    return (socketDescriptor, fileDescriptor, position, count) => {
      offset[0] = BigInt(position);
      return Number(
        symbols.sendfile(
          socketDescriptor,
          fileDescriptor,
          ffi.ptr(offset),
          Math.min(count, maxCountPerCall),
        ),
      );
    };
  } catch {
    // No bun:ffi (a runtime without it) or no glibc (musl names its library otherwise).
    return null;
  }
}
