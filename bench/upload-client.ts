// The client of the `upload` scenario: one PUT of N bytes over a raw socket, generated on the fly
// from one reused block (nothing stored), sent as fast as the server takes it.

/** One upload's outcome, timed from the first byte sent to the close after the answer. */
export interface UploadTiming {
  readonly seconds: number;
  /** The answer's status line and body (the server answers with the size it received). */
  readonly statusLine: string;
  readonly body: string;
}

/** Sends `PUT path` with a `Content-Length` body of `totalBytes` and waits for the answer. */
export async function putGenerated(
  port: number,
  path: string,
  totalBytes: number,
  timeoutMs: number,
): Promise<UploadTiming> {
  const block = new Uint8Array(1024 * 1024).fill(0x61);
  let received = "";
  let drained: (() => void) | null = null;
  let closed: () => void = () => {};
  const closedPromise = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, data) {
        received += Buffer.from(data).toString("latin1");
      },
      drain() {
        drained?.();
      },
      close() {
        drained?.();
        closed();
      },
    },
  });
  const timer = setTimeout(() => socket.terminate(), timeoutMs);
  const started = performance.now();
  socket.write(
    `PUT ${path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\nContent-Length: ${totalBytes}\r\n\r\n`,
  );
  let sent = 0;
  while (sent < totalBytes && socket.readyState === 1) {
    const length = Math.min(block.length, totalBytes - sent);
    let offset = 0;
    while (offset < length) {
      const written = socket.write(block, offset, length - offset);
      if (written < 0) break;
      offset += written;
      if (offset < length) {
        await new Promise<void>((resolve) => {
          drained = resolve;
        });
        drained = null;
        if (socket.readyState !== 1) break;
      }
    }
    sent += offset;
  }
  await closedPromise;
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  const headEnd = received.indexOf("\r\n\r\n");
  return {
    seconds,
    statusLine: received.slice(0, received.indexOf("\r\n")),
    body: headEnd < 0 ? "" : received.slice(headEnd + 4),
  };
}
