import { clientFrame, closePayload, concatBytes } from "./websocket-frames.ts";

/**
 * One conformance case, after the Autobahn|Testsuite case of the same number (groups 1-7, 9, 10;
 * re-expressed from their descriptions and RFC 6455, not copied): the bytes a client sends, then
 * a close 1000, and the frames the server must answer with before it closes TCP. A close is
 * written [8, code]; a failed connection is [8, 1002] (or 1007 for invalid UTF-8) as its last.
 */
export interface ConformanceCase {
  readonly id: string;
  readonly what: string;
  readonly send: readonly Uint8Array[];
  readonly expect: readonly (readonly unknown[])[];
  /**
   * Where Bun.serve answers differently (found when calibrating), what it does: the case for
   * Bun.serve is then these bytes and this answer, and the difference is documented.
   */
  readonly bunServe?: {
    readonly send: readonly Uint8Array[];
    readonly expect: ReadonlyArray<readonly unknown[]>;
  };
}

const text = (payload: string | Uint8Array, final = true) => clientFrame(1, payload, { final });
const binary = (payload: string | Uint8Array, final = true) => clientFrame(2, payload, { final });
const continuation = (payload: string | Uint8Array, final = true) =>
  clientFrame(0, payload, { final });
const ping = (payload: string | Uint8Array = "") => clientFrame(9, payload);
const pong = (payload: string | Uint8Array = "") => clientFrame(10, payload);
const close = (code: number, reason: string | Uint8Array = "") =>
  clientFrame(8, closePayload(code, reason));
const bytes = (...values: number[]) => Uint8Array.from(values);
const decoder = new TextDecoder();
const asText = (value: Uint8Array) => decoder.decode(value);

const ok: readonly unknown[] = [8, 1000];
const protocolError: readonly unknown[] = [8, 1002];
const invalidPayload: readonly unknown[] = [8, 1007];

function repeat(length: number, byte = 0x2a): Uint8Array {
  return new Uint8Array(length).fill(byte);
}

/** A text message of `length` bytes, echoed, then a clean close. */
function textEcho(id: string, length: number): ConformanceCase {
  return {
    id,
    what: `text message of ${length} bytes`,
    send: [text(repeat(length)), close(1000)],
    expect: [[1, "*".repeat(length)], ok],
  };
}

const lengths = [0, 125, 126, 127, 128, 65535, 65536];
const validUtf8: ReadonlyArray<readonly [string, Uint8Array]> = [
  ["Hello-µ@ßöäüàá-UTF-8!!", new TextEncoder().encode("Hello-µ@ßöäüàá-UTF-8!!")],
  ["κόσμε", bytes(0xce, 0xba, 0xe1, 0xbd, 0xb9, 0xcf, 0x83, 0xce, 0xbc, 0xce, 0xb5)],
  ["U+0080", bytes(0xc2, 0x80)],
  ["U+0800", bytes(0xe0, 0xa0, 0x80)],
  ["U+10000", bytes(0xf0, 0x90, 0x80, 0x80)],
  ["U+D7FF", bytes(0xed, 0x9f, 0xbf)],
  ["U+FFFF", bytes(0xef, 0xbf, 0xbf)],
  ["U+10FFFF", bytes(0xf4, 0x8f, 0xbf, 0xbf)],
];
/** "κόσμε", then a surrogate (ED A0 80), then "edited" (Autobahn 6.3.1). */
const kosmeThenSurrogate = new Uint8Array(
  Buffer.from("cebae1bdb9cf83cebcceb5eda080656469746564", "hex"),
);
const invalidUtf8: ReadonlyArray<readonly [string, Uint8Array]> = [
  ["κόσμε then 0xED 0xA0 0x80 (surrogate)", kosmeThenSurrogate],
  ["lone continuation 0x80", bytes(0x80)],
  ["truncated 2-byte 0xC2", bytes(0xc2)],
  ["overlong U+002F", bytes(0xc0, 0xaf)],
  ["overlong U+002F in 3 bytes", bytes(0xe0, 0x80, 0xaf)],
  ["U+110000", bytes(0xf4, 0x90, 0x80, 0x80)],
  ["0xFE", bytes(0xfe)],
  ["0xFF", bytes(0xff)],
  ["U+DFFF", bytes(0xed, 0xbf, 0xbf)],
  ["5-byte form", bytes(0xf8, 0x88, 0x80, 0x80, 0x80)],
];

