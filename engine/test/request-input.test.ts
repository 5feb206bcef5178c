// The input side keeps what a stalled connection has not read yet in the slot's head buffer, so
// the socket chunk it came in (Bun reads up to 512 KiB at a time) is freed; bytes that do not
// fit are not moved, and once dropped, nothing more is kept.
import { describe, expect, test } from "bun:test";
import { inputComplete, inputIncomplete, RequestInput } from "../src/internal/request-input.ts";
import { resolveLimits } from "../src/limits.ts";
import { ParsedHead } from "../src/parser/parsed-head.ts";
import { StatsCounters } from "../src/stats.ts";

// Heads up to 64 KiB, so one padded request makes a chunk large enough to be freed (16 KiB).
const limits = resolveLimits({ maxHeaderBytes: 64 * 1024 });
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function get(target: string, headers = ""): string {
  return `GET ${target} HTTP/1.1\r\nHost: h\r\n${headers}\r\n`;
}

/** An input with a head buffer of `headBytes`, and the stats its unread chunks are counted in. */
function inputWith(headBytes: number, maxUnreadInputBytes = 0) {
  const stats = new StatsCounters();
  return { input: new RequestInput(new Uint8Array(headBytes), stats, maxUnreadInputBytes), stats };
}

/** A first request large enough that the chunk it comes in is freed once used (16 KiB). */
const padded = get("/first", `X-Pad: ${"p".repeat(20_000)}\r\n`);

/** A chunk of `size` bytes: `text`, then zeros (as a socket chunk, large enough to be freed). */
function chunkOf(text: string, size = text.length): Uint8Array {
  const chunk = new Uint8Array(size);
  chunk.set(encoder.encode(text), 0);
  return chunk;
}

/** Reads one whole request (head and body) and ends it; returns its target and body text. */
function readRequest(input: RequestInput, head: ParsedHead, storage: Uint8Array) {
  expect(input.readHead(head, limits)).toBe(inputComplete);
  const base = head.base;
  const target = decoder.decode(
    head.buffer.subarray(base + head.targetStart, base + head.targetEnd),
  );
  input.expectBody(head);
  expect(input.readBody(storage, limits)).toBe(inputComplete);
  const body = decoder.decode(input.body);
  const bodyInStorage = input.body.length > 0 && input.body.buffer === storage.buffer;
  input.requestEnded();
  return { target, body, bodyInStorage };
}

