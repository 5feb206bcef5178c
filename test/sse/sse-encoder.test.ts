import { describe, expect, test } from "bun:test";
import {
  ServerSentEventError,
  type ServerSentEventErrorReason,
} from "../../src/sse/server-sent-event-error.ts";
import {
  encodeServerSentComment,
  encodeServerSentEvent,
  type ServerSentEvent,
  serverSentEventsContentType,
} from "../../src/sse/sse-encoder.ts";
import { readEventStream } from "./event-stream-parser.ts";

function reasonOf(run: () => unknown): ServerSentEventErrorReason | "no error" {
  try {
    run();
  } catch (error) {
    if (error instanceof ServerSentEventError) return error.reason;
    throw error;
  }
  return "no error";
}

describe("encodeServerSentEvent frames", () => {
  test.each<[string, ServerSentEvent, string]>([
    ["single-line data", { data: "hello" }, "data: hello\n\n"],
    ["empty data still gets a data line", { data: "" }, "data:\n\n"],
    ["LF splits data", { data: "a\nb" }, "data: a\ndata: b\n\n"],
    ["CRLF splits data", { data: "a\r\nb" }, "data: a\ndata: b\n\n"],
    ["CR splits data", { data: "a\rb" }, "data: a\ndata: b\n\n"],
    [
      "mixed breaks, each its own line",
      { data: "a\r\n\r\nb\n\rc" },
      "data: a\ndata:\ndata: b\ndata:\ndata: c\n\n",
    ],
    ["trailing LF keeps an empty last line", { data: "a\n" }, "data: a\ndata:\n\n"],
    ["a lone LF is two empty lines", { data: "\n" }, "data:\ndata:\n\n"],
    ["a lone CRLF is two empty lines", { data: "\r\n" }, "data:\ndata:\n\n"],
    ["CR then LF across lines", { data: "\r\r\n" }, "data:\ndata:\ndata:\n\n"],
    ["leading space survives", { data: " x" }, "data:  x\n\n"],
    ["colons in data are plain text", { data: "a: b:c" }, "data: a: b:c\n\n"],
    ["NUL in data is allowed", { data: "a\u0000b" }, "data: a\u0000b\n\n"],
    ["unicode", { data: "héllo 😀 日本" }, "data: héllo 😀 日本\n\n"],
    [
      "U+2028 and NEL are not line breaks",
      { data: "a\u2028b\u0085c" },
      "data: a\u2028b\u0085c\n\n",
    ],
    ["event name", { event: "progress", data: "1" }, "event: progress\ndata: 1\n\n"],
    ["unicode event name", { event: "état", data: "1" }, "event: état\ndata: 1\n\n"],
    ["empty event name", { event: "", data: "1" }, "event:\ndata: 1\n\n"],
    ["numeric id", { id: 42, data: "1" }, "id: 42\ndata: 1\n\n"],
    ["id 0", { id: 0, data: "1" }, "id: 0\ndata: 1\n\n"],
    ["largest safe id", { id: 2 ** 53 - 1, data: "1" }, "id: 9007199254740991\ndata: 1\n\n"],
    ["string id", { id: "v1-😀", data: "1" }, "id: v1-😀\ndata: 1\n\n"],
    ["empty id resets the client's id", { id: "", data: "1" }, "id:\ndata: 1\n\n"],
    ["retry", { retry: 1500, data: "1" }, "retry: 1500\ndata: 1\n\n"],
    ["retry 0", { retry: 0, data: "1" }, "retry: 0\ndata: 1\n\n"],
    [
      "fields in order event, id, retry, data",
      { data: "x\ny", retry: 10, id: 7, event: "tick" },
      "event: tick\nid: 7\nretry: 10\ndata: x\ndata: y\n\n",
    ],
  ])("%s", (_name, event, frame) => {
    expect(encodeServerSentEvent(event)).toBe(frame);
  });
});