/** The cases, in Autobahn's numbering. */
export const conformanceCases: readonly ConformanceCase[] = [
  // 1: framing, text and binary, every length encoding.
  ...lengths.map((length, index) => textEcho(`1.1.${index + 1}`, length)),
  ...lengths.map((length, index) => ({
    id: `1.2.${index + 1}`,
    what: `binary message of ${length} bytes`,
    send: [binary(repeat(length, 0xfe)), close(1000)],
    expect: [[2, asText(repeat(length, 0xfe))], ok],
  })),
  // 2: pings and pongs.
  { id: "2.1", what: "ping without payload", send: [ping(), close(1000)], expect: [[10, ""], ok] },
  {
    id: "2.2",
    what: "ping with text payload",
    send: [ping("Hello, world!"), close(1000)],
    expect: [[10, "Hello, world!"], ok],
  },
  {
    id: "2.3",
    what: "ping with binary payload",
    send: [ping(bytes(0, 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0, 0xff)), close(1000)],
    expect: [[10, asText(bytes(0, 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0, 0xff))], ok],
  },
  {
    id: "2.4",
    what: "ping with 125 bytes",
    send: [ping(repeat(125, 0xfe)), close(1000)],
    expect: [[10, asText(repeat(125, 0xfe))], ok],
  },
  {
    id: "2.5",
    what: "ping with 126 bytes",
    send: [ping(repeat(126, 0xfe)), close(1000)],
    expect: [protocolError],
  },
  {
    id: "2.7",
    what: "unsolicited pong without payload",
    send: [pong(), close(1000)],
    expect: [ok],
  },
  {
    id: "2.8",
    what: "unsolicited pong with payload",
    send: [pong("unsolicited"), close(1000)],
    expect: [ok],
  },
  {
    id: "2.9",
    what: "unsolicited pong, then ping",
    send: [pong("unsolicited"), ping("solicited"), close(1000)],
    expect: [[10, "solicited"], ok],
  },
  // 3: reserved bits.
  ...[4, 2, 1, 6, 5, 3, 7].map((reserved, index) => ({
    id: `3.${index + 1}`,
    what: `RSV=${reserved} on a ${["text", "text", "text", "text", "binary", "ping", "close"][index]} frame`,
    send: [
      index === 1 ? text("Hello, world!") : new Uint8Array(0),
      clientFrame(
        [1, 1, 1, 1, 2, 9, 8][index]!,
        index === 6 ? closePayload(1000) : "Hello, world!",
        { reserved },
      ),
      ping(),
    ],
    expect: index === 1 ? [[1, "Hello, world!"], protocolError] : [protocolError],
  })),
  // 4: reserved opcodes.
  ...[3, 4, 5, 6, 7].map((opcode, index) => ({
    id: `4.1.${index + 1}`,
    what: `reserved data opcode ${opcode}`,
    send: [text("Hello, world!"), clientFrame(opcode, "payload"), ping()],
    expect: [[1, "Hello, world!"], protocolError],
  })),
  ...[11, 12, 13, 14, 15].map((opcode, index) => ({
    id: `4.2.${index + 1}`,
    what: `reserved control opcode ${opcode}`,
    send: [text("Hello, world!"), clientFrame(opcode, "payload"), ping()],
    expect: [[1, "Hello, world!"], protocolError],
  })),
  // 5: fragmentation.
  {
    id: "5.1",
    what: "ping in 2 fragments",
    send: [clientFrame(9, "frag1", { final: false }), continuation("frag2")],
    expect: [protocolError],
  },
  {
    id: "5.2",
    what: "pong in 2 fragments",
    send: [clientFrame(10, "frag1", { final: false }), continuation("frag2")],
    expect: [protocolError],
  },
  {
    id: "5.3",
    what: "text in 2 fragments",
    send: [text("frag1", false), continuation("frag2"), close(1000)],
    expect: [[1, "frag1frag2"], ok],
  },
  {
    id: "5.6",
    what: "text in 2 fragments, a ping between",
    send: [text("frag1", false), ping("ping"), continuation("frag2"), close(1000)],
    expect: [[10, "ping"], [1, "frag1frag2"], ok],
  },
  {
    id: "5.9",
    what: "a final continuation with nothing to continue",
    send: [continuation("fragment4"), text("fragment1"), close(1000)],
    expect: [protocolError],
  },
  {
    id: "5.12",
    what: "a non-final continuation with nothing to continue",
    send: [continuation("fragment4", false), text("fragment1")],
    expect: [protocolError],
  },
  {
    id: "5.15",
    what: "a continuation after a final frame",
    send: [
      text("fragment1", false),
      continuation("fragment2"),
      continuation("fragment3", false),
      text("fragment4"),
    ],
    expect: [[1, "fragment1fragment2"], protocolError],
  },
  {
    id: "5.18",
    what: "a text start inside a fragmented text",
    send: [text("fragment1", false), text("fragment2")],
    expect: [protocolError],
  },
  {
    id: "5.19",
    what: "5 fragments with 2 pings between",
    send: [
      text("fragment1", false),
      continuation("fragment2", false),
      ping("pongme 1!"),
      continuation("fragment3", false),
      ping("pongme 2!"),
      continuation("fragment4", false),
      continuation("fragment5"),
      close(1000),
    ],
    expect: [
      [10, "pongme 1!"],
      [10, "pongme 2!"],
      [1, "fragment1fragment2fragment3fragment4fragment5"],
      ok,
    ],
  },
  // 6: UTF-8.
  { id: "6.1.1", what: "empty text", send: [text(""), close(1000)], expect: [[1, ""], ok] },
  {
    id: "6.1.2",
    what: "empty text in 3 empty fragments",
    send: [text("", false), continuation("", false), continuation(""), close(1000)],
    expect: [[1, ""], ok],
  },
  ...validUtf8.map(([name, payload], index) => ({
    id: `6.2.${index + 1}`,
    what: `valid UTF-8 ${name}, split into 1-byte fragments`,
    send: [
      ...Array.from(payload, (byte, at) =>
        at === 0
          ? text(bytes(byte), payload.length === 1)
          : continuation(bytes(byte), at === payload.length - 1),
      ),
      close(1000),
    ],
    expect: [[1, asText(payload)], ok],
  })),
  ...invalidUtf8.map(([name, payload], index) => ({
    id: `6.3.${index + 1}`,
    what: `invalid UTF-8: ${name}`,
    send: [text(payload), close(1000)],
    expect: [invalidPayload],
  })),
  {
    id: "6.4.1",
    what: "invalid UTF-8 in the first fragment fails before the rest comes",
    send: [text(bytes(0xce, 0xba, 0xf4, 0x90), false)],
    expect: [invalidPayload],
    // Bun.serve (uWebSockets) checks UTF-8 once the message is whole: it waits for the rest.
    bunServe: {
      send: [concatBytes(text(bytes(0xce, 0xba, 0xf4, 0x90), false), continuation("rest"))],
      expect: [invalidPayload],
    },
  },
  // 7: closing.
  {
    id: "7.1.1",
    what: "text, then close",
    send: [text("Hello World!"), close(1000)],
    expect: [[1, "Hello World!"], ok],
  },
  { id: "7.1.2", what: "two closes", send: [close(1000), close(1000)], expect: [ok] },
  {
    id: "7.1.3",
    what: "ping after close is not answered",
    send: [close(1000), ping("Hello World!")],
    expect: [ok],
  },
  {
    id: "7.1.4",
    what: "text after close is dropped",
    send: [close(1000), text("Hello World!")],
    expect: [ok],
  },
  {
    id: "7.1.5",
    what: "a fragment, then close, then the rest",
    send: [text("fragment1", false), close(1000), continuation("fragment2")],
    expect: [ok],
  },
  { id: "7.3.1", what: "close without a payload", send: [clientFrame(8)], expect: [[8]] },
  {
    id: "7.3.2",
    what: "close with a 1-byte payload",
    send: [clientFrame(8, bytes(0x03))],
    expect: [protocolError],
  },
  { id: "7.3.3", what: "close 1000 without a reason", send: [close(1000)], expect: [ok] },
  { id: "7.3.4", what: "close with a reason", send: [close(1000, "Hello World!")], expect: [ok] },
  {
    id: "7.3.5",
    what: "close with a 123-byte reason",
    send: [close(1000, "*".repeat(123))],
    expect: [ok],
  },
  {
    id: "7.3.6",
    what: "close with a 124-byte reason (control frame of 126)",
    send: [close(1000, "*".repeat(124))],
    expect: [protocolError],
  },
  {
    id: "7.5.1",
    what: "close reason not UTF-8",
    send: [close(1000, kosmeThenSurrogate.subarray(0, 15))],
    expect: [invalidPayload],
  },
  ...[1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999].map(
    (code, index) => ({
      id: `7.7.${index + 1}`,
      what: `valid close code ${code}`,
      send: [close(code)],
      expect: [[8, code]],
    }),
  ),
  ...[0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999, 5000, 65535].map((code, index) => ({
    id: `7.9.${index + 1}`,
    what: `invalid close code ${code}`,
    send: [close(code)],
    expect: [protocolError],
  })),
  // 9: larger messages (the full Autobahn sizes go to 16 MiB; the chat example test sends 16 MiB).
  ...[64 * 1024, 256 * 1024, 1024 * 1024].map((length, index) =>
    textEcho(`9.1.${index + 1}`, length),
  ),
  {
    id: "9.3.1",
    what: "256 KiB text in 64-byte fragments",
    send: [
      ...Array.from({ length: 4096 }, (_, index) =>
        index === 0 ? text(repeat(64), false) : continuation(repeat(64), index === 4095),
      ),
      close(1000),
    ],
    expect: [[1, "*".repeat(256 * 1024)], ok],
  },
  // 10: a message split at an arbitrary fragment size.
  {
    id: "10.1.1",
    what: "65536-byte text in 1300-byte fragments",
    send: [
      ...Array.from({ length: Math.ceil(65536 / 1300) }, (_, index) =>
        (index === 0 ? text : continuation)(
          repeat(Math.min(1300, 65536 - index * 1300)),
          index === Math.ceil(65536 / 1300) - 1,
        ),
      ),
      close(1000),
    ],
    expect: [[1, "*".repeat(65536)], ok],
  },
].map((testCase: ConformanceCase) => ({ ...testCase, send: [concatBytes(...testCase.send)] }));
