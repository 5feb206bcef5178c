/** A client on Bun's own `WebSocket` that records what it receives (text as strings). */
export interface WebSocketMember {
  readonly socket: WebSocket;
  readonly received: Array<string | Uint8Array>;
}

/** Opens Bun's `WebSocket` to `url` and waits until it is open. */
export async function openMember(url: string): Promise<WebSocketMember> {
  const socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  const received: Array<string | Uint8Array> = [];
  socket.addEventListener("message", (event) =>
    received.push(typeof event.data === "string" ? event.data : new Uint8Array(event.data)),
  );
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve);
    socket.addEventListener("error", reject);
  });
  return { socket, received };
}

/** Waits until `condition` holds, polling; fails after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}
