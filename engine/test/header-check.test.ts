import { expect, test } from "bun:test";
import type { Exchange } from "../index.ts";
import {
  checkHeaderLine,
  isDateName,
  maxCheckedNames,
  maxRememberedValueLength,
} from "../src/internal/header-check.ts";
import { RawClient } from "./support/raw-client.ts";
import { startServer } from "./support/test-server.ts";

test("names are checked and lower-cased; a value is checked again whenever it differs from the last one of its name", () => {
  for (let round = 0; round < 3; round++) {
    expect(checkHeaderLine("Content-Type", "text/plain")).toBe("content-type");
    expect(checkHeaderLine("Server", "corral")).toBe("server");
  }
  expect(() => checkHeaderLine("Server", "corral\r\nSet-Cookie: a=b")).toThrow(
    "corral: invalid character in the value of header Server",
  );
  expect(() => checkHeaderLine("Content-Type", " text/plain")).toThrow(
    "corral: the value of header Content-Type must not start or end with whitespace",
  );
  // The last good value is still known good; a bad one is never remembered.
  expect(checkHeaderLine("Server", "corral")).toBe("server");
  expect(() => checkHeaderLine("Server", "corral\r\nSet-Cookie: a=b")).toThrow();
  expect(() => checkHeaderLine("Bad Name", "x")).toThrow('corral: invalid header name "Bad Name"');
  expect(() => checkHeaderLine("Bad Name", "x")).toThrow('corral: invalid header name "Bad Name"');
});

test("past maxCheckedNames names, and for values longer than maxRememberedValueLength, every line is checked in full", () => {
  for (let index = 0; index < maxCheckedNames + 10; index++) {
    expect(checkHeaderLine(`X-Name-${index}`, "v")).toBe(`x-name-${index}`);
  }
  expect(() => checkHeaderLine("X-Late\u0000", "v")).toThrow("corral: invalid header name");
  const long = "a".repeat(maxRememberedValueLength + 1);
  expect(checkHeaderLine("X-Long", long)).toBe("x-long");
  expect(() => checkHeaderLine("X-Long", `${long}\u0001`)).toThrow(
    "corral: invalid character in the value of header X-Long",
  );
  expect(checkHeaderLine("X-Long", long)).toBe("x-long");
});

test("an empty header name is refused as the first line a connection drafts, with an empty value or not (it was written as `: x`)", async () => {
  const tryHeader = (exchange: Exchange) => {
    try {
      exchange.setHeader("", exchange.path === "/empty" ? "" : "x");
      exchange.writeText("accepted");
    } catch (error) {
      exchange.writeText(`refused: ${(error as Error).message}`);
    }
  };
  await using server = startServer(tryHeader);
  for (const path of ["/empty", "/x"]) {
    using client = await RawClient.connect(server.port);
    client.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
    const answer = await client.response();
    expect([answer.status, answer.text]).toEqual([
      200,
      "refused: corral: a header name must not be empty",
    ]);
  }
});

test("isDateName is Date in any letter case, and nothing else", () => {
  for (const name of ["Date", "date", "DATE", "dAtE"]) expect(isDateName(name)).toBe(true);
  // Characters one bit (0x20) away from a letter of "date" that are not its other case.
  for (const name of ["Data", "Dat", "Dates", "Vary", "D@te", "Da4e", "DatE ", "\u0000ate"]) {
    expect(isDateName(name)).toBe(false);
  }
});
