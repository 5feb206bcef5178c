import { describe, expect, test } from "bun:test";
import { ManualIo } from "../../src/io.ts";
import {
  decodeSessionToken,
  encodeSessionToken,
  generateSessionToken,
  sessionTokenBytes,
  sessionTokenLength,
} from "../../src/sessions/session-token.ts";

const zeroToken = "A".repeat(43);

describe("session tokens", () => {
  test("a token is the Io's 32 random bytes as 43 characters of unpadded base64url", () => {
    const io = new ManualIo({ randomBytes: (target) => target.fill(0xff) });
    const target = new Uint8Array(sessionTokenBytes);
    const token = generateSessionToken(io, target);
    expect({ token, length: token.length, filled: [...target].every((b) => b === 0xff) }).toEqual({
      token: `${"_".repeat(42)}8`,
      length: sessionTokenLength,
      filled: true,
    });
  });

  test("real random tokens round-trip through decode and stay cookie-safe", () => {
    const target = new Uint8Array(sessionTokenBytes);
    for (let round = 0; round < 200; round++) {
      const token = generateSessionToken(new ManualIo(), target);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(decodeSessionToken(token)).toEqual(target);
    }
  });

  test("encode writes exactly the bytes of a subarray view", () => {
    const arena = new Uint8Array(64).fill(0xff);
    arena.fill(0, 16, 48);
    expect(encodeSessionToken(arena.subarray(16, 48))).toBe(zeroToken);
  });

  test.each<[string, string]>([
    ["empty", ""],
    ["one character short", zeroToken.slice(1)],
    ["one character long", `${zeroToken}A`],
    ["padded", `${zeroToken}=`],
    ["standard base64 '+'", `+${zeroToken.slice(1)}`],
    ["standard base64 '/'", `/${zeroToken.slice(1)}`],
    ["non-canonical last character", `${zeroToken.slice(0, 42)}B`],
    ["a space inside", `${zeroToken.slice(0, 20)} ${zeroToken.slice(21)}`],
    ["non-ASCII", `é${zeroToken.slice(1)}`],
  ])("decode refuses %s", (_name, text) => {
    expect(decodeSessionToken(text)).toBeUndefined();
  });

  test("generating into a target of another size is a TypeError", () => {
    expect(() => generateSessionToken(new ManualIo(), new Uint8Array(16))).toThrow(TypeError);
  });
});
