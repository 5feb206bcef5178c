import { afterAll, describe, expect, test } from "bun:test";
import { splitCounts } from "../../bench/callgrind-split.ts";
import { socketLoad } from "../../bench/socket-load.ts";

describe("splitCounts: a callgrind_annotate listing split by where the code lies", () => {
  test("JIT code (no file), Bun's executable and the rest; the total from PROGRAM TOTALS", () => {
    const annotated = [
      "--------------------------------------------------------------------------------",
      "12,345,678 (100.0%)  PROGRAM TOTALS",
      "--------------------------------------------------------------------------------",
      "Ir                  file:function",
      "4,000,000 (32.40%)  ???:0x0000000001e02100 [/usr/lib/node_modules/bun/bin/bun.exe]",
      "3,000,000 (24.30%)  ???:0x000000000782d380 [???]",
      "  200,000 ( 1.62%)  ???:0x000000000782ffa0 [???]",
      "  100,000 ( 0.81%)  ???:0x00000000025a7f10 [/usr/local/bin/bun]",
      "   50,000 ( 0.40%)  ./string/memmove.S:__memcpy_avx_unaligned_erms [/usr/lib/libc.so.6]",
    ].join("\n");
    expect(splitCounts(annotated)).toEqual({ total: 12_345_678, jit: 3_200_000, bun: 4_100_000 });
  });
});

describe("socketLoad: keep-alive requests, one in flight per connection", () => {
  let answered = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      answered++;
      const path = new URL(request.url).pathname;
      if (path === "/missing") return new Response("no", { status: 404 });
      if (path === "/chunked") {
        const body = new ReadableStream({
          start(controller) {
            controller.enqueue("hi");
            controller.close();
          },
        });
        return new Response(body);
      }
      return new Response("hello");
    },
  });
  afterAll(() => server.stop(true));

  test("resolves once every request is answered, and sends no more than asked", async () => {
    answered = 0;
    await socketLoad(server.port!, "/hello", 1_000, 7);
    expect(answered).toBe(1_000);
  });

  test("fewer requests than connections, chunked answers: each request sent once, read whole", async () => {
    answered = 0;
    await socketLoad(server.port!, "/chunked", 3, 16);
    expect(answered).toBe(3);
  });

  test("a count that is not a whole number is refused before anything is sent", async () => {
    answered = 0;
    await expect(socketLoad(server.port!, "/hello", 1.5, 2)).rejects.toThrow("whole numbers");
    expect(answered).toBe(0);
  });

  test("an answer other than 200 rejects: the count would not be of these requests", async () => {
    await expect(socketLoad(server.port!, "/missing", 10, 2)).rejects.toThrow("answered 404");
  });
});