describe("park", () => {
  test("moves the pending requests into the head buffer and frees the socket chunk", () => {
    const { input } = inputWith(1024);
    const head = new ParsedHead(limits.maxHeaderCount);
    const storage = new Uint8Array(1024);
    const rest = `${get("/second")}POST /third HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nbody`;
    const chunk = chunkOf(padded + rest);
    input.receive(chunk, true);
    expect(readRequest(input, head, storage).target).toBe("/first");
    expect(input.park(null, false)).toBe(true);
    expect({ chunkLength: chunk.length, pending: input.pending }).toEqual({
      chunkLength: 0,
      pending: true,
    });
    expect([readRequest(input, head, storage), readRequest(input, head, storage)]).toEqual([
      { target: "/second", body: "", bodyInStorage: false },
      // A body in the head buffer is copied: the next parked bytes would overwrite it.
      { target: "/third", body: "body", bodyInStorage: true },
    ]);
    expect(input.pending).toBe(false);
  });

  test("exactly a head buffer of pending bytes is parked; one byte more is not moved", () => {
    const request = get("/a");
    for (const extra of [0, 1]) {
      const { input } = inputWith(2 * request.length - extra);
      const head = new ParsedHead(limits.maxHeaderCount);
      const chunk = chunkOf(padded + request + request);
      input.receive(chunk, true);
      readRequest(input, head, new Uint8Array(0));
      expect({
        parked: input.park(null, false),
        freed: chunk.length === 0,
        pending: input.pending,
      }).toEqual({ parked: extra === 0, freed: extra === 0, pending: true });
      // Either way the two pending requests are still read whole.
      expect([readRequest(input, head, new Uint8Array(0)).target, input.pending]).toEqual([
        "/a",
        true,
      ]);
      expect(readRequest(input, head, new Uint8Array(0)).target).toBe("/a");
    }
  });

  test("a head that continues in the next chunk is completed from the parked bytes", () => {
    const { input } = inputWith(1024);
    const head = new ParsedHead(limits.maxHeaderCount);
    input.receive(chunkOf(`${padded}GET /sec`), true);
    readRequest(input, head, new Uint8Array(0));
    expect(input.park(null, false)).toBe(true);
    expect(input.readHead(head, limits)).toBe(inputIncomplete);
    input.receive(encoder.encode("ond HTTP/1.1\r\nHost: h\r\n\r\n"), true);
    expect(readRequest(input, head, new Uint8Array(0)).target).toBe("/second");
  });

  test("bytes that arrive after parking are joined to the parked ones", () => {
    const { input } = inputWith(1024);
    const head = new ParsedHead(limits.maxHeaderCount);
    input.receive(chunkOf(`${padded}${get("/a")}`), true);
    readRequest(input, head, new Uint8Array(0));
    expect(input.park(null, false)).toBe(true);
    input.receive(encoder.encode(get("/b")), true);
    const targets = [readRequest(input, head, new Uint8Array(0)).target];
    targets.push(readRequest(input, head, new Uint8Array(0)).target);
    expect({ targets, pending: input.pending }).toEqual({ targets: ["/a", "/b"], pending: false });
  });

  test("leaves a chunk the pending output still points into", () => {
    const { input } = inputWith(1024);
    const head = new ParsedHead(limits.maxHeaderCount);
    const chunk = chunkOf(`${padded}${get("/a")}`);
    input.receive(chunk, true);
    readRequest(input, head, new Uint8Array(0));
    expect(input.park(chunk.subarray(0, 10), false)).toBe(true);
    const length = chunk.length;
    expect({ length, target: readRequest(input, head, new Uint8Array(0)).target }).toEqual({
      length: padded.length + get("/a").length,
      target: "/a",
    });
  });
});

describe("park, keeping the chunk for a connection still served", () => {
  /** A 24,000-byte chunk: one padded request read, then 100 small ones pending. */
  function pendingChunk(maxUnreadInputBytes: number) {
    const { input, stats } = inputWith(1024, maxUnreadInputBytes);
    const head = new ParsedHead(limits.maxHeaderCount);
    const chunk = chunkOf(`${padded}${get("/a").repeat(100)}`, 24_000);
    input.receive(chunk, true);
    readRequest(input, head, new Uint8Array(0));
    return { input, stats, head, chunk };
  }

  test("keeps a chunk of exactly the shared limit, counted until it is used up", () => {
    const { input, stats, head } = pendingChunk(24_000);
    expect({ kept: input.park(null, true), unread: stats.unreadInputBytes }).toEqual({
      kept: true,
      unread: 24_000,
    });
    // Asked again while kept, it is not counted twice.
    expect([input.park(null, true), stats.unreadInputBytes]).toEqual([true, 24_000]);
    for (let index = 0; index < 100; index++) readRequest(input, head, new Uint8Array(0));
    expect(stats.unreadInputBytes).toBe(24_000);
    // The zeros after the requests never make a head: the chunk is left when it is discarded.
    input.discard();
    expect(stats.unreadInputBytes).toBe(0);
  });

  test("one byte over the shared limit keeps nothing", () => {
    const { input, stats, chunk } = pendingChunk(23_999);
    expect({ kept: input.park(null, true), unread: stats.unreadInputBytes }).toEqual({
      kept: false,
      unread: 0,
    });
    input.dropPending(null);
    expect([chunk.length, input.pending]).toEqual([0, false]);
  });

  test("a kept chunk is let go when the client stops reading its answers", () => {
    const { input, stats, chunk } = pendingChunk(24_000);
    expect(input.park(null, true)).toBe(true);
    expect(input.park(null, false)).toBe(false);
    input.dropPending(null);
    expect({ unread: stats.unreadInputBytes, chunkLength: chunk.length }).toEqual({
      unread: 0,
      chunkLength: 0,
    });
  });

  test("a kept chunk that shrinks to fit the head buffer moves there and is no longer counted", () => {
    const { input, stats, head, chunk } = pendingChunk(24_000);
    const small = chunkOf(`${padded}${get("/a").repeat(100)}`);
    input.discard();
    input.receive(small, true);
    readRequest(input, head, new Uint8Array(0));
    expect(input.park(null, true)).toBe(true);
    expect(stats.unreadInputBytes).toBe(small.length);
    for (let index = 0; index < 80; index++) readRequest(input, head, new Uint8Array(0));
    expect(input.park(null, true)).toBe(true);
    expect({ unread: stats.unreadInputBytes, freed: small.length, other: chunk.length }).toEqual({
      unread: 0,
      freed: 0,
      other: 0,
    });
    for (let index = 0; index < 20; index++) readRequest(input, head, new Uint8Array(0));
    expect(input.pending).toBe(false);
  });
});

