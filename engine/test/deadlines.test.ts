import { expect, test } from "bun:test";
import { createEngine } from "../index.ts";
import { RawClient } from "./support/raw-client.ts";
import { startServer, waitUntil } from "./support/test-server.ts";

const fast = { sweepIntervalMs: 5 };

test("a head that does not complete before the header deadline gets 408 and is closed", async () => {
  // A new connection that sent nothing by the header deadline is closed silently (idle): with
  // 250 ms, a stall of this process between the accept and the read (seen once under a loaded
  // machine) made it one. 1 s leaves room for that.
  await using server = startServer((exchange) => exchange.writeText("ok"), {
    ...fast,
    headerDeadlineMs: 1000,
  });
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n");
  const response = await client.response();
  await client.waitForClose();
  expect({
    statusLine: response.statusLine,
    connection: response.header("connection"),
    deadlineCloses: server.stats().deadlineCloses.header,
    errors: server.stats().errors,
  }).toEqual({
    statusLine: "HTTP/1.1 408 Request Timeout",
    connection: "close",
    deadlineCloses: 1,
    errors: { headerTimeout: 1 },
  });
});

test("a body that does not arrive before the body deadline gets 408 and is closed", async () => {
  await using server = startServer((exchange) => exchange.writeText("ok"), {
    ...fast,
    bodyDeadlineMs: 60,
  });
  using client = await RawClient.connect(server.port);
  client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc");
  const response = await client.response();
  await client.waitForClose();
  expect([response.status, server.stats().deadlineCloses.body, server.stats().workersBusy]).toEqual(
    [408, 1, 0],
  );
});

test("an idle keep-alive connection is closed quietly after the idle timeout", async () => {
  await using server = startServer((exchange) => exchange.writeText("ok"), {
    ...fast,
    idleTimeoutMs: 60,
  });
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  await client.waitForClose();
  const stats = server.stats();
  expect({
    status: response.status,
    onlyOneResponse: client.receivedText.split("HTTP/1.1").length - 1,
    idleCloses: stats.deadlineCloses.idle,
    open: stats.connectionsOpen,
  }).toEqual({ status: 200, onlyOneResponse: 1, idleCloses: 1, open: 0 });
});

test("a fresh connection that sends nothing is closed after the header deadline, without an answer", async () => {
  await using server = startServer((exchange) => exchange.writeText("ok"), {
    ...fast,
    headerDeadlineMs: 50,
  });
  using client = await RawClient.connect(server.port);
  await client.waitForClose();
  expect([client.received.length, server.stats().deadlineCloses.idle]).toEqual([0, 1]);
});

test("a reader that stops reading is closed by the write-stall deadline; others are still served", async () => {
  const big = new Uint8Array(32 * 1024 * 1024).fill(0x61);
  await using server = startServer(
    (exchange) => (exchange.path === "/big" ? exchange.borrowBody(big) : exchange.writeText("ok")),
    {
      ...fast,
      writeStallMs: 100,
    },
  );
  using reader = await RawClient.connect(server.port);
  // A raw socket that never reads: open it with Bun.connect and pause reading.
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port,
    socket: {
      data() {},
      open(s) {
        s.pause();
      },
    },
  });
  socket.write("GET /big HTTP/1.1\r\nHost: h\r\n\r\n");
  await waitUntil(
    () => server.stats().deadlineCloses.writeStall === 1,
    "the write stall to close it",
  );
  reader.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  expect((await reader.response()).text).toBe("ok");
  const stats = server.stats();
  // The engine never buffered the body: it wrote what the socket took and dropped the rest.
  expect(stats.bytesOut).toBeLessThan(big.length);
  expect(stats.deadlineCloses.writeStall).toBe(1);
  expect(stats.workersBusy).toBe(0);
  socket.terminate();
});

test("a handler that outlives the request deadline: 503, its signal fires, its worker returns when it ends", async () => {
  let aborted: unknown;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  await using server = startServer(
    async (exchange) => {
      exchange.signal.addEventListener("abort", () => {
        aborted = exchange.signal.reason;
      });
      await finished;
    },
    { ...fast, requestDeadlineMs: 60 },
  );
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  await client.waitForClose();
  expect(response.statusLine).toBe("HTTP/1.1 503 Service Unavailable");
  expect(String(aborted)).toContain("ClientGoneError");
  expect(server.stats().workersBusy).toBe(1);
  finish();
  await waitUntil(() => server.stats().workersBusy === 0, "the worker to come back");
  expect(server.stats().deadlineCloses.request).toBe(1);
});

test("an engine made long before it listens measures its first deadlines from the listen, not from its making", async () => {
  const engine = createEngine({
    handler: (exchange) => exchange.writeText(`got ${exchange.body.length}`),
    limits: { sweepIntervalMs: 100, bodyDeadlineMs: 300 },
    log: null,
  });
  // An App's set-up (templates, a database migration) runs between making and listening.
  await Bun.sleep(400);
  const server = engine.listen({ port: 0 });
  try {
    using client = await RawClient.connect(server.port);
    client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 6\r\n\r\nabc");
    await Bun.sleep(150);
    client.send("def");
    const response = await client.response();
    expect({
      answer: `${response.status} ${response.text}`,
      bodyDeadlines: server.stats().deadlineCloses.body,
    }).toEqual({ answer: "200 got 6", bodyDeadlines: 0 });
  } finally {
    await server.stop({ graceMs: 100 });
  }
});

test("a deadline never fires before its value, whatever the phase of the sweep when it was set", async () => {
  // The sweep's clock runs up to one interval behind the real time: a deadline stamped with it
  // fired up to one interval early (a 1000 ms idle timeout after 505 ms, with 500 ms sweeps).
  await using server = startServer((exchange) => exchange.writeText("ok"), {
    sweepIntervalMs: 200,
    idleTimeoutMs: 400,
  });
  const idleFor = async (delayMs: number) => {
    await Bun.sleep(delayMs);
    using client = await RawClient.connect(server.port);
    client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    await client.response();
    const answeredAt = performance.now();
    await client.waitForClose(3000);
    return performance.now() - answeredAt;
  };
  const idle = await Promise.all([0, 40, 80, 120, 160].map(idleFor));
  // Never early; late by at most two sweep intervals (and the event loop's jitter).
  expect(idle.filter((milliseconds) => milliseconds < 400)).toEqual([]);
  expect(idle.filter((milliseconds) => milliseconds > 400 + 2 * 200 + 1000)).toEqual([]);
});
