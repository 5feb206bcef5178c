import { expect, test } from "bun:test";
import fc from "fast-check";
import { RawClient } from "./support/raw-client.ts";
import { startServer, waitUntil } from "./support/test-server.ts";

/** Runs `attempt` in a handler and answers which calls passed and which limit stopped the rest. */
async function outcomes(
  limits: Parameters<typeof startServer>[1],
  attempt: (exchange: import("../index.ts").Exchange) => void,
): Promise<string> {
  await using server = startServer((exchange) => {
    let outcome = "ok";
    try {
      attempt(exchange);
    } catch (error) {
      outcome = `${(error as Error).name}:${(error as { limit?: string }).limit}`;
    }
    exchange.resetResponse();
    exchange.writeText(outcome);
  }, limits);
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  return (await client.response()).text;
}

test("maxResponseHeaderBytes: header lines of exactly the limit pass, one byte more fails", async () => {
  // "X-A: " + value + CRLF = 7 + value length bytes.
  const limits = { maxResponseHeaderBytes: 100, connectionOutputBytes: 512 };
  expect(await outcomes(limits, (exchange) => exchange.setHeader("X-A", "v".repeat(93)))).toBe(
    "ok",
  );
  expect(await outcomes(limits, (exchange) => exchange.setHeader("X-A", "v".repeat(94)))).toBe(
    "ResponseLimitError:maxResponseHeaderBytes",
  );
});

test("maxResponseBytes: a borrowed body of exactly the limit passes, one byte more fails", async () => {
  const limits = { maxResponseBytes: 1000, stagingBytes: 512 };
  expect(await outcomes(limits, (exchange) => exchange.borrowBody(new Uint8Array(1000)))).toBe(
    "ok",
  );
  expect(await outcomes(limits, (exchange) => exchange.borrowBody(new Uint8Array(1001)))).toBe(
    "ResponseLimitError:maxResponseBytes",
  );
});

test("stagingBytes: a staged body of exactly the limit is sent whole, one byte more fails", async () => {
  const limits = { stagingBytes: 300 };
  expect(await outcomes(limits, (exchange) => exchange.write(new Uint8Array(300)))).toBe("ok");
  expect(await outcomes(limits, (exchange) => exchange.write(new Uint8Array(301)))).toBe(
    "ResponseLimitError:stagingBytes",
  );
  await using server = startServer(
    (exchange) => exchange.write(new Uint8Array(300).fill(0x78)),
    limits,
  );
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  expect((await client.response()).text).toBe("x".repeat(300));
});

test("writeText encodes as TextEncoder does, and its UTF-8 of exactly the staging passes", async () => {
  const limits = { stagingBytes: 300 };
  // 100 three-byte characters: 300 bytes.
  expect(await outcomes(limits, (exchange) => exchange.writeText("€".repeat(100)))).toBe("ok");
  expect(await outcomes(limits, (exchange) => exchange.writeText("€".repeat(101)))).toBe(
    "ResponseLimitError:stagingBytes",
  );
  // ASCII of the staging's size.
  expect(await outcomes(limits, (exchange) => exchange.writeText("x".repeat(300)))).toBe("ok");
  expect(await outcomes(limits, (exchange) => exchange.writeText("x".repeat(301)))).toBe(
    "ResponseLimitError:stagingBytes",
  );
  const texts = ["€".repeat(100), `${"é€😀".repeat(10)} lone \ud800 and \udc00 ${"a".repeat(40)}`];
  await using server = startServer((exchange) => {
    exchange.writeText(texts[exchange.path === "/whole" ? 0 : 1]!);
  }, limits);
  using client = await RawClient.connect(server.port);
  client.send("GET /whole HTTP/1.1\r\nHost: h\r\n\r\nGET /mixed HTTP/1.1\r\nHost: h\r\n\r\n");
  const [whole, mixed] = await client.responses(2);
  expect([...whole!.body]).toEqual([...new TextEncoder().encode(texts[0])]);
  expect([...mixed!.body]).toEqual([...new TextEncoder().encode(texts[1])]);
});