describe("dropPending", () => {
  test("frees the pending bytes and every chunk that arrives until the next discard", () => {
    const { input } = inputWith(1024);
    const head = new ParsedHead(limits.maxHeaderCount);
    const chunk = chunkOf(get("/a").repeat(1000));
    input.receive(chunk, true);
    readRequest(input, head, new Uint8Array(0));
    expect(input.park(null, false)).toBe(false);
    input.dropPending(null);
    const later = chunkOf(get("/b"), 20_000);
    input.receive(later, true);
    expect({ first: chunk.length, later: later.length, pending: input.pending }).toEqual({
      first: 0,
      later: 0,
      pending: false,
    });
    input.discard();
    input.receive(encoder.encode(get("/c")), true);
    expect(readRequest(input, head, new Uint8Array(0)).target).toBe("/c");
  });
});

describe("a head at the start of a large chunk (an upload)", () => {
  test("moves to the head buffer, so the chunk is freed once its body bytes are copied, before the request ends", () => {
    const { input } = inputWith(1024);
    const head = new ParsedHead(limits.maxHeaderCount);
    const storage = new Uint8Array(64 * 1024);
    const headText = "PUT /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 40000\r\n\r\n";
    const first = chunkOf(headText + "a".repeat(20_000));
    input.receive(first, true);
    expect(input.readHead(head, limits)).toBe(inputComplete);
    // The head is read from the head buffer now, not from the chunk.
    const target = decoder.decode(
      head.buffer.subarray(head.base + head.targetStart, head.base + head.targetEnd),
    );
    input.expectBody(head);
    expect(input.readBody(storage, limits)).toBe(inputIncomplete);
    const second = chunkOf("b".repeat(20_000));
    input.receive(second, true);
    expect(input.readBody(storage, limits)).toBe(inputComplete);
    // Both chunks are freed while the request is still in progress; its head still reads.
    expect({
      target,
      headInBuffer: head.buffer.length === 1024,
      first: first.length,
      second: second.length,
      body: [input.body.length, input.body[0], input.body[39_999]],
    }).toEqual({
      target: "/upload",
      headInBuffer: true,
      first: 0,
      second: 0,
      body: [40_000, 0x61, 0x62],
    });
    input.requestEnded();
  });

  test("a chunk under 16 KiB keeps its head (copying it would cost every small request)", () => {
    const { input } = inputWith(1024);
    const head = new ParsedHead(limits.maxHeaderCount);
    const chunk = chunkOf(get("/small"));
    input.receive(chunk, true);
    expect(input.readHead(head, limits)).toBe(inputComplete);
    expect(head.buffer).toBe(chunk);
  });
});