describe("encodeServerSentEvent refusals", () => {
  test("every invalid field throws its reason, and nothing is stripped", () => {
    const cases: Array<[string, ServerSentEvent]> = [
      ["id with LF", { id: "a\nb", data: "" }],
      ["id with CR", { id: "a\rb", data: "" }],
      ["id with CRLF", { id: "a\r\nb", data: "" }],
      ["id with NUL", { id: "a\u0000b", data: "" }],
      ["negative id", { id: -1, data: "" }],
      ["fractional id", { id: 1.5, data: "" }],
      ["NaN id", { id: Number.NaN, data: "" }],
      ["infinite id", { id: Number.POSITIVE_INFINITY, data: "" }],
      ["unsafe id", { id: 2 ** 53, data: "" }],
      ["event with LF", { event: "a\nb", data: "" }],
      ["event with CR", { event: "a\rb", data: "" }],
      ["negative retry", { retry: -1, data: "" }],
      ["fractional retry", { retry: 1.5, data: "" }],
      ["NaN retry", { retry: Number.NaN, data: "" }],
      ["infinite retry", { retry: Number.POSITIVE_INFINITY, data: "" }],
      ["unsafe retry", { retry: 2 ** 53, data: "" }],
      ["lone high surrogate in data", { data: "a\ud800" }],
      ["lone low surrogate in event", { event: "\udc00", data: "" }],
      ["lone surrogate in id", { id: "\ud800x", data: "" }],
    ];
    const reasons = Object.fromEntries(
      cases.map(([name, event]) => [name, reasonOf(() => encodeServerSentEvent(event))]),
    );
    expect(reasons).toEqual({
      "id with LF": "invalidId",
      "id with CR": "invalidId",
      "id with CRLF": "invalidId",
      "id with NUL": "invalidId",
      "negative id": "invalidId",
      "fractional id": "invalidId",
      "NaN id": "invalidId",
      "infinite id": "invalidId",
      "unsafe id": "invalidId",
      "event with LF": "invalidEventName",
      "event with CR": "invalidEventName",
      "negative retry": "invalidRetry",
      "fractional retry": "invalidRetry",
      "NaN retry": "invalidRetry",
      "infinite retry": "invalidRetry",
      "unsafe retry": "invalidRetry",
      "lone high surrogate in data": "loneSurrogate",
      "lone low surrogate in event": "loneSurrogate",
      "lone surrogate in id": "loneSurrogate",
    });
  });

  test("the error is typed and named", () => {
    const error = (() => {
      try {
        encodeServerSentEvent({ id: "a\nb", data: "" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ServerSentEventError);
    expect(error).toBeInstanceOf(Error);
    expect((error as ServerSentEventError).name).toBe("ServerSentEventError");
  });
});

describe("encodeServerSentComment", () => {
  test.each<[string, string, string]>([
    ["heartbeat", "keep-alive", ": keep-alive\n\n"],
    ["empty comment", "", ":\n\n"],
    ["every line break starts a comment line", "a\nb\r\nc\rd", ": a\n: b\n: c\n: d\n\n"],
    ["unicode", "ça va 😀", ": ça va 😀\n\n"],
  ])("%s", (_name, text, frame) => {
    expect(encodeServerSentComment(text)).toBe(frame);
  });

  test("a lone surrogate is refused", () => {
    expect(reasonOf(() => encodeServerSentComment("\udfff"))).toBe("loneSurrogate");
  });

  test("a client dispatches nothing for comments", () => {
    const stream = encodeServerSentComment("a\nb") + encodeServerSentComment("");
    expect(readEventStream(stream).events).toEqual([]);
  });
});

test("the content type is text/event-stream in UTF-8", () => {
  expect(serverSentEventsContentType).toBe("text/event-stream; charset=utf-8");
});

describe("round trip through a §9.2.6 reader", () => {
  test("fields arrive as sent, line breaks as LF", () => {
    const stream =
      encodeServerSentEvent({ event: "tick", id: 3, retry: 250, data: " a\r\nb\rc\n" }) +
      encodeServerSentEvent({ data: "" }) +
      encodeServerSentEvent({ id: "", data: "after reset" });
    expect(readEventStream(stream)).toEqual({
      events: [
        { type: "tick", data: " a\nb\nc\n", lastEventId: "3" },
        { type: "message", data: "", lastEventId: "3" },
        { type: "message", data: "after reset", lastEventId: "" },
      ],
      lastEventId: "",
      retry: 250,
    });
  });

  test("seeded random data survives encoding", () => {
    const alphabet = ["a", " ", ":", "\r", "\n", "\r\n", "é", "😀", "\u0000", "\u2028"];
    let seed = 0x2545f491;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const mismatches: string[] = [];
    for (let round = 0; round < 500; round++) {
      let data = "";
      const length = Math.floor(next() * 12);
      for (let index = 0; index < length; index++) {
        data += alphabet[Math.floor(next() * alphabet.length)];
      }
      const id = `id-${round}`;
      const parsed = readEventStream(encodeServerSentEvent({ event: "e", id, data }));
      const expected = [{ type: "e", data: data.replace(/\r\n|\r/g, "\n"), lastEventId: id }];
      if (!Bun.deepEquals(parsed.events, expected)) mismatches.push(JSON.stringify(data));
    }
    expect(mismatches).toEqual([]);
  });
});
