// The peer's address on the exchange: what Bun reports for the socket, over real TCP (IPv4 and
// IPv6 loopback), the same for every request of a connection, and undefined in memory.
import { expect, test } from "bun:test";
import { createEngine, type Handler, listen } from "../index.ts";
import { RawClient } from "./support/raw-client.ts";

const peerHandler: Handler = (exchange) => {
  exchange.writeText(
    JSON.stringify([exchange.remoteAddress, exchange.remoteFamily, exchange.remotePort]),
  );
};

async function peersSeen(hostname: string, connectTo: string) {
  // One slot: the second connection reuses it, so a peer kept from the first would show.
  const limits = { maxConnections: 1, workers: 1 };
  const server = listen({ hostname, port: 0, handler: peerHandler, limits, log: null });
  try {
    const seen: unknown[] = [];
    for (let connection = 0; connection < 2; connection++) {
      using client = await RawClient.connect(server.port, connectTo);
      client.send("GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n");
      const answers = await client.responses(2);
      seen.push({
        answers: answers.map((answer) => JSON.parse(answer.text)),
        clientPort: client.localPort,
      });
    }
    return seen;
  } finally {
    await server.stop({ graceMs: 100 });
  }
}

const expectedPeers = (address: string, family: string, seen: unknown[]) =>
  seen.map((each) => {
    const { clientPort } = each as { clientPort: number };
    const peer = [address, family, clientPort];
    return { answers: [peer, peer], clientPort };
  });

test("remoteAddress, remoteFamily and remotePort: the IPv4 peer of each connection", async () => {
  const seen = await peersSeen("127.0.0.1", "127.0.0.1");
  expect(seen).toEqual(expectedPeers("127.0.0.1", "IPv4", seen));
});

test("remoteAddress, remoteFamily and remotePort: the IPv6 peer of each connection", async () => {
  const seen = await peersSeen("::1", "::1");
  expect(seen).toEqual(expectedPeers("::1", "IPv6", seen));
});

test("an in-memory connection has no peer address", async () => {
  const engine = createEngine({ handler: peerHandler, log: null });
  const received: Uint8Array[] = [];
  const connection = engine.connectInMemory(
    (bytes) => received.push(bytes),
    () => {},
  );
  connection!.send(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: h\r\n\r\n"));
  await engine.stop({ graceMs: 100 });
  const text = Buffer.concat(received).toString("latin1");
  expect(text.slice(text.indexOf("\r\n\r\n") + 4)).toBe("[null,null,null]");
});
