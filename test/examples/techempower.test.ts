import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import {
  type PostgresServer,
  startPostgresServer,
} from "../../bench/techempower/postgres-server.ts";
import { verifyTechEmpower } from "../../bench/techempower/verifier.ts";
import { inspectDatabase } from "../../bench/techempower/verifier-database.ts";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { startExample } from "./support/start-example.ts";

const directory = mkdtempSync(`${tmpdir()}/corral-techempower-test-`);
let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgresServer();
}, 30_000);
afterAll(async () => {
  await postgres?.[Symbol.asyncDispose]();
  rmSync(directory, { recursive: true, force: true });
});

/** Starts the example on `database` and runs the verifier against it over the wire. */
async function verifyExampleOn(database: string) {
  await using example = await startExample("techempower", [
    "bun",
    "run",
    "example",
    "techempower",
    "--port",
    "0",
    "--db",
    database,
  ]);
  const inspector = inspectDatabase(database);
  try {
    return await verifyTechEmpower(example.port, inspector);
  } finally {
    await inspector.close();
  }
}

describe("examples/techempower passes the TechEmpower verifier over the wire", () => {
  test("on SQLite (a file in WAL mode, the tables created at start)", async () => {
    const report = await verifyExampleOn(`${directory}/world.sqlite`);
    expect(report).toEqual({ failures: [], warnings: [], requests: 33 });
  });

  test("on PostgreSQL (Debian's, started on a free port as an unprivileged user)", async () => {
    const report = await verifyExampleOn(postgres.url);
    expect(report).toEqual({ failures: [], warnings: [], requests: 33 });
  });
});

describe("examples/techempower on the wire", () => {
  test("answers /json and /plaintext with exact heads, and 16 pipelined plaintext requests in order", async () => {
    await using example = await startExample("techempower");
    const client = await RawClient.connect(example.port);
    client.send(
      "GET /json HTTP/1.1\r\nHost: x\r\n\r\n" +
        "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n".repeat(16),
    );
    const answers = await client.responses(17);
    client.destroy();
    const shape = (answer: (typeof answers)[number]) => ({
      statusLine: answer.statusLine,
      headers: answer.headers.map(([name, value]) => [name, name === "date" ? "(date)" : value]),
      text: answer.text,
    });
    expect(shape(answers[0]!)).toEqual({
      statusLine: "HTTP/1.1 200 OK",
      headers: [
        ["date", "(date)"],
        ["server", "corral"],
        ["content-type", "application/json"],
        ["content-length", "27"],
      ],
      text: '{"message":"Hello, World!"}',
    });
    expect(new Set(answers.slice(1).map((answer) => JSON.stringify(shape(answer))))).toEqual(
      new Set([
        JSON.stringify({
          statusLine: "HTTP/1.1 200 OK",
          headers: [
            ["date", "(date)"],
            ["server", "corral"],
            ["content-type", "text/plain; charset=utf-8"],
            ["content-length", "13"],
          ],
          text: "Hello, World!",
        }),
      ]),
    );
    expect(answers[1]!.header("date")).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
  });

  test("every answer the App makes carries Server: misses, OPTIONS and 501 too", async () => {
    await using example = await startExample("techempower");
    const client = await RawClient.connect(example.port);
    client.send(
      "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n" +
        "POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n" +
        "OPTIONS /json HTTP/1.1\r\nHost: x\r\n\r\n" +
        "BREW /json HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    const answers = await client.responses(4);
    client.destroy();
    expect(answers.map((answer) => [answer.statusLine, answer.header("server")])).toEqual([
      ["HTTP/1.1 404 Not Found", "corral"],
      ["HTTP/1.1 405 Method Not Allowed", "corral"],
      ["HTTP/1.1 204 No Content", "corral"],
      ["HTTP/1.1 501 Not Implemented", "corral"],
    ]);
  });

  test("without --db, the temporary SQLite folder is gone once the example stops", async () => {
    const temporary = mkdtempSync(`${tmpdir()}/corral-techempower-tmpdir-`);
    try {
      const example = await startExample("techempower", undefined, {
        env: { TMPDIR: temporary },
      });
      const during = readdirSync(temporary);
      await example[Symbol.asyncDispose]();
      expect({ during: during.length, after: readdirSync(temporary) }).toEqual({
        during: 1,
        after: [],
      });
    } finally {
      rmSync(temporary, { recursive: true, force: true });
    }
  });

  test("--db with a URL that is not PostgreSQL is a usage error", async () => {
    const child = Bun.spawn(
      ["bun", "run", "example", "techempower", "--port", "0", "--db", "mysql://x/y"],
      {
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [exitCode, errors] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    expect({
      exitCode,
      firstLine: errors.split("\n").find((line) => line.startsWith("invalid")),
    }).toEqual({
      exitCode: 2,
      firstLine: 'invalid --db "mysql://x/y": a URL must be postgres:// or postgresql://',
    });
  });
});
