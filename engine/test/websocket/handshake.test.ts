import { describe, expect, test } from "bun:test";
import {
  acceptKey,
  type HandshakeRequest,
  validateHandshake,
} from "../../src/websocket/handshake.ts";

/** A request with the given header lines, searched like the engine's exchange. */
function request(lines: ReadonlyArray<readonly [string, string]>, method = "GET", minor = 1) {
  const found: HandshakeRequest = {
    method,
    versionMinor: minor,
    findHeader(name, from = 0) {
      for (let index = from; index < lines.length; index++) {
        if (lines[index]![0].toLowerCase() === name.toLowerCase()) return index;
      }
      return -1;
    },
    headerValue: (index) => lines[index]![1],
  };
  return found;
}

const key = "dGhlIHNhbXBsZSBub25jZQ==";
const base: ReadonlyArray<readonly [string, string]> = [
  ["Host", "example.com"],
  ["Upgrade", "websocket"],
  ["Connection", "Upgrade"],
  ["Sec-WebSocket-Key", key],
  ["Sec-WebSocket-Version", "13"],
];
function without(name: string) {
  return base.filter(([line]) => line !== name);
}
function replaced(name: string, value: string) {
  return base.map(([line, old]) => [line, line === name ? value : old] as const);
}

describe("validateHandshake", () => {
  test("RFC 6455 §1.3's example key gives its accept value", () => {
    expect(acceptKey(key)).toBe("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  });

  test.each([
    ["the plain form", base],
    ["Connection as a list in any case", replaced("Connection", "keep-alive, UPGRADE")],
    ["Upgrade in upper case in a list", replaced("Upgrade", "h2c, WebSocket")],
    [
      "Connection over two lines",
      [...without("Connection"), ["Connection", "keep-alive"], ["Connection", "upgrade"]] as const,
    ],
  ])("accepts %s", (_name, lines) => {
    expect(validateHandshake(request(lines))).toEqual({
      kind: "valid",
      key,
      protocols: [],
      origin: undefined,
    });
  });

  test("lists offered subprotocols in order over every line, and the origin", () => {
    const lines = [
      ...base,
      ["Sec-WebSocket-Protocol", "chat, superchat"],
      ["Sec-WebSocket-Protocol", "v2"],
      ["Origin", "http://a.test"],
    ] as const;
    expect(validateHandshake(request(lines))).toEqual({
      kind: "valid",
      key,
      protocols: ["chat", "superchat", "v2"],
      origin: "http://a.test",
    });
  });

  test.each([
    ["POST", request(base, "POST"), 400],
    ["HTTP/1.0", request(base, "GET", 0), 400],
    ["no Upgrade", request(without("Upgrade")), 400],
    ["Upgrade: h2c", request(replaced("Upgrade", "h2c")), 400],
    ["no Connection upgrade", request(replaced("Connection", "keep-alive")), 400],
    ["no version", request(without("Sec-WebSocket-Version")), 400],
    ["version 8", request(replaced("Sec-WebSocket-Version", "8")), 426],
    ["two versions", request([...base, ["Sec-WebSocket-Version", "13"]]), 400],
    ["no key", request(without("Sec-WebSocket-Key")), 400],
    ["a key of 15 bytes", request(replaced("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25j")), 400],
    ["a key of 17 bytes", request(replaced("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZTE=")), 400],
    [
      "a key with stray bits",
      request(replaced("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZR==")),
      400,
    ],
    ["a key not base64", request(replaced("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25j!Q==")), 400],
    ["two keys", request([...base, ["Sec-WebSocket-Key", key]]), 400],
    ["two origins", request([...base, ["Origin", "http://a"], ["Origin", "http://b"]]), 400],
    ["a malformed subprotocol", request([...base, ["Sec-WebSocket-Protocol", "a b"]]), 400],
  ] as const)("refuses %s", (_name, input, status) => {
    const result = validateHandshake(input);
    expect(result.kind).toBe("refused");
    expect(result.kind === "refused" && result.status).toBe(status);
  });
});
