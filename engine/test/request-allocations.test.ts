import { heapStats } from "bun:jsc";
import { expect, test } from "bun:test";
import { createEngine } from "../index.ts";

// JavaScriptCore allocates a scope object on every call of a function holding a closure over
// its locals or `this`, whether the closure is made or not. Three such functions sat on the path
// of every request (a header-field visitor, the handler's promise callbacks); this keeps them off.
test("a request allocates no scope objects on its way through the engine", async () => {
  const engine = createEngine({ log: null, handler: (exchange) => exchange.writeText("hi") });
  let received = 0;
  const connection = engine.connectInMemory(
    (bytes) => {
      received += bytes.length;
    },
    () => {},
  )!;
  const request = new TextEncoder().encode(
    "GET /a HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nAccept: */*\r\nUser-Agent: t\r\n\r\n",
  );
  const run = async (count: number) => {
    const start = received;
    for (let index = 0; index < count; index++) connection.send(request.slice());
    while (received - start < count * 40) await Bun.sleep(1);
  };
  await run(2000);
  Bun.gc(true);
  const before = heapStats().objectTypeCounts.JSLexicalEnvironment ?? 0;
  await run(3000);
  const after = heapStats().objectTypeCounts.JSLexicalEnvironment ?? 0;
  expect((after - before) / 3000).toBeLessThan(0.05);
  connection.close();
  await engine.stop();
});

// A derived class's implicit constructor passes its arguments on as a rest array: the Exchange
// had none of its own, and every pipelined request allocated that array beside the Exchange.
test("a pipelined request allocates its Exchange and no array on its way through the engine", async () => {
  const engine = createEngine({ log: null, handler: (exchange) => exchange.writeText("hi") });
  let received = 0;
  const connection = engine.connectInMemory(
    (bytes) => {
      received += bytes.length;
    },
    () => {},
  )!;
  const pipelined = new TextEncoder().encode("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".repeat(16));
  const run = async (chunks: number) => {
    const start = received;
    for (let index = 0; index < chunks; index++) connection.send(pipelined.slice());
    while (received - start < chunks * 16 * 40) await Bun.sleep(1);
  };
  await run(200);
  Bun.gc(true);
  const before = heapStats().objectTypeCounts;
  // 3,200 requests: fewer than a young collection's period, so their garbage is all still counted.
  await run(200);
  const after = heapStats().objectTypeCounts;
  const perRequest = (type: string) =>
    Math.round((100 * ((after[type] ?? 0) - (before[type] ?? 0))) / 3200) / 100;
  // Objects: the Exchange, and a few per chunk the in-memory transport makes (0.05 a request).
  expect({ arrays: perRequest("Array"), objects: Math.floor(perRequest("Object")) }).toEqual({
    arrays: 0,
    objects: 1,
  });
  connection.close();
  await engine.stop();
});
