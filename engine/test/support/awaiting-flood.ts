// Run as its own process (a heap no other test shares) by engine/test/full-collection.test.ts:
// an engine with the default limits, and 64 clients that each send a request as soon as the last
// is answered, for SECONDS. Each handler gives its worker back and waits 1 ms holding 200 objects,
// as a database wait holds rows and promises. Prints the heap's peak growth over its size at
// start (read every 250 ms), the requests answered and the engine's collections, as JSON.
import { heapSize } from "bun:jsc";
import { createEngine } from "../../index.ts";

const seconds = Number(process.env.SECONDS ?? "4");
const engine = createEngine({
  log: null,
  handler: async (exchange) => {
    exchange.releaseWorker();
    const rows = Array.from({ length: 200 }, (_, id) => ({ id, numbers: [id, id + 1] }));
    await Bun.sleep(1);
    await exchange.acquireWorker();
    exchange.writeText(String(rows.length));
  },
});
const server = engine.listen({ hostname: "127.0.0.1", port: 0 });
const base = heapSize();
let peakGrowth = 0;
const watch = setInterval(() => {
  peakGrowth = Math.max(peakGrowth, heapSize() - base);
}, 250);
const request = new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
const until = performance.now() + seconds * 1000;
let answered = 0;
await Promise.all(
  Array.from(
    { length: 64 },
    () =>
      new Promise<void>((resolve, reject) => {
        Bun.connect({
          hostname: "127.0.0.1",
          port: server.port,
          socket: {
            open(socket) {
              socket.write(request);
            },
            data(socket) {
              // Each answer is a few dozen bytes and comes in one chunk.
              answered++;
              if (performance.now() < until) {
                socket.write(request);
              } else {
                socket.end();
                resolve();
              }
            },
          },
        }).catch(reject);
      }),
  ),
);
clearInterval(watch);
const stats = server.stats();
console.log(
  JSON.stringify({
    answered,
    peakGrowthBytes: peakGrowth,
    youngCollections: stats.youngCollections,
    fullCollections: stats.fullCollections,
  }),
);
process.exit(0);
