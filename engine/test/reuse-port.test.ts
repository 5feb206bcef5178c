import { expect, test } from "bun:test";
import { type Handler, listen } from "../index.ts";
import { RawClient } from "./support/raw-client.ts";

const answer =
  (name: string): Handler =>
  (exchange) => {
    exchange.setHeader("Content-Type", "text/plain");
    exchange.writeText(name);
  };

test("with reusePort two engines bind one port, and both serve", async () => {
  const first = listen({ port: 0, reusePort: true, handler: answer("first"), log: null });
  const second = listen({
    port: first.port,
    reusePort: true,
    handler: answer("second"),
    log: null,
  });
  try {
    // Within one process the kernel spreads connections too: ask until both answered (bounded).
    const seen = new Set<string>();
    for (let count = 0; count < 400 && seen.size < 2; count++) {
      using client = await RawClient.connect(first.port);
      client.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      seen.add((await client.response()).text);
    }
    expect({ port: second.port, seen: [...seen].sort() }).toEqual({
      port: first.port,
      seen: ["first", "second"],
    });
  } finally {
    await Promise.all([first.stop({ graceMs: 100 }), second.stop({ graceMs: 100 })]);
  }
});

test("without reusePort a second engine on a taken port fails to bind", async () => {
  const first = listen({ port: 0, reusePort: true, handler: answer("first"), log: null });
  try {
    expect(() => listen({ port: first.port, handler: answer("second"), log: null })).toThrow();
  } finally {
    await first.stop({ graceMs: 100 });
  }
});

test("reusePort must be a boolean", () => {
  expect(() =>
    listen({ port: 0, reusePort: "yes" as unknown as boolean, handler: answer("x"), log: null }),
  ).toThrow(new TypeError("corral: reusePort must be a boolean, got string"));
});
