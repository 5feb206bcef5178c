import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { RawClient } from "./support/raw-client.ts";
import { startServer } from "./support/test-server.ts";

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

test("a 5 MiB borrowed body with 4 KiB staging arrives intact and nothing of it is copied", async () => {
  const body = new Uint8Array(5 * 1024 * 1024);
  for (let index = 0; index < body.length; index++) body[index] = (index * 7919) & 0xff;
  await using server = startServer(
    (exchange) => {
      exchange.setHeader("Content-Type", "application/octet-stream");
      exchange.borrowBody(body);
    },
    { stagingBytes: 4096 },
  );
  using client = await RawClient.connect(server.port);
  client.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response(20_000);
  const stats = server.stats();
  expect({
    status: response.status,
    length: response.header("content-length"),
    hash: sha256(response.body),
    copied: stats.bytesCopiedToStaging,
    borrowed: stats.bytesBorrowed,
  }).toEqual({
    status: 200,
    length: String(body.length),
    hash: sha256(body),
    copied: 0,
    borrowed: body.length,
  });
});

test("pipelined borrowed and staged bodies arrive in order and intact", async () => {
  // The batch (earlier small answers and the next head) and a borrowed body go out together in
  // one vectored write; what the kernel does not take continues on drain.
  const body = new Uint8Array(3 * 1024 * 1024);
  for (let index = 0; index < body.length; index++) body[index] = (index * 31) & 0xff;
  await using server = startServer(
    (exchange) => {
      if (exchange.path === "/big") exchange.borrowBody(body);
      else exchange.writeText(`small ${exchange.path}`);
    },
    { stagingBytes: 4096 },
  );
  using client = await RawClient.connect(server.port);
  const paths = ["/a", "/big", "/b", "/c", "/big", "/d"];
  client.send(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
  const responses = await client.responses(paths.length, 20_000);
  expect(
    responses.map((response) =>
      response.body.length > 1000 ? sha256(response.body) : new TextDecoder().decode(response.body),
    ),
  ).toEqual(paths.map((path) => (path === "/big" ? sha256(body) : `small ${path}`)));
  expect(server.stats().bytesBorrowed).toBe(2 * body.length);
});

test("borrowed bodies under the 256-byte threshold are copied; at the threshold they are borrowed", async () => {
  const small = new Uint8Array(255).fill(0x62);
  const exact = new Uint8Array(256).fill(0x63);
  await using server = startServer((exchange) => {
    exchange.borrowBody(exchange.path === "/small" ? small : exact);
  });
  using client = await RawClient.connect(server.port);
  client.send("GET /small HTTP/1.1\r\nHost: h\r\n\r\n");
  const first = await client.response();
  const afterSmall = server.stats();
  client.send("GET /exact HTTP/1.1\r\nHost: h\r\n\r\n");
  const [, second] = await client.responses(2);
  const afterExact = server.stats();
  expect({
    bodies: [first.body.length, second!.body.length],
    copied: [afterSmall.bytesCopiedToStaging, afterExact.bytesCopiedToStaging],
    borrowed: [afterSmall.bytesBorrowed, afterExact.bytesBorrowed],
  }).toEqual({ bodies: [255, 256], copied: [255, 255], borrowed: [0, 256] });
});

test("a borrowed body over maxResponseBytes is an error before anything is sent", async () => {
  const body = new Uint8Array(2048);
  const failures: string[] = [];
  await using server = startServer(
    (exchange) => {
      try {
        exchange.borrowBody(body);
      } catch (error) {
        failures.push((error as Error).name);
        exchange.setStatus(507);
        exchange.writeText("too large");
      }
    },
    { maxResponseBytes: 1024, stagingBytes: 512 },
  );
  using client = await RawClient.connect(server.port);
  client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  const response = await client.response();
  expect([response.status, response.text, failures]).toEqual([
    507,
    "too large",
    ["ResponseLimitError"],
  ]);
});

test("headers may be added before and after borrowBody; HEAD gets the length but no body", async () => {
  const body = new Uint8Array(1000).fill(0x41);
  await using server = startServer((exchange) => {
    exchange.setHeader("X-Before", "1");
    exchange.borrowBody(body);
    exchange.setHeader("X-After", "2");
  });
  using client = await RawClient.connect(server.port);
  client.send("HEAD / HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitFor(() => client.received.length >= 2 * 100 + 1000, "both responses");
  const text = client.receivedText;
  const heads = text.split("HTTP/1.1 200 OK").slice(1);
  expect(heads.length).toBe(2);
  expect(heads[0]).toContain("X-Before: 1\r\nX-After: 2\r\nContent-Length: 1000\r\n\r\n");
  expect(heads[0]!.endsWith("\r\n\r\n")).toBe(true);
  expect(heads[1]!.endsWith("A".repeat(1000))).toBe(true);
});

test("a borrowed body of any size is whole: writes and stream() after it are TypeErrors", async () => {
  const errors: string[] = [];
  const small = new Uint8Array(10).fill(0x73);
  const large = new Uint8Array(300).fill(0x6c);
  await using server = startServer((exchange) => {
    const body = exchange.path.startsWith("/small") ? small : large;
    exchange.borrowBody(body);
    try {
      if (exchange.path.endsWith("/stream")) exchange.stream();
      else exchange.writeText("appended");
    } catch (error) {
      errors.push(`${exchange.path} ${(error as Error).message}`);
    }
    if (exchange.path.endsWith("/cleared")) {
      exchange.clearBody();
      exchange.writeText("replaced");
    }
  });
  using client = await RawClient.connect(server.port);
  const paths = [
    "/small/write",
    "/small/stream",
    "/large/write",
    "/large/stream",
    "/small/cleared",
  ];
  client.send(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
  const answers = await client.responses(paths.length);
  expect({ bodies: answers.map((answer) => answer.text), errors }).toEqual({
    bodies: ["s".repeat(10), "s".repeat(10), "l".repeat(300), "l".repeat(300), "replaced"],
    errors: [
      "/small/write corral: the body was borrowed whole; clear it or borrow another before writing",
      "/small/stream corral: a response with a borrowed body cannot also be streamed",
      "/large/write corral: the body was borrowed whole; clear it or borrow another before writing",
      "/large/stream corral: a response with a borrowed body cannot also be streamed",
      "/small/cleared corral: the body was borrowed whole; clear it or borrow another before writing",
    ],
  });
});
