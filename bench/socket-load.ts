import { ResponseReader } from "./response-reader.ts";

/** How long one load may take before it is called stuck (a server under valgrind is slow). */
const loadTimeoutMs = 600_000;

/**
 * Sends `requests` keep-alive `GET target` requests to 127.0.0.1:`port` over `connections`
 * connections, one request in flight on each (as wrk does without pipelining), and resolves once
 * every response came whole. A response other than 200, a connection that closes early, or a load
 * that takes longer than ten minutes rejects: a count of what the server did then would not be
 * the count of answering these requests.
 */
export async function socketLoad(
  port: number,
  target: string,
  requests: number,
  connections: number,
): Promise<void> {
  if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(connections)) {
    throw new Error("bench: a load takes whole numbers of requests and connections");
  }
  const request = new TextEncoder().encode(
    `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
  );
  let sent = 0;
  let answered = 0;
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  const timer = setTimeout(() => reject(new Error("bench: the load took too long")), loadTimeoutMs);
  const sockets: { end(): void }[] = [];
  const sendNext = (socket: { write(bytes: Uint8Array): number }) => {
    if (sent >= requests) return;
    sent++;
    // A request of a few dozen bytes on an idle connection always fits the kernel's buffer.
    if (socket.write(request) !== request.length) reject(new Error("bench: a request was cut"));
  };
  for (let index = 0; index < Math.min(connections, requests); index++) {
    const reader = new ResponseReader();
    const socket = await Bun.connect<undefined>({
      hostname: "127.0.0.1",
      port,
      socket: {
        data(socket, bytes) {
          for (const status of reader.push(bytes)) {
            if (status !== 200) reject(new Error(`bench: the server answered ${status}`));
            answered++;
            if (answered === requests) resolve();
            else sendNext(socket);
          }
        },
        close() {
          if (answered < requests) reject(new Error("bench: the server closed a connection"));
        },
        error(_socket, error) {
          reject(error);
        },
      },
    });
    sockets.push(socket);
    sendNext(socket);
  }
  try {
    await promise;
  } finally {
    clearTimeout(timer);
    for (const socket of sockets) socket.end();
  }
}
