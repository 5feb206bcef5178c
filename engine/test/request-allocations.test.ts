import { heapStats } from "bun:jsc";
import { expect, test } from "bun:test";
import { createEngine } from "../index.ts";

/**
 * An engine answering "hi" over an in-memory connection: `send(chunks)` sends `chunk` that many
 * times and waits for the answers (`requests` requests to a chunk); `close()` stops it all.
 */
function answeringHi(chunk: Uint8Array, requests: number) {
  const engine = createEngine({ log: null, handler: (exchange) => exchange.writeText("hi") });
  let received = 0;
  const connection = engine.connectInMemory(
    (bytes) => {
      received += bytes.length;
    },
    () => {},
  )!;
  return {
    async send(chunks: number): Promise<void> {
      const start = received;
      for (let index = 0; index < chunks; index++) connection.send(chunk.slice());
      while (received - start < chunks * requests * 40) await Bun.sleep(1);
    },
    async close(): Promise<void> {
      connection.close();
      await engine.stop();
    },
  };
}

/** How many objects of each type `run` leaves per request (garbage included, before a sweep). */
async function leftPerRequest(run: () => Promise<void>, requests: number) {
  Bun.gc(true);
  const before = heapStats().objectTypeCounts;
  await run();
  const after = heapStats().objectTypeCounts;
  return (type: string) =>
    Math.round((100 * ((after[type] ?? 0) - (before[type] ?? 0))) / requests) / 100;
}

// JavaScriptCore allocates a scope object on every call of a function holding a closure over
// its locals or `this`, whether the closure is made or not. Three such functions sat on the path
// of every request (a header-field visitor, the handler's promise callbacks); this keeps them off.
test("a request allocates no scope objects on its way through the engine", async () => {
  const request = new TextEncoder().encode(
    "GET /a HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nAccept: */*\r\nUser-Agent: t\r\n\r\n",
  );
  const server = answeringHi(request, 1);
  await server.send(2000);
  const left = await leftPerRequest(() => server.send(3000), 3000);
  expect(left("JSLexicalEnvironment")).toBeLessThan(0.05);
  await server.close();
});

// A derived class's implicit constructor passes its arguments on as a rest array: the Exchange
// had none of its own, and every pipelined request allocated that array beside the Exchange.
test("a pipelined request allocates its Exchange and no array on its way through the engine", async () => {
  const pipelined = new TextEncoder().encode("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".repeat(16));
  const server = answeringHi(pipelined, 16);
  await server.send(200);
  // 3,200 requests: fewer than a young collection's period, so their garbage is all still counted.
  const left = await leftPerRequest(() => server.send(200), 3200);
  // Objects: the Exchange, and a few per chunk the in-memory transport makes (0.05 a request).
  expect({ arrays: left("Array"), objects: Math.floor(left("Object")) }).toEqual({
    arrays: 0,
    objects: 1,
  });
  await server.close();
});
