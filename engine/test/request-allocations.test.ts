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