test("writeText with less room than three bytes a character: exactly the staging passes", async () => {
  const limits = { stagingBytes: 300 };
  // 150 two-byte characters fill the 300 bytes; one more character does not fit.
  expect(await outcomes(limits, (exchange) => exchange.writeText("é".repeat(150)))).toBe("ok");
  expect(await outcomes(limits, (exchange) => exchange.writeText(`${"é".repeat(150)}x`))).toBe(
    "ResponseLimitError:stagingBytes",
  );
  expect(
    await outcomes(limits, (exchange) => {
      exchange.writeText("a".repeat(200));
      exchange.writeText("é".repeat(50));
    }),
  ).toBe("ok");
  expect(
    await outcomes(limits, (exchange) => {
      exchange.writeText("a".repeat(200));
      exchange.writeText(`${"é".repeat(50)}😀`);
    }),
  ).toBe("ResponseLimitError:stagingBytes");
});

test("writeText gives TextEncoder's bytes for any text, short or long, in several pieces", async () => {
  const piece = fc.constantFrom(
    "a",
    "Hello, World!",
    "é",
    "€",
    "😀",
    "\ud800",
    "\udc00",
    "\u007f",
    "x".repeat(20),
  );
  const texts = fc.sample(
    fc.array(
      fc.array(piece, { maxLength: 12 }).map((parts) => parts.join("")),
      { minLength: 1, maxLength: 3 },
    ),
    { numRuns: 120, seed: 7 },
  );
  await using server = startServer((exchange) => {
    for (const text of texts[Number(exchange.path.slice(1))]!) exchange.writeText(text);
  });
  using client = await RawClient.connect(server.port);
  client.send(texts.map((_, index) => `GET /${index} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
  const responses = await client.responses(texts.length);
  const encoder = new TextEncoder();
  for (const [index, response] of responses.entries()) {
    // Each call encodes its own text: halves of a surrogate pair in two calls are two U+FFFD.
    const expected = texts[index]!.flatMap((text) => [...encoder.encode(text)]);
    expect([...response.body]).toEqual(expected);
  }
});

test("maxResponseBytes bounds a stream: exactly the limit streams, one byte more fails", async () => {
  const results: string[] = [];
  await using server = startServer(
    async (exchange) => {
      const stream = exchange.stream();
      const size = exchange.path === "/exact" ? 500 : 501;
      try {
        for (let sent = 0; sent < size; sent += 100) {
          stream.write(new Uint8Array(Math.min(100, size - sent)).fill(0x79));
          await stream.flush();
        }
        results.push("ok");
      } catch (error) {
        results.push(`${(error as Error).name}:${(error as { limit?: string }).limit}`);
      }
      await stream.finish();
    },
    { maxResponseBytes: 500, stagingBytes: 128 },
  );
  using client = await RawClient.connect(server.port);
  client.send("GET /exact HTTP/1.1\r\nHost: h\r\n\r\n");
  expect((await client.response()).body.length).toBe(500);
  client.send("GET /over HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.responses(2);
  expect(results).toEqual(["ok", "ResponseLimitError:maxResponseBytes"]);
});

test("a stream open past streamDeadlineMs is aborted: no last chunk, signal fired, closed", async () => {
  let reason = "";
  await using server = startServer(
    async (exchange) => {
      exchange.signal.addEventListener("abort", () => {
        reason = String(exchange.signal.reason);
      });
      const stream = exchange.stream();
      stream.writeText("tick");
      await stream.flush();
      await new Promise<void>((resolve) =>
        exchange.signal.addEventListener("abort", () => resolve()),
      );
    },
    { streamDeadlineMs: 60, sweepIntervalMs: 5 },
  );
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitForClose();
  await waitUntil(() => server.stats().workersBusy === 0, "the worker to come back");
  expect({
    ended: client.receivedText.endsWith("4\r\ntick\r\n"),
    reason,
    streamCloses: server.stats().deadlineCloses.stream,
  }).toEqual({
    ended: true,
    reason: "ClientGoneError: corral: the stream deadline passed",
    streamCloses: 1,
  });
});
