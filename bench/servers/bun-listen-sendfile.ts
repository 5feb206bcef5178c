// The floor under corral's `sendfile: true` on the 10 MiB file: a bare `Bun.listen` server that
// answers `GET /<name>` from the folder of --dir the way the engine sends a file (libc's sendfile
// through `bun:ffi`; when the socket is full, a 16 KiB piece read and written through the socket
// so that Bun arms `drain`, what the socket did not take of it sent again with sendfile after
// `drain`), with none of the engine's bounds, parsing or deadlines. Compared
// with `bun-serve-static-file.ts` in `bench/alternate.ts`, it shows what the technique itself
// costs against Bun.serve's native `Bun.file` answers, apart from the engine and the App.
// Only for this comparison: one request per connection at a time, no pipelining, no errors
// answered but 404.
import { dlopen, FFIType, ptr } from "bun:ffi";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { Socket } from "bun";
import { announceReady, parsePort } from "./cli.ts";
import { parseDirectory, staticFiles } from "./static-files.ts";

const directory = parseDirectory();
const known = new Set<string>(staticFiles.map((file) => file.name));
const libc = dlopen("libc.so.6", {
  sendfile: { args: [FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
});
const piece = new Uint8Array(16 * 1024);
const encoder = new TextEncoder();

interface Download {
  readonly descriptor: number;
  readonly offset: BigInt64Array;
  remaining: number;
}

type DownloadSocket = Socket<Download | null>;

/** The socket's descriptor: there at run time, absent from Bun's typings. */
function descriptorOf(socket: DownloadSocket): number {
  return (socket as unknown as { fd?: number }).fd ?? -1;
}

function finish(socket: DownloadSocket, download: Download): void {
  closeSync(download.descriptor);
  socket.data = null;
}

/** Sends what the socket takes; returns when it is full (drain follows) or the file is sent. */
function pump(socket: DownloadSocket, download: Download): void {
  const fd = descriptorOf(socket);
  while (download.remaining > 0) {
    const wanted = download.remaining;
    const sent = Number(
      libc.symbols.sendfile(fd, download.descriptor, ptr(download.offset), wanted),
    );
    if (sent > 0) {
      download.remaining -= sent;
      if (sent === wanted) break;
    }
    const position = Number(download.offset[0]);
    const length = Math.min(piece.length, download.remaining);
    const read = readSync(download.descriptor, piece, 0, length, position);
    if (read <= 0) {
      // The file shrank under the download: the answer cannot be completed.
      finish(socket, download);
      socket.end();
      return;
    }
    const taken = socket.write(piece.subarray(0, read));
    download.offset[0] = BigInt(position + taken);
    download.remaining -= taken;
    if (taken < read) return;
  }
  if (download.remaining === 0) finish(socket, download);
}

const server = Bun.listen<Download | null>({
  hostname: "127.0.0.1",
  port: parsePort(),
  socket: {
    open(socket) {
      socket.data = null;
    },
    data(socket, chunk) {
      const line = new TextDecoder().decode(chunk.subarray(0, chunk.indexOf(13)));
      const name = line.split(" ")[1]?.slice(1) ?? "";
      if (!known.has(name)) {
        socket.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      const path = `${directory}/${name}`;
      const size = statSync(path).size;
      socket.write(encoder.encode(`HTTP/1.1 200 OK\r\nContent-Length: ${size}\r\n\r\n`));
      const download: Download = {
        descriptor: openSync(path, "r"),
        offset: new BigInt64Array(1),
        remaining: size,
      };
      socket.data = download;
      pump(socket, download);
    },
    drain(socket) {
      if (socket.data !== null) pump(socket, socket.data);
    },
    close(socket) {
      if (socket.data !== null) finish(socket, socket.data);
    },
  },
});
announceReady(server.port);
