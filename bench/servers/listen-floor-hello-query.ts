// The floor of the transport for the App scenarios: a `Bun.listen` server that does only what no
// HTTP server on `Bun.listen` can skip. It never parses: for every request in a chunk (counted by
// its blank line, which is all a GET without a body has) it writes the one response made at
// start, the responses of one chunk in one write (as corral batches pipelined answers). Its
// `Date` is fixed. No corral server can beat this row; it shows how much of a request's time the
// transport (system calls, Bun's socket layer) takes before any framework work, and so how far
// above `Bun.serve` a server on `Bun.listen` can get on this machine.
import { announceReady, parsePort } from "./cli.ts";
import { nameContentType, nameQueryValue } from "./payloads.ts";

/** The most responses one chunk can ask for at once (wrk pipelines 16). */
const maxPerChunk = 64;
const response = new TextEncoder().encode(
  `HTTP/1.1 200 OK\r\nContent-Type: ${nameContentType}\r\nContent-Length: ${nameQueryValue.length}\r\n` +
    `Date: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n${nameQueryValue}`,
);
const responses = new Uint8Array(response.length * maxPerChunk);
for (let index = 0; index < maxPerChunk; index++) responses.set(response, index * response.length);

const blankLine = [13, 10, 13, 10];

const listener = Bun.listen<{ matched: number }>({
  hostname: "127.0.0.1",
  port: parsePort(),
  socket: {
    open(socket) {
      socket.data = { matched: 0 };
    },
    data(socket, chunk) {
      // How much of `\r\n\r\n` the bytes so far end with: a blank line split between two
      // chunks still counts once.
      let matched = socket.data.matched;
      let count = 0;
      for (let index = 0; index < chunk.length; index++) {
        const byte = chunk[index];
        if (byte === blankLine[matched]) matched++;
        else matched = byte === 13 ? 1 : 0;
        if (matched === 4) {
          count++;
          matched = 0;
        }
      }
      socket.data.matched = matched;
      if (count > 0) socket.write(responses, 0, Math.min(count, maxPerChunk) * response.length);
    },
  },
});
announceReady(listener.port);
