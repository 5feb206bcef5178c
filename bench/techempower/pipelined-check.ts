import type { Problem } from "./verifier-checks.ts";

const readTimeoutMs = 5000;

/**
 * Sends `depth` `GET /plaintext` requests in one write, as the load does, and checks that `depth`
 * answers come back in order, each `200` with a `Content-Length` body of `Hello, World!`.
 */
export async function checkPipelinedPlaintext(port: number, depth = 16): Promise<Problem[]> {
  const url = `http://127.0.0.1:${port}/plaintext (${depth} pipelined)`;
  const request = `GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
  const { promise, resolve } = Promise.withResolvers<string>();
  let received = "";
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, bytes) {
        received += bytes.toString("latin1");
        if (countAnswers(received).complete >= depth) resolve(received);
      },
      close() {
        resolve(received);
      },
      error() {
        resolve(received);
      },
    },
  });
  socket.write(request.repeat(depth));
  const timer = setTimeout(() => resolve(received), readTimeoutMs);
  const text = await promise;
  clearTimeout(timer);
  socket.end();
  const { complete, problem } = countAnswers(text);
  if (problem !== undefined) return [{ severity: "fail", url, message: problem }];
  if (complete < depth) {
    return [
      {
        severity: "fail",
        url,
        message: `${complete} answers of ${depth} within ${readTimeoutMs} ms`,
      },
    ];
  }
  return [];
}

/** Walks the answers in `text` (Content-Length framing): how many are whole, or what is wrong. */
function countAnswers(text: string): { complete: number; problem?: string } {
  let complete = 0;
  let offset = 0;
  while (offset < text.length) {
    const headEnd = text.indexOf("\r\n\r\n", offset);
    if (headEnd < 0) break;
    const head = text.slice(offset, headEnd);
    if (!head.startsWith("HTTP/1.1 200 "))
      return { complete, problem: `answer ${complete + 1}: ${head.split("\r\n")[0]}` };
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length === null)
      return { complete, problem: `answer ${complete + 1} has no Content-Length` };
    const bodyEnd = headEnd + 4 + Number(length[1]);
    if (bodyEnd > text.length) break;
    if (text.slice(headEnd + 4, bodyEnd) !== "Hello, World!") {
      return { complete, problem: `answer ${complete + 1} body is not "Hello, World!"` };
    }
    complete++;
    offset = bodyEnd;
  }
  return { complete };
}
