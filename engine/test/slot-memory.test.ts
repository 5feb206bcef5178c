// Each connection's share of the arenas listen() reserves (head buffer, output buffer, header
// offsets) is its own: connections parsing heads side by side never see each other's fields.
import { expect, test } from "bun:test";
import { defaultLimits } from "../index.ts";
import { ParsedHead } from "../src/parser/parsed-head.ts";
import { headComplete, parseRequestHead } from "../src/parser/request-head.ts";
import { RawClient } from "./support/raw-client.ts";
import { echoHandler, startServer } from "./support/test-server.ts";

test("four connections parse heads of maxHeaderCount fields side by side, each head sent in two parts, and each answer lists only its own fields", async () => {
  await using server = startServer(echoHandler);
  const fieldCount = defaultLimits.maxHeaderCount - 1; // Host is one of them
  const fields = (client: number) =>
    Array.from({ length: fieldCount }, (_, index) => `x-${index}: c${client}v${index}\r\n`);
  const clients = await Promise.all([0, 1, 2, 3].map(() => RawClient.connect(server.port)));
  try {
    // The first halves go out together and are parsed (and their offsets kept) while the
    // others arrive; the second halves then complete every head.
    for (const [client, raw] of clients.entries()) {
      raw.send(`GET /${client} HTTP/1.1\r\nHost: h\r\n${fields(client).slice(0, 50).join("")}`);
    }
    await Bun.sleep(50);
    for (const [client, raw] of clients.entries()) {
      raw.send(`${fields(client).slice(50).join("")}\r\n`);
    }
    const answers = await Promise.all(clients.map((raw) => raw.response()));
    for (const [client, answer] of answers.entries()) {
      const expected = fields(client).map((line) => line.slice(0, -2).replace(": ", "="));
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(`GET /${client} 1.1\n`);
      expect(answer.text).toContain(`headers=Host=h|${expected.join("|")}\n`);
    }
  } finally {
    for (const raw of clients) raw[Symbol.dispose]();
  }
});

test("a parsed head refuses header offsets too short for its field count, and uses the view it is given", () => {
  expect(() => new ParsedHead(3, new Uint32Array(11))).toThrow(
    "corral: the header offsets hold fewer than four per header field",
  );
  const arena = new Uint32Array(24);
  const head = new ParsedHead(3, arena.subarray(12, 24));
  const buffer = new TextEncoder().encode("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  head.reset(buffer, 0);
  expect(parseRequestHead(head, buffer.length, defaultLimits)).toBe(headComplete);
  expect([...arena.subarray(0, 12)]).toEqual(Array(12).fill(0));
  expect(arena[12]).toBe(16);
});
